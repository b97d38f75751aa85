// Right-sizing rules shared by RightSizeMig (static layouts) and
// RightSizeMigDynamic (mig_cluster.h): how a job is classified and which
// profile of an ordered list it gets. Internal to the engine.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "utilsim/engine/mig.h"
#include "utilsim/engine/mig_cluster.h"
#include "utilsim/engine/units.h"

namespace utilsim::mig_sizing {

// Profile order for right-sizing: (compute, memory) slices.
inline bool Smaller(const mig::Profile& a, const mig::Profile& b) {
  if (a.compute_slices != b.compute_slices) return a.compute_slices < b.compute_slices;
  return a.memory_slices < b.memory_slices;
}

enum class Kind { kWhole, kFractional, kUtil };

// What a GPU job needs of an instance.
struct Need {
  Kind kind = Kind::kUtil;
  int64_t mem_bytes = 0;  // GPU memory: measured, else requested, else the assumed default
  double demand = 1;      // MigDemand of its utilization, kind and tokens per step
  int slices = 7;         // fractional: compute slices for its gpu_milli
};

// Classifies a GPU job (multi-GPU and unknown-utilization jobs stay whole)
// and counts it in st (multi_gpu, fractional, unknown_util, by_util,
// mem_unknown).
inline Need Classify(const Job& job, const RightSizeParams& params, RightSizeStats* st) {
  Need n;
  if (int64_t{job.tasks} * job.task.gpus > 1) {
    n.kind = Kind::kWhole;
    ++st->multi_gpu;
  } else if (job.task.fractional()) {
    n.kind = Kind::kFractional;
    ++st->fractional;
  } else if (!mig::MigMeasuredDemand(mig::MigInputsOf(job), params.speed)) {  // nothing to size by
    n.kind = Kind::kWhole;
    ++st->unknown_util;
  } else {
    ++st->by_util;
  }
  n.mem_bytes = params.unknown_mem_bytes;
  if (job.gpu_mem_used_bytes >= 0) {
    n.mem_bytes = job.gpu_mem_used_bytes;
  } else if (job.task.gpu_mem_bytes > 0) {
    n.mem_bytes = job.task.gpu_mem_bytes;
  } else if (n.kind != Kind::kWhole) {
    ++st->mem_unknown;
  }
  n.demand = mig::MigDemand(mig::MigInputsOf(job), params.speed);
  n.slices = std::clamp(
      static_cast<int>((int64_t{job.task.gpu_milli} * 7 + kMilliPerUnit - 1) / kMilliPerUnit), 1,
      7);
  return n;
}

// The profile `need` gets among `profiles` (indices into m.profiles,
// ascending by Smaller), or -1: whole jobs the 7g; others the first that
// is 7g or passes fits(profile index) (memory, host share) and has the
// compute slices (fractional) or the predicted speed >= tolerance (util).
template <class Fits>
int Choose(const mig::GpuModel& m, const std::vector<int>& profiles, const Need& need,
           const RightSizeParams& params, Fits fits) {
  int chosen = -1;
  for (int pr : profiles) {
    const mig::Profile& prof = m.profiles[static_cast<size_t>(pr)];
    const bool full = prof.compute_slices == mig::kComputeSlices;
    if (need.kind == Kind::kWhole) {
      if (full) chosen = pr;
      continue;
    }
    if (!full && !fits(pr)) continue;
    if (need.kind == Kind::kFractional
            ? prof.compute_slices >= need.slices
            : mig::MigSpeed(prof, need.demand, params.speed) >= params.tolerance)
      return pr;
  }
  return chosen;
}

}  // namespace utilsim::mig_sizing
