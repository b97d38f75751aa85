// Indexed min-heap of running jobs' finish times (private to the engine).
//
// One entry per running job, keyed by (finish time, sequence number); a new
// key for a job moves its entry in place (O(log n)), so a job whose rate
// changes leaves no stale event behind. Entries are found by the job's slot
// in the engine's pool of live jobs (a small, reused index: the position
// table stays as small as the jobs in the system and warm in cache, where
// one indexed by job would be scattered over the whole workload's range).
// Sequence numbers come from a counter bumped on every Set, so jobs finishing
// at the same instant run in the order their finish times were last set —
// the order the engine's former one-event-per-rate-change scheme gave,
// without the stale events.
#pragma once

#include <cstdint>
#include <vector>

#include "utilsim/engine/time.h"

namespace utilsim {

class FinishHeap {
 public:
  // Empty, sequence numbers from 0.
  void Reset() {
    heap_.clear();
    pos_.clear();
    next_seq_ = 0;
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  // Precondition: !empty().
  Micros top_time() const { return heap_.front().time; }
  uint32_t top_job() const { return heap_.front().job; }

  // Inserts job j, whose slot is `slot`, at `time`, or moves it there if
  // present. A slot holds one job at a time: the entry of a slot's earlier
  // job must have been removed.
  void Set(uint32_t slot, uint32_t j, Micros time) {
    const Entry e{time, next_seq_++, j, slot};
    if (slot >= pos_.size()) pos_.resize(size_t{slot} + 1, kAbsent);
    uint32_t i = pos_[slot];
    if (i == kAbsent) {
      i = static_cast<uint32_t>(heap_.size());
      heap_.push_back(e);
    } else {
      heap_[i] = e;
      i = Down(i);
    }
    Up(i);
  }
  // Removes the entry of slot `slot` if present.
  void Remove(uint32_t slot) {
    if (slot >= pos_.size()) return;
    const uint32_t i = pos_[slot];
    if (i == kAbsent) return;
    pos_[slot] = kAbsent;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    heap_[i] = last;
    pos_[last.slot] = i;
    Up(Down(i));
  }

 private:
  static constexpr uint32_t kAbsent = UINT32_MAX;
  struct Entry {
    Micros time;
    uint64_t seq;
    uint32_t job;
    uint32_t slot;
  };
  static bool Before(const Entry& a, const Entry& b) {
    return a.time != b.time ? a.time < b.time : a.seq < b.seq;
  }
  // Moves the entry at i up while it runs before its parent; returns its
  // final index.
  uint32_t Up(uint32_t i) {
    const Entry e = heap_[i];
    while (i > 0) {
      const uint32_t parent = (i - 1) / 2;
      if (!Before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      pos_[heap_[i].slot] = i;
      i = parent;
    }
    heap_[i] = e;
    pos_[e.slot] = i;
    return i;
  }
  uint32_t Down(uint32_t i) {
    const Entry e = heap_[i];
    const size_t n = heap_.size();
    for (;;) {
      size_t c = 2 * size_t{i} + 1;
      if (c >= n) break;
      if (c + 1 < n && Before(heap_[c + 1], heap_[c])) ++c;
      if (!Before(heap_[c], e)) break;
      heap_[i] = heap_[c];
      pos_[heap_[i].slot] = i;
      i = static_cast<uint32_t>(c);
    }
    heap_[i] = e;
    pos_[e.slot] = i;
    return i;
  }

  std::vector<Entry> heap_;
  std::vector<uint32_t> pos_;
  uint64_t next_seq_ = 0;
};

}  // namespace utilsim
