// The stall-decomposed progress model (design §4, issue 5; docs/model.md).
//
// A job's recorded runtime R splits into fractions: busy u (Job::util),
// input from CPU preprocessing i_c and from storage i_s, communication c
// (Job::stalls; unknown parts: i = 0, c = comm_fraction for jobs with more
// than one GPU) and fixed f = 1 - u - i_c - i_s - c. Each part scales with
// what the job gets now relative to its recording:
//   s_gpu = 1 / speed                       (slowest GPU of the placement)
//   s_cpu = cpu_recorded / cpu_granted      (per task; recorded = its request)
//   s_sto = demand / max-min fair share of the node's storage bandwidth
//   s_net = bw_recorded / bw_now (topology, CommSlowdown)
//           x demand / max-min fair share of the node NIC (multi-node jobs)
// (the sharing factors take the worst node of the placement; a job with no
// bandwidth demand, or a node with unlimited bandwidth, scales by 1).
// Composition (time per unit of recorded time; rate = 1 / T):
//   serial:     T = f + u s_gpu + i_c s_cpu + i_s s_sto + c s_net
//   overlapped: T = f + c s_net + max(u s_gpu, I)   (input pipelined with compute)
//     I = (u + i_c + i_s) (i_c s_cpu + i_s s_sto) / (i_c + i_s)   if i_c + i_s > 0
//     I = u h s_cpu, h = measured CPU used / CPU requested          otherwise
//       (h = 0 when unmeasured: an input stage that never binds)
// With nothing changed every s is 1 and T = 1: a job placed as recorded runs
// exactly R (identity invariant). Busy work is conserved: the GPU-busy
// seconds are u R whatever T is.
#pragma once

#include <string>

#include "utilsim/engine/progress.h"

namespace utilsim {

enum class Composition { kSerial, kOverlapped };

// The resolved parts of a job's recorded runtime (fractions, sum 1).
struct StallParts {
  double busy = 0, input_cpu = 0, input_storage = 0, comm = 0, fixed = 0;
};
// Parts of `job` with unknowns resolved (comm_fraction for jobs of more than
// one GPU); parts that would overflow 1 are cut, comm first, then storage,
// then CPU input.
StallParts ResolveParts(const Job& job, double comm_fraction);

// Max-min fair share of `capacity` for a demand of `mine` among `demands`
// (which include mine): water-filling. Equals min(mine, FairLevel(demands,
// capacity)).
double MaxMinShare(double mine, const std::vector<double>& demands, double capacity);
// The water level of max-min fair sharing: each demand d gets min(d, level);
// +infinity when the demands fit. Sorts `demands`.
double FairLevel(std::vector<double>& demands, double capacity);

class StallProgress final : public ProgressModel {
 public:
  StallProgress(Composition composition, double comm_fraction)
      : composition_(composition), comm_fraction_(comm_fraction) {}
  // "stall-serial comm=0.1" or "stall-overlapped comm=0.1".
  std::string name() const override;
  // Without co-runners: no NIC or storage sharing, CPU as requested.
  double Rate(const Job& job, const Placement& p, const ClusterState& cluster) const override;
  Progress Evaluate(JobIndex j, const RunView& v) const override;
  // Shares each node's fair levels across the batch.
  void EvaluateMany(const std::vector<JobIndex>& jobs, const RunView& v,
                    std::vector<Progress>* out) const override;
  bool interacts() const override { return true; }
  // Only when some job drives NIC bandwidth across nodes or storage
  // bandwidth on a cluster whose nodes limit it: otherwise nothing is shared
  // and no job's rate depends on another's.
  bool Interacts(const Workload& w, const ClusterState& c) const override;

 private:
  struct Scales {
    double gpu = 1, cpu = 1, storage = 1, net = 1;
  };
  Progress Compose(const Job& job, const Scales& s) const;
  // Fair levels of nodes' NIC / storage bandwidth, computed once per
  // evaluation batch (the co-runners of one start or finish share nodes).
  struct LevelCache {
    struct Entry {
      NodeIndex node;
      bool nic;
      double level;
    };
    std::vector<Entry> entries;
    std::vector<double> demands;  // scratch
  };
  static LevelCache& Scratch();
  Progress EvaluateWith(JobIndex j, const RunView& v, LevelCache& cache) const;

  Composition composition_;
  double comm_fraction_;
};

}  // namespace utilsim
