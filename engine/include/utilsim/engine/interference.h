// Interference model for jobs that share one GPU (time-slicing or MPS):
// predicts each co-runner's speed relative to running alone from the
// co-runners' measured solo utilization, and checks that their GPU memory
// fits (memory is a hard limit: sharing never oversubscribes it).
//
// Model (docs/sharing.md). For co-runners k = 1..n on one GPU with solo GPU
// utilization u_k (NVML "a kernel was running" time fraction, 0..1) and
// memory-controller utilization m_k (0..1), job i's time per unit of solo
// work is
//
//   T_i = 1 + u_i (1/p_i - 1)
//           + o_i c [ alpha u_i U_i + gamma max(0, U - 1) ]
//           + beta u_i M_i
//   speed_i = 1 / T_i  in (0, 1]
//
// with U = sum_k u_k, U_i = U - u_i, M_i = sum_{k != i} m_k and
//   time-slicing: p_i = 1, o_i = 1 (n >= 2), c = 1;
//   MPS:          p_i = the client's active-thread fraction (the smaller of
//                 the control daemon's default and the client's own
//                 CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, domain.md §2.2),
//                 o_i = min(1, max(0, sum_k p_k - 1) / p_i) (the share of
//                 i's SMs that other clients may also use: 0 when the
//                 limits partition the GPU), c = mps_compute_scale.
// alpha: a job's GPU phase waits while co-runners hold the GPU; beta:
// co-runners' memory traffic slows it; gamma: the GPU is oversubscribed
// (summed demand above 1). A lone job runs at speed 1 under time-slicing and
// at 1 / (1 + u (1/p - 1)) under an MPS limit p. Parameters are fitted on
// the Lucid pair measurements (workloads/interference_fit.h); only pairs
// were measured, so n > 2 is an extrapolation of the same sums.
//
// Cost: O(n) per call, no allocation (PredictCoRunSpeeds with a span).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "utilsim/engine/status.h"

namespace utilsim {

enum class GpuSharing { kTimeSlice, kMps };

// "time-slice" / "mps".
std::string_view GpuSharingName(GpuSharing mode);
// Accepts the names above; nullopt otherwise.
std::optional<GpuSharing> ParseGpuSharing(std::string_view text);

// One job sharing the GPU, as measured running alone on it.
struct CoRunner {
  double gpu_util = 0;     // solo GPU utilization, fraction 0..1 (not %)
  double mem_util = 0;     // solo memory-controller utilization, 0..1
  double gpu_mem_mib = 0;  // solo GPU memory used, MiB (>= 0)
  // MPS only: the client's own active-thread limit as a fraction (0, 1]
  // (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE / 100); 0 = not set. It can only
  // lower the daemon's default, never raise it.
  double mps_thread_fraction = 0;
};

struct SharingConfig {
  GpuSharing mode = GpuSharing::kTimeSlice;
  // MPS: most clients per GPU; more make context creation fail
  // (cudaErrorMpsMaxClientsReached). 48 on Volta and later (domain.md §2.2;
  // newer CUDA is quoted at 60, unverified).
  int mps_max_clients = 48;
  // MPS: the control daemon's default active-thread fraction (0, 1].
  double mps_default_thread_fraction = 1.0;
};

// Defaults are the fit on the Lucid pairs (fit part of the default split;
// docs/sharing.md). All must be finite and >= 0.
struct InterferenceParams {
  double alpha = 0.0944;  // collision: u_i x sum of others' u
  double beta = 0.3030;   // memory traffic: u_i x sum of others' m
  double gamma = 0.3031;  // oversubscription: max(0, sum u - 1)
  // MPS: scale of the alpha/gamma terms relative to time-slicing. Not
  // identified by the data (measured pairs are not MPS); 1 = no assumed gain.
  double mps_compute_scale = 1.0;
};

// Checks inputs and parameters: utilizations in [0, 1], memory >= 0 and
// finite, thread fractions in [0, 1] (client) / (0, 1] (daemon), params
// finite and >= 0, and under MPS at most mps_max_clients co-runners. Errors
// name the co-runner (0-based index) and the field.
Status ValidateCoRun(std::span<const CoRunner> runners, const SharingConfig& sharing,
                     const InterferenceParams& params);

// Writes each co-runner's predicted speed (relative to solo, in (0, 1]) to
// speeds[i]. Precondition: speeds.size() == runners.size() (else an error).
// Errors: those of ValidateCoRun; nothing is written then. An empty set is
// OK and writes nothing.
Status PredictCoRunSpeeds(std::span<const CoRunner> runners, const SharingConfig& sharing,
                          const InterferenceParams& params, std::span<double> speeds);
// Convenience form that allocates the result.
Result<std::vector<double>> PredictCoRunSpeeds(std::span<const CoRunner> runners,
                                               const SharingConfig& sharing,
                                               const InterferenceParams& params = {});

// GPU memory as a hard limit.
struct GpuMemoryCheck {
  enum class Verdict { kFits, kGpuExceeded, kClientLimitExceeded, kInvalid };
  Verdict verdict = Verdict::kFits;
  bool fits() const { return verdict == Verdict::kFits; }
  // The co-runner at fault: the first (in the given order) whose memory
  // takes the running total above the GPU's memory, or the first above the
  // per-client limit, or the first with a negative / non-finite value; -1
  // when it fits.
  int index = -1;
  double used_mib = 0;  // sum of the co-runners' memory (valid values only)
};

// Co-runners fit when the sum of gpu_mem_mib is at most gpu_memory_mib and,
// with client_limit_mib > 0 (e.g. the k8s MPS device plugin's equal share,
// memory / replicas), none is above client_limit_mib. A per-client excess is
// reported before a total one. gpu_memory_mib <= 0 or non-finite: kInvalid
// with index -1.
GpuMemoryCheck CheckCoRunMemory(std::span<const CoRunner> runners, double gpu_memory_mib,
                                double client_limit_mib = 0);

}  // namespace utilsim
