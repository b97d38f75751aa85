// Private: how the engine writes a number into a message, as printf's %g
// ("0.5", "250", "1e+06"): shared so that every error shows numbers alike.
#pragma once

#include <cstdio>
#include <string>

namespace utilsim::internal {

inline std::string FormatG(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace utilsim::internal
