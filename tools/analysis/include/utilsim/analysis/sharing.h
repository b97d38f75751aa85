// GPU-sharing options of run/compare (docs/sharing.md): the --sharing mode,
// the exclusive workload transform and the per-sample fragmentation sampler.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/interference.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"

namespace utilsim {
class FragmentationMeter;
}

namespace utilsim {

enum class SharingMode { kFractional, kExclusive, kTimeSlice, kMps };

// "fractional", "exclusive", "timeslice" or "mps"; mps_thread_pct in
// (0, 100] (used by mps only). Errors name the option.
Result<SharingMode> ParseSharingMode(const std::string& name, double mps_thread_pct);
// The interference model's configuration for kTimeSlice / kMps.
SharingConfig SharingConfigOf(SharingMode mode, double mps_thread_pct);

// Rounds every fractional request (one GPU, gpu_milli < 1000) up to a whole
// GPU, scaling its busy share (util, and a copy of its series) by
// gpu_milli / 1000 so its useful GPU-seconds stay the same; returns how
// many jobs changed.
int64_t RoundUpFractional(Workload* w);

// A sampler for SimConfig::fragmentation: FragmentationMeter::Cluster of the
// state, in milli-GPU, recomputing only nodes whose free CPU, memory or GPU
// shares changed since the previous call (the result is identical). One per
// simulation (it keeps per-node state); the meter may be shared.
std::function<double(const ClusterState&)> MakeFragmentationSampler(
    std::shared_ptr<const FragmentationMeter> meter);

}  // namespace utilsim
