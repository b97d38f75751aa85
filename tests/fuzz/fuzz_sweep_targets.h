// Fuzz target of the sweep file (tools/sweep, docs/sweeps.md): the YAML
// reader and, for specs of at most 10,000 runs, the expansion with its
// Morris design. Any input may be refused; none may crash or hang.
#pragma once

#include <map>
#include <string>

#include "fuzz_live_targets.h"
#include "utilsim/sweep/sweep_spec.h"

namespace utilsim::fuzz {

inline void AddSweepTargets(std::map<std::string, Target>* t) {
  (*t)["sweep-file"] = {".yaml", [](const std::string& p) {
                          auto spec = sweep::ParseSweepSpec(Slurp(p), p);
                          if (!spec.ok()) return;
                          double runs = 1;
                          for (const sweep::Axis& a : spec.value().axes)
                            runs *= static_cast<double>(a.settings.size());
                          if (spec.value().morris)
                            runs *= static_cast<double>(spec.value().morris->trajectories) *
                                    static_cast<double>(spec.value().morris->factors.size() + 1);
                          if (runs > 10000) return;
                          sweep::MorrisDesign design;
                          auto expanded = sweep::ExpandSweep(spec.value(), &design);
                          if (!expanded.ok()) return;
                          for (const auto& r : expanded.value())
                            (void)sweep::CanonicalOptions(r.options);
                        }};
}

}  // namespace utilsim::fuzz
