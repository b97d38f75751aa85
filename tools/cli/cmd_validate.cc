// `utilsim validate`: replays a trace that recorded its schedule under a
// policy approximating the recorded scheduler, at one or several cluster
// sizes, and compares simulated with recorded waits.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "utilsim/analysis/runner.h"
#include "utilsim/analysis/trace_evidence.h"
#include "utilsim/analysis/validate.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/engine/time.h"
#include "utilsim/io/output_path.h"
#include "utilsim/results/result_store.h"
#include "utilsim/traces/cluster_events_yaml.h"
#include "utilsim/traces/text_writer.h"

namespace utilsim::cli {

Status ValidateCommand(InputOptions input, const RunSpec& settings, const std::string& policy,
                       const std::vector<int>& nodes_list, double outage_gap_h, bool infer,
                       double infer_window_h, const std::string& events_out, const std::string& out,
                       const CommandGuards& guards) {
  // Checked before the runs; WriteResults checks again before its rename.
  const OutputGuard guard{"--out", InputPaths(input), false, "a SQLite results database"};
  if (Status s = CheckOutput(out, guard); !s.ok()) return s;
  const OutputGuard events_guard{"--events-out", InputPaths(input), false, "an events file"};
  if (!events_out.empty()) {  // with --infer and one size (RunMain checked)
    if (Status s = CheckOutput(events_out, events_guard); !s.ok()) return s;
    if (Status s = CheckDistinctOutputs({{"--out", out}, {"--events-out", events_out}}); !s.ok())
      return s;
  }
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
  auto bar = ProgressBar::ForStderr("validate", guards.progress);
  RunSpec spec = settings;
  spec.progress = bar ? bar->board() : nullptr;
  ValidateInference inference;
  inference.window = Micros(std::llround(infer_window_h * 3600 * kMicrosPerSecond));
  inference.outage_gap = Micros(std::llround(outage_gap_h * 3600 * kMicrosPerSecond));
  auto v = ValidateAtSizes(base, BuiltinPolicies(), policy, nodes_list, spec,
                           infer ? &inference : nullptr);
  bar.reset();
  if (!v.ok()) return v.status();
  const SizedValidation& val = v.value();
  const std::vector<RunResult>& runs = val.runs;
  std::cout << "utilsim validate: " << policy << " against the recorded schedule of "
            << base.workload.source << " (" << val.with_start << " jobs with a recorded start)\n";
  if (infer) std::cout << "replaying the evidence (--infer): " << val.inferred << "\n";
  std::cout << "\n" << FormatFidelity(val.labels, val.fidelity);
  if (val.fidelity.size() > 1) std::cout << "\nlowest wait MAE: " << val.labels[val.best] << "\n";
  // Evidence the replay does not model yet (docs/validation.md).
  const std::vector<StartGap> gaps =
      FindStartGaps(base.workload, Micros(std::llround(outage_gap_h * 3600 * kMicrosPerSecond)));
  char head[160];
  std::snprintf(head, sizeof head,
                "\nRecorded gaps of >= %g h with no job start while jobs waited (possible "
                "outages): %zu%s\n",
                outage_gap_h, gaps.size(), gaps.size() > 5 ? ", the 5 longest:" : "");
  std::cout << head;
  std::cout << FormatStartGaps(gaps, 5);
  std::cout << "Recorded peak GPUs in use per week (a lower bound on the capacity in service):";
  for (int64_t g : PeakGpusInUse(base.workload, Seconds(7 * 86400))) std::cout << " " << g;
  std::cout << "\n";
  if (!events_out.empty() && !val.events.empty()) {
    const NodeGroup& g = base.cluster.groups[0];
    char header[400];
    std::snprintf(header, sizeof header,
                  "utilsim validate --infer: the record's evidence as cluster events "
                  "(docs/validation.md)\ntrace: %s\nfor node group '%s' grown from %lld to %lld "
                  "nodes of %d GPUs: run with --nodes %lld (or count: %lld in the cluster YAML)\n"
                  "and the scheduling cycle --pass-interval %.6g",
                  base.workload.source.c_str(), g.name.c_str(),
                  static_cast<long long>(nodes_list.empty() ? g.count : nodes_list[0]),
                  static_cast<long long>(val.total_nodes[0]), g.gpus,
                  static_cast<long long>(val.total_nodes[0]),
                  static_cast<long long>(val.total_nodes[0]), val.pass_interval.seconds());
    if (Status s =
            traces::WriteFileAtomically(events_out, ClusterEventsYaml(val.events[0], header));
        !s.ok())
      return s;
    std::cout << "Inferred events written to " << events_out << "\n";
  }
  if (!out.empty()) {
    if (Status s = WriteResults(runs, out, guard); !s.ok()) return s;
    std::cout << "Results written to " << out << "\n";
  }
  return Status::Ok();
}

}  // namespace utilsim::cli
