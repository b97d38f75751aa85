// Fuzz targets of the analysis layer's own readers: the sweep file
// (tools/sweep, docs/sweeps.md: the YAML reader and, for specs of at most
// 10,000 runs, the expansion with its Morris design) and the FGD
// experiment's CSVs (fgd-experiment --csv curves, the simulator's published
// analysis_*_discrete.csv). Any input may be refused; none may crash or hang.
#pragma once

#include <map>
#include <string>

#include "fuzz_live_targets.h"
#include "utilsim/analysis/fgd_compare.h"
#include "utilsim/analysis/fgd_experiment.h"
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
  (*t)["fgd-curves"] = {".csv", [](const std::string& p) {
                          auto c = ReadFgdCurvesCsv(p);
                          if (c.ok()) (void)FgdCurvesCsv(c.value());
                        }};
  (*t)["fgd-published"] = {".csv", [](const std::string& p) {
                             auto pub = ReadFgdPublished(p, "openb_pod_list_default");
                             if (!pub.ok()) return;
                             std::vector<FgdCurve> one(1);
                             one[0].policy = "fgdsim-fgd";
                             one[0].runs.resize(1);
                             one[0].runs[0].alloc_pct.assign(131, 50.0);
                             one[0].runs[0].frag_pct = one[0].runs[0].frag_ratio_pct =
                                 one[0].runs[0].failed_pct = one[0].runs[0].alloc_pct;
                             FgdFillMeans(one[0]);
                             auto cmp = CompareFgd(one, pub.value());
                             if (cmp.ok()) (void)FormatFgdComparison(cmp.value(), p);
                           }};
}

}  // namespace utilsim::fuzz
