// Private: the report's charts as Vega-Lite specifications with their data
// inlined (dataset "main"), built from the runs. Deterministic.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "utilsim/analysis/report.h"
#include "utilsim/engine/metrics.h"

namespace utilsim::report {

struct Chart {
  std::string id;       // unique, [a-z0-9-]; the page's container is "chart-<id>"
  std::string section;  // alloc, wait, jct, slowdown, idle, energy, stranded, frag
  std::string title;
  std::string note;     // shown under the chart when not empty (e.g. "no samples")
  size_t rows = 0;      // rows of dataset "main"
  nlohmann::json spec;  // Vega-Lite, without $schema (the page embeds with mode vega-lite)
};

struct ChartSet {
  std::vector<Chart> charts;
  // One line per run: how its samples and distributions were reduced.
  std::vector<std::string> sampling;
  // True when the per-run time series were not drawn (more runs than
  // ReportOptions::max_series_runs): no alloc-busy-*, stranded or
  // fragmentation-chart.
  bool series_skipped = false;
};

// The i-th colour of the report's palette (Tableau 10, cycling).
const char* PaletteColor(size_t i);

// The common top of a chart's spec: container width, `height`, and `rows`
// as dataset "main".
nlohmann::json ChartBase(nlohmann::json rows, int height);

// Writes a chart's block of the page: its title, its note, and its container
// "chart-<id>" (report_html.cc).
void ChartBlock(std::ostream& os, const Chart& c);

// Display names of the runs: the label, "run N" when empty, "label (run N)"
// when another run has the same label, so every name is unique.
std::vector<std::string> RunNames(const std::vector<RunResult>& runs);

// Charts, in page order: alloc-busy-<run> for each run (run = 1-based run
// position), then queue-wait, jct, slowdown, wait-causes, idle-causes,
// energy, power, stranded, and
// fragmentation-chart when some run sampled fragmentation. With more runs
// than opt.max_series_runs (when not 0), no alloc-busy-*, stranded or
// fragmentation-chart (series_skipped), and the CDFs have no legend.
ChartSet BuildCharts(const std::vector<RunResult>& runs, const ReportOptions& opt);

}  // namespace utilsim::report
