// Private: the report's charts as Vega-Lite specifications with their data
// inlined (dataset "main"), built from the runs. Deterministic.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "utilsim/analysis/report.h"
#include "utilsim/engine/metrics.h"

namespace utilsim::report {

struct Chart {
  std::string id;       // unique, [a-z0-9-]; the page's container is "chart-<id>"
  std::string section;  // alloc, wait, jct, slowdown, idle, stranded, frag
  std::string title;
  std::string note;     // shown under the chart when not empty (e.g. "no samples")
  size_t rows = 0;      // rows of dataset "main"
  nlohmann::json spec;  // Vega-Lite, without $schema (the page embeds with mode vega-lite)
};

struct ChartSet {
  std::vector<Chart> charts;
  // One line per run: how its samples and distributions were reduced.
  std::vector<std::string> sampling;
};

// Display names of the runs: the label, "run N" when empty, "label (run N)"
// when another run has the same label, so every name is unique.
std::vector<std::string> RunNames(const std::vector<RunResult>& runs);

// Charts, in page order: alloc-busy-<run> for each run (run = 1-based run
// position), then queue-wait, jct, slowdown, idle-causes, stranded, and
// fragmentation-chart when some run sampled fragmentation.
ChartSet BuildCharts(const std::vector<RunResult>& runs, const ReportOptions& opt);

}  // namespace utilsim::report
