#include "event_queue.h"

#include <algorithm>

namespace utilsim {

const char* PhaseName(Phase p) {
  switch (p) {
    case Phase::kClusterChange:
      return "cluster";
    case Phase::kFinish:
      return "finish";
    case Phase::kArrival:
      return "arrival";
    case Phase::kPass:
      return "pass";
    case Phase::kSample:
      return "sample";
  }
  return "?";
}

bool RunsBefore(const Event& a, const Event& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.phase != b.phase) return a.phase < b.phase;
  return a.seq < b.seq;
}

namespace {
// std heap functions build a max-heap; invert the order.
bool HeapLess(const Event& a, const Event& b) { return RunsBefore(b, a); }
}  // namespace

void EventQueue::Push(Event e) {
  e.seq = next_seq_++;
  heap_.push_back(e);
  std::push_heap(heap_.begin(), heap_.end(), HeapLess);
}

Event EventQueue::Pop() {
  std::pop_heap(heap_.begin(), heap_.end(), HeapLess);
  Event e = heap_.back();
  heap_.pop_back();
  return e;
}

}  // namespace utilsim
