// The benchmark's reference (issue 18): the least a FIFO + best-fit
// simulator must do, written as a bare loop, so that bench_core can print
// utilsim's simulate time as a ratio to it in the same run (immune to how
// fast the machine is that day).
//
// What it does, and no more: jobs arrive in submit order into a FIFO queue
// whose head blocks; at each instant finishes are processed first, then
// arrivals, then the queue is scheduled from its head while the head fits.
// A job's tasks are placed one at a time (all or nothing) on the node with
// the fewest whole-free GPUs that still fit the task, CPU and memory
// checked, found through per-count buckets of nodes (swap-remove vectors);
// a job runs for its recorded runtime (rate 1, no communication slowdown).
// No metrics, no samples, no results. Whole GPUs only (a fractional task
// takes one GPU). Single node group (uniform nodes), as the bench cluster.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"

namespace utilsim::bench {

struct ReferenceResult {
  int64_t started = 0;  // jobs started
  int64_t end_us = 0;   // time of the last finish
  int64_t events = 0;   // arrivals + finishes
};

class ReferenceLoop {
 public:
  explicit ReferenceLoop(const ClusterSpec& c) {
    for (const NodeGroup& g : c.groups)
      for (int32_t i = 0; i < g.count; ++i) {
        free_gpus_.push_back(g.gpus);
        free_cpu_.push_back(g.cpu_milli);
        free_mem_.push_back(g.mem_bytes);
        max_gpus_ = std::max(max_gpus_, g.gpus);
      }
    bucket_.assign(static_cast<size_t>(max_gpus_) + 1, {});
    pos_.assign(free_gpus_.size(), 0);
    for (size_t n = 0; n < free_gpus_.size(); ++n) Insert(n);
  }

  ReferenceResult Run(const Workload& w) {
    ReferenceResult r;
    using Finish = std::pair<int64_t, size_t>;  // (time, job)
    std::priority_queue<Finish, std::vector<Finish>, std::greater<>> running;
    std::vector<std::vector<uint32_t>> where(w.jobs.size());  // nodes of a running job's tasks
    std::vector<size_t> queue;
    size_t head = 0, next = 0;
    while (next < w.jobs.size() || !running.empty()) {
      const int64_t t_arrive = next < w.jobs.size() ? w.jobs[next].submit.us : INT64_MAX;
      const int64_t t_finish = running.empty() ? INT64_MAX : running.top().first;
      const int64_t now = std::min(t_arrive, t_finish);
      while (!running.empty() && running.top().first == now) {
        const size_t j = running.top().second;
        running.pop();
        const TaskDemand& d = w.jobs[j].task;
        for (uint32_t n : where[j]) Give(n, Gpus(d), d.cpu_milli, d.mem_bytes);
        where[j].clear();
        r.end_us = now;
        ++r.events;
      }
      while (next < w.jobs.size() && w.jobs[next].submit.us == now) {
        queue.push_back(next++);
        ++r.events;
      }
      while (head < queue.size()) {
        const size_t j = queue[head];
        const Job& job = w.jobs[j];
        if (!Place(job, &where[j])) break;
        running.push({now + std::max<int64_t>(job.runtime.us, 1), j});
        ++r.started;
        ++head;
      }
      if (head > 4096 && head * 2 > queue.size()) {  // drop the started prefix
        queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(head));
        head = 0;
      }
    }
    return r;
  }

 private:
  static int32_t Gpus(const TaskDemand& d) { return d.gpus; }

  bool Place(const Job& job, std::vector<uint32_t>* nodes) {
    const TaskDemand& d = job.task;
    const int32_t g = Gpus(d);
    for (int32_t t = 0; t < job.tasks; ++t) {
      const int64_t n = BestFit(g, d.cpu_milli, d.mem_bytes);
      if (n < 0) {  // undo
        for (uint32_t m : *nodes) Give(m, g, d.cpu_milli, d.mem_bytes);
        nodes->clear();
        return false;
      }
      Take(static_cast<size_t>(n), g, d.cpu_milli, d.mem_bytes);
      nodes->push_back(static_cast<uint32_t>(n));
    }
    return true;
  }

  int64_t BestFit(int32_t g, int64_t cpu, int64_t mem) const {
    for (int32_t k = g; k <= max_gpus_; ++k)
      for (size_t n : bucket_[static_cast<size_t>(k)])
        if (free_cpu_[n] >= cpu && free_mem_[n] >= mem) return static_cast<int64_t>(n);
    return -1;
  }

  void Take(size_t n, int32_t g, int64_t cpu, int64_t mem) {
    Remove(n);
    free_gpus_[n] -= g;
    free_cpu_[n] -= cpu;
    free_mem_[n] -= mem;
    Insert(n);
  }
  void Give(size_t n, int32_t g, int64_t cpu, int64_t mem) { Take(n, -g, -cpu, -mem); }

  void Insert(size_t n) {
    auto& b = bucket_[static_cast<size_t>(free_gpus_[n])];
    pos_[n] = b.size();
    b.push_back(n);
  }
  void Remove(size_t n) {
    auto& b = bucket_[static_cast<size_t>(free_gpus_[n])];
    const size_t last = b.back();
    b[pos_[n]] = last;
    pos_[last] = pos_[n];
    b.pop_back();
  }

  std::vector<int32_t> free_gpus_;
  std::vector<int64_t> free_cpu_, free_mem_;
  std::vector<std::vector<size_t>> bucket_;  // nodes by free whole GPUs
  std::vector<size_t> pos_;                  // a node's place in its bucket
  int32_t max_gpus_ = 0;
};

}  // namespace utilsim::bench
