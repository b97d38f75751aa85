// Internals shared by the openb pod reader (openb_pods.cc) and its notes
// (openb_notes.cc). Not part of the public API.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "utilsim/engine/time.h"
#include "utilsim/traces/openb.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces::internal {

// Per-file tallies over every data row (also of skipped pods).
struct OpenbPodTally {
  std::map<int32_t, int64_t> num_gpu;  // num_gpu -> pods
  int64_t sharing = 0;                 // num_gpu == 1 and gpu_milli < 1000
  std::map<std::string, int64_t> phase, qos;
  int64_t pending = 0;  // empty scheduled_time
  Micros min_creation = kNever, max_creation{0}, max_deletion{0};
};

// Bytes of the (uncompressed) input at `path`, by a second pass over the
// file; 0 when it cannot be read.
int64_t CountInputBytes(const std::string& path);

// Appends the notes of a pod list to out->notes (docs/formats/openb.md);
// out->rows_read and out->workload must be final.
void AddOpenbPodNotes(bool has_phase, bool has_qos, bool has_times, const OpenbOptions& opt,
                      const OpenbPodTally& t, TraceData* out);

}  // namespace utilsim::traces::internal
