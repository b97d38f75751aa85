#include "utilsim/engine/metrics.h"

#include <cstring>

namespace utilsim {

const char* JobOutcomeName(JobOutcome o) {
  switch (o) {
    case JobOutcome::kFinished:
      return "finished";
    case JobOutcome::kRejected:
      return "rejected";
    case JobOutcome::kUnfinished:
      return "unfinished";
    case JobOutcome::kKilled:
      return "killed";
  }
  return "?";
}

const char* IdleCauseName(IdleCause c) {
  switch (c) {
    case IdleCause::kUnattributed:
      return "unattributed";
    case IdleCause::kInput:
      return "input";
    case IdleCause::kCommunication:
      return "communication";
    case IdleCause::kFixed:
      return "fixed";
    case IdleCause::kSharing:
      return "sharing";
    case IdleCause::kStorage:
      return "storage";
    case IdleCause::kCount:
      break;
  }
  return "?";
}

namespace {
bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
// NaN equal to NaN, whatever its bits.
bool SameValue(double a, double b) { return (a != a && b != b) || SameBits(a, b); }
}  // namespace

bool SameState(const Sample& a, const Sample& b) {
  for (size_t c = 0; c < a.gpus_idle.size(); ++c)
    if (!SameValue(a.gpus_idle[c], b.gpus_idle[c])) return false;
  return SameValue(a.gpus_allocated, b.gpus_allocated) && SameValue(a.gpus_busy, b.gpus_busy) &&
         a.queued == b.queued && a.running == b.running &&
         SameValue(a.cpu_allocated_frac, b.cpu_allocated_frac) &&
         SameValue(a.mem_allocated_frac, b.mem_allocated_frac) &&
         a.gpus_free_whole == b.gpus_free_whole && a.gpus_stranded == b.gpus_stranded &&
         SameValue(a.frag_gpu_milli, b.frag_gpu_milli) && SameValue(a.power_w, b.power_w) &&
         a.gpus_down == b.gpus_down;
}

bool SamplesFromChanges(const std::vector<Sample>& changes, Micros start, Micros interval,
                        int64_t count, std::vector<Sample>* out) {
  out->clear();
  if (count <= 0) return true;
  if (interval.us <= 0) return false;
  for (size_t i = 1; i < changes.size(); ++i)
    if (changes[i].time < changes[i - 1].time) return false;
  out->reserve(static_cast<size_t>(count));
  size_t next = 0;  // the first point after the current tick
  for (int64_t k = 0; k < count; ++k) {
    const Micros t{start.us + k * interval.us};
    while (next < changes.size() && changes[next].time <= t) ++next;
    if (next == 0) {
      out->clear();
      return false;
    }
    out->push_back(changes[next - 1]);
    out->back().time = t;
  }
  return true;
}

}  // namespace utilsim
