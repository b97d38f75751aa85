#include "utilsim/engine/time.h"

#include <cmath>

namespace utilsim {

std::optional<Micros> FromSeconds(double s) {
  if (!std::isfinite(s) || std::fabs(s) > kMaxSeconds) return std::nullopt;
  return Micros(std::llround(s * 1e6));
}

}  // namespace utilsim
