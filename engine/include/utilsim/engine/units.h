// The integer unit scales of utilsim (design.md §3), named so that a number
// in the code says which unit it converts.
#pragma once

#include <cstdint>

namespace utilsim {

// Milli-units per whole unit: milli-GPU per GPU (1000 = one whole GPU, as in
// the Alibaba 2023 trace) and milli-cores per core. An int, like the
// milli-GPU share of a task (TaskShape::gpu_milli).
inline constexpr int kMilliPerUnit = 1000;

// Microseconds (the unit of Micros) per second.
inline constexpr int64_t kMicrosPerSecond = 1'000'000;

// Bytes per GiB (memory is in bytes; inputs and messages use GiB).
inline constexpr int64_t kBytesPerGiB = int64_t{1} << 30;

}  // namespace utilsim
