// Which free GPUs are stranded: whole-free GPUs on a node whose free CPU or
// memory can no longer host any GPU task the workload asks for.
//
// "Stranded" is judged against the workload's own task shapes (GPU count,
// CPU, memory per task), so a reservation does not drive it to zero by
// construction: a node keeping 2 cores per free GPU still strands its GPUs
// if every GPU task of the workload asks for 4 cores per task.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "utilsim/engine/job.h"

namespace utilsim {

class StrandingTest {
 public:
  StrandingTest() = default;
  // From every task of `w` with at least one GPU (fractional tasks count as
  // needing one whole GPU). O(J log J).
  explicit StrandingTest(const Workload& w);

  // True when some GPU task of the workload needing at most `whole_free`
  // GPUs fits in `free_cpu` milli-cores and `free_mem` bytes. O(log S).
  bool Hosts(int32_t whole_free, int64_t free_cpu, int64_t free_mem) const {
    if (whole_free <= 0 || frontier_.empty()) return false;
    const size_t g = std::min(static_cast<size_t>(whole_free), frontier_.size() - 1);
    const std::vector<Point>& f = frontier_[g];
    if (f.empty()) return false;
    // Most nodes have CPU to spare: the point of most CPU has the least memory.
    if (free_cpu >= f.back().cpu) return free_mem >= f.back().mem;
    return HostsSlow(f, free_cpu, free_mem);
  }
  // True when the workload has no GPU task (then no GPU counts as stranded).
  bool empty() const { return frontier_.empty(); }

 private:
  // frontier_[w]: the Pareto frontier of (CPU, memory) over the task shapes
  // needing 1..w GPUs, CPU ascending and memory strictly descending.
  struct Point {
    int64_t cpu, mem;
  };
  static bool HostsSlow(const std::vector<Point>& f, int64_t free_cpu, int64_t free_mem);
  std::vector<std::vector<Point>> frontier_;
};

}  // namespace utilsim
