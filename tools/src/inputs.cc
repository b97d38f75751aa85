#include "utilsim/tools/inputs.h"

#include <filesystem>

#include "utilsim/traces/canonical.h"
#include "utilsim/workloads/synthetic.h"

namespace utilsim::tools {

std::vector<std::pair<std::string, std::string>> TraceFormats() {
  return {
      {"builtin", "builtin:demo or builtin:bench, the seeded synthetic workload (no file)"},
      {"canonical", "utilsim jobs CSV (docs/trace-format.md); needs --cluster"},
  };
}

namespace {

std::string InferFormat(const std::string& trace) {
  if (trace.rfind("builtin:", 0) == 0) return "builtin";
  return "canonical";
}

}  // namespace

Result<Inputs> LoadInputs(const InputOptions& opt) {
  Inputs in;
  in.format = opt.format.empty() ? InferFormat(opt.trace) : opt.format;
  if (in.format == "builtin") {
    SyntheticParams p;
    if (opt.trace == "builtin:demo" || opt.trace == "builtin") {
      p = DemoParams();
    } else if (opt.trace == "builtin:bench") {
      p = BenchParams();
    } else {
      return Status::Error("--trace: unknown built-in workload '" + opt.trace +
                           "' (expected builtin:demo or builtin:bench)");
    }
    if (opt.jobs >= 0) p.jobs = opt.jobs;
    if (Status s = ValidateSyntheticParams(p); !s.ok()) return Status::Error("--jobs: " + s.message());
    in.workload = GenerateSynthetic(p, opt.seed);
    in.cluster = SyntheticCluster(p);
  } else if (in.format == "canonical") {
    if (opt.cluster.empty())
      return Status::Error("--cluster: required with --format canonical (a YAML cluster spec)");
    if (!std::filesystem::exists(opt.trace))
      return Status::Error("--trace: " + opt.trace + ": no such file");
    auto w = traces::ReadJobsCsv(opt.trace);
    if (!w.ok()) return w.status();
    in.workload = std::move(w).value();
  } else {
    std::string known;
    for (const auto& [name, desc] : TraceFormats()) known += (known.empty() ? "" : ", ") + name;
    return Status::Error("--format: unknown trace format '" + in.format + "' (known: " + known +
                         ")");
  }
  if (!opt.cluster.empty()) {
    auto c = traces::ReadClusterYaml(opt.cluster);
    if (!c.ok()) return c.status();
    in.cluster = std::move(c).value();
  }
  in.digest = traces::DigestWorkload(in.workload) + "-" + traces::DigestCluster(in.cluster);
  return in;
}

}  // namespace utilsim::tools
