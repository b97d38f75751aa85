// Column set of the canonical jobs CSV, shared by its reader and writer.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace utilsim::traces::internal {

enum JobCol : int {
  kId,
  kSubmit,
  kRuntime,
  kTasks,
  kGpus,
  kGpuMilli,
  kCpuMilli,
  kMemMib,
  kGpuMemMib,
  kGpuModels,
  kTenant,
  kPriority,
  kUtil,
  kProfile,
  kRecordedStart,
  kWalltime,
  kHostCpuMilli,
  kGpuMemUsedMib,
  kKillAtLimit,
  kStallInputCpu,
  kStallInputStorage,
  kStallComm,
  kNicGbS,
  kStorageGbS,
  kJobKind,
  kTokensPerStep,
  kNumJobCols,
};

// In the order the writer writes them.
inline constexpr std::array<std::string_view, kNumJobCols> kJobColumns = {
    "id",
    "submit_s",
    "runtime_s",
    "tasks",
    "gpus",
    "gpu_milli",
    "cpu_milli",
    "mem_mib",
    "gpu_mem_mib",
    "gpu_models",
    "tenant",
    "priority",
    "util",
    "profile",
    "recorded_start_s",
    "walltime_s",
    "host_cpu_milli",
    "gpu_mem_used_mib",
    "kill_at_limit",
    "stall_input_cpu",
    "stall_input_storage",
    "stall_comm",
    "nic_gb_s",
    "storage_gb_s",
    "job_kind",
    "tokens_per_step",
};

inline constexpr int64_t kMiB = int64_t{1} << 20;

// "a, b, c" of all column names, for messages.
inline std::string JobColumnList() {
  std::string s;
  for (std::string_view c : kJobColumns) {
    if (!s.empty()) s += ", ";
    s += c;
  }
  return s;
}

}  // namespace utilsim::traces::internal
