// Links utilsim::policies from a parent project (tests/install/subproject).
// C++20 comes from the utilsim target; this project sets no standard.
#include <cstdio>

#include "utilsim/policies/registry.h"

int main() {
  const bool ok = utilsim::BuiltinPolicies().Make("best-fit").ok();
  std::printf("best-fit: %s\n", ok ? "ok" : "missing");
  return ok ? 0 : 1;
}
