#include "utilsim/engine/metrics.h"

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

}  // namespace utilsim
