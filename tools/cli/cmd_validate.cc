// `utilsim validate`: replays a trace that recorded its schedule under a
// policy approximating the recorded scheduler, at one or several cluster
// sizes, and compares simulated with recorded waits.
#include <algorithm>
#include <iostream>

#include "commands.h"
#include "utilsim/analysis/runner.h"
#include "utilsim/analysis/validate.h"
#include "utilsim/engine/parallel.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/io/output_path.h"
#include "utilsim/results/result_store.h"

namespace utilsim::cli {

Status ValidateCommand(InputOptions input, const RunSpec& settings, const std::string& policy,
                       const std::vector<int>& nodes_list, const std::string& out,
                       const CommandGuards& guards) {
  // Checked before the runs; WriteResults checks again before its rename.
  const OutputGuard guard{"--out", InputPaths(input), false, "a SQLite results database"};
  if (Status s = CheckOutput(out, guard); !s.ok()) return s;
  const int64_t sizes_n = std::max<int64_t>(1, static_cast<int64_t>(nodes_list.size()));
  const std::string runs_label = std::to_string(sizes_n) + (sizes_n == 1 ? " size" : " sizes");
  input.before_generate = GuardBeforeGenerate(guards.memory, sizes_n, runs_label);
  auto in = LoadInputs(input);
  if (!in.ok()) return in.status();
  const Inputs& base = in.value();
  MemoryDemand demand = DemandOfRuns(base, settings, sizes_n, runs_label);
  demand.workload_copies = sizes_n + 1;
  for (int n : nodes_list) demand.nodes = std::max<int64_t>(demand.nodes, n);
  if (Status s = CheckMemory(demand, guards.memory); !s.ok()) return s;
  int64_t with_start = 0;
  for (const auto& j : base.workload.jobs) with_start += j.recorded_start.has_value();
  if (with_start == 0)
    return Status::Error("--trace: " + input.trace +
                         ": no job has a recorded start to compare with");
  std::vector<int> sizes = nodes_list;
  if (!sizes.empty() && base.cluster.groups.size() != 1)
    return Status::Error("--nodes-list: the cluster has " +
                         std::to_string(base.cluster.groups.size()) +
                         " node groups; sizes can only be varied for a single group");
  if (sizes.empty()) sizes.push_back(-1);  // the cluster as loaded
  PolicyRegistry reg = BuiltinPolicies();
  std::vector<Result<std::vector<RunResult>>> results(sizes.size(), Status::Error("not run"));
  std::vector<Inputs> variants(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    variants[i].workload = base.workload;  // copies: runs are independent
    variants[i].cluster = base.cluster;
    variants[i].digest = base.digest;
    variants[i].notes = base.notes;
    if (sizes[i] > 0) variants[i].cluster.groups[0].count = sizes[i];
  }
  RunSpec one = settings;
  one.threads = 1;
  auto bar = ProgressBar::ForStderr("validate", guards.progress);
  one.progress = bar ? bar->board() : nullptr;
  // One thread per cluster size, each running its size single-threaded.
  ParallelFor(sizes.size(), sizes.size(),
              [&](size_t i) { results[i] = RunPolicies(variants[i], reg, {policy}, one); });
  bar.reset();
  std::vector<std::string> labels;
  std::vector<WaitFidelity> fid;
  std::vector<RunResult> runs;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!results[i].ok()) return results[i].status();
    RunResult r = std::move(results[i]).value().front();
    labels.push_back(std::to_string(variants[i].cluster.total_nodes()) + " nodes");
    r.meta.label = policy + " @ " + labels.back();
    fid.push_back(CompareWaits(variants[i].workload, r));
    runs.push_back(std::move(r));
  }
  std::cout << "utilsim validate: " << policy << " against the recorded schedule of "
            << base.workload.source << " (" << with_start << " jobs with a recorded start)\n\n"
            << FormatFidelity(labels, fid);
  size_t best = 0;
  for (size_t i = 1; i < fid.size(); ++i)
    if (fid[i].mae_s < fid[best].mae_s) best = i;
  if (fid.size() > 1) std::cout << "\nlowest wait MAE: " << labels[best] << "\n";
  if (!out.empty()) {
    if (Status s = WriteResults(runs, out, guard); !s.ok()) return s;
    std::cout << "Results written to " << out << "\n";
  }
  return Status::Ok();
}

}  // namespace utilsim::cli
