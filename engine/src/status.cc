#include "utilsim/engine/status.h"

namespace utilsim {

const char* StatusCodeName(StatusCode c) {
  switch (c) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid_argument";
    case StatusCode::kNotFound:
      return "not_found";
    case StatusCode::kIo:
      return "io";
    case StatusCode::kRuntime:
      return "runtime";
    case StatusCode::kInvariant:
      return "invariant";
    case StatusCode::kCancelled:
      return "cancelled";
  }
  return "runtime";
}

}  // namespace utilsim
