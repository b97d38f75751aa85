// Priority queue of simulation events under a total order:
// (time, phase, sequence number). Sequence numbers are assigned at push time,
// so events of equal time and phase run in the order they were scheduled.
#pragma once

#include <cstdint>
#include <vector>

#include "utilsim/engine/time.h"

namespace utilsim {

// Phases within one instant (design §3): cluster changes, then job finishes,
// then arrivals, then one scheduling pass, then sampling.
enum class Phase : uint8_t {
  kClusterChange = 0,
  kFinish = 1,
  kArrival = 2,
  kPass = 3,
  kSample = 4,
};
const char* PhaseName(Phase p);

struct Event {
  Micros time;
  Phase phase = Phase::kPass;
  uint64_t seq = 0;
  uint32_t job = 0;  // job index for finish/arrival events
};

class EventQueue {
 public:
  // Adds e (its seq is overwritten with the next sequence number).
  void Push(Event e);
  // Precondition: !empty().
  Event Pop();
  const Event& Top() const { return heap_.front(); }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }

 private:
  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
};

// Strict-weak order used by the queue: true when a runs before b.
bool RunsBefore(const Event& a, const Event& b);

}  // namespace utilsim
