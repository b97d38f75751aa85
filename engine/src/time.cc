#include "utilsim/engine/time.h"

#include <cmath>

#include "utilsim/engine/units.h"

namespace utilsim {

std::optional<Micros> FromSeconds(double s) {
  if (!std::isfinite(s) || std::fabs(s) > kMaxSeconds) return std::nullopt;
  return Micros(std::llround(s * kMicrosPerSecond));
}

}  // namespace utilsim
