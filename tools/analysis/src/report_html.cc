// BuildReportHtml: assembles the page from the charts (report_charts), the
// tables below and the fixed parts (report_page).
#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <sstream>

#include "report_assets.h"
#include "report_charts.h"
#include "report_data.h"
#include "report_page.h"
#include "report_sweep.h"
#include "utilsim/analysis/report.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace report {

void ChartBlock(std::ostream& os, const Chart& c) {
  os << "<h3>" << HtmlEscape(c.title) << "</h3>\n";
  if (!c.note.empty()) os << "<p class=\"note\">" << HtmlEscape(c.note) << "</p>\n";
  os << "<div class=\"chart\" id=\"chart-" << c.id << "\" data-chart=\"" << c.id
     << "\" data-expected-rows=\"" << c.rows << "\"></div>\n";
}

}  // namespace report

namespace {

using report::Count;
using report::Duration;
using report::Fixed;
using report::HtmlEscape;

std::string Pct(double x) { return Fixed(x, 1) + " %"; }

// The charting libraries to inline: none in a build without the report
// (CheckReportBuilt; report_assets.cc was not generated).
std::span<const report::JsLibrary> Libraries() {
#ifdef UTILSIM_REPORT_MISSING
  return {};
#else
  return report::ChartLibraries();
#endif
}

using report::ChartBlock;

void Charts(std::ostream& os, const report::ChartSet& set, const std::string& section) {
  for (const auto& c : set.charts)
    if (c.section == section) ChartBlock(os, c);
}

void SummaryTable(std::ostream& os, const std::vector<RunResult>& runs,
                  const std::vector<std::string>& names) {
  os << "<table id=\"summary\"><thead><tr><th>policy</th><th>allocated</th><th>effectively "
        "busy</th><th>idle allocated GPU-h</th><th>idle cost</th><th>wait p50</th><th>wait "
        "p95</th><th>queued p95</th><th>JCT p50</th><th>finished / jobs</th></tr></thead><tbody>\n";
  for (size_t r = 0; r < runs.size(); ++r) {
    const Summary& s = runs[r].summary;
    os << "<tr><td>" << HtmlEscape(names[r]) << "</td><td>" << Pct(s.allocation_pct) << "</td><td>"
       << Pct(s.effective_util_pct) << "</td><td>" << Fixed(s.idle_alloc_gpu_h, 1) << "</td><td>"
       << Fixed(s.idle_cost, 2) << "</td><td>" << Duration(s.wait_p50_s) << "</td><td>"
       << Duration(s.wait_p95_s) << "</td><td>" << Duration(s.queued_p95_s) << "</td><td>"
       << Duration(s.jct_p50_s) << "</td><td>" << Count(s.finished) << " / " << Count(s.jobs)
       << "</td></tr>\n";
  }
  os << "</tbody></table>\n";
  for (size_t r = 0; r < runs.size(); ++r) {
    const Summary& s = runs[r].summary;
    const double idle_share = s.alloc_gpu_h > 0 ? 100.0 * s.idle_alloc_gpu_h / s.alloc_gpu_h : NAN;
    os << "<p class=\"headline\"><b>" << HtmlEscape(names[r]) << "</b>: " << Pct(s.allocation_pct)
       << " of the GPUs allocated, " << Pct(s.effective_util_pct) << " effectively busy; "
       << Fixed(s.idle_alloc_gpu_h, 1) << " of " << Fixed(s.alloc_gpu_h, 1)
       << " allocated GPU-hours (" << Pct(idle_share) << ") were idle.</p>\n";
  }
}

// Tenants by allocated GPU-hours summed over the runs (largest first, then
// by index); beyond opt.max_tenants the rest are summed into one row.
void TenantTable(std::ostream& os, const std::vector<RunResult>& runs,
                 const std::vector<std::string>& names, size_t max_tenants) {
  std::vector<std::vector<report::TenantStats>> per_run;
  std::set<uint32_t> ids;
  for (const auto& r : runs) {
    per_run.push_back(report::Tenants(r.jobs));
    for (const auto& t : per_run.back()) ids.insert(t.tenant);
  }
  auto find = [&](size_t r, uint32_t id) -> const report::TenantStats* {
    const auto& v = per_run[r];
    auto it =
        std::lower_bound(v.begin(), v.end(), id,
                         [](const report::TenantStats& t, uint32_t x) { return t.tenant < x; });
    return it != v.end() && it->tenant == id ? &*it : nullptr;
  };
  std::vector<std::pair<double, uint32_t>> order;
  for (uint32_t id : ids) {
    double total = 0;
    for (size_t r = 0; r < runs.size(); ++r)
      if (const auto* t = find(r, id)) total += t->gpu_h;
    order.push_back({-total, id});
  }
  std::sort(order.begin(), order.end());
  if (ids.empty()) {
    os << "<p class=\"note\">No jobs: no tenant table.</p>\n";
    return;
  }
  os << "<table id=\"tenants\"><thead><tr><th rowspan=\"2\">tenant</th>";
  for (const auto& n : names) os << "<th colspan=\"7\">" << HtmlEscape(n) << "</th>";
  os << "</tr><tr>";
  for (size_t r = 0; r < runs.size(); ++r)
    os << "<th>jobs</th><th>mean wait</th><th>top wait cause</th><th>GPU-h</th><th>idle "
          "GPU-h</th><th>top idle cause</th><th>GPU kWh</th>";
  os << "</tr></thead><tbody>\n";
  auto cells = [&](const report::TenantStats& t) {
    double idle = 0;
    size_t top = 0;
    for (size_t c = 0; c < t.idle_h.size(); ++c) {
      idle += t.idle_h[c];
      if (t.idle_h[c] > t.idle_h[top]) top = c;
    }
    double queued = 0;
    size_t top_wait = 0;
    for (size_t c = 0; c < t.wait_h.size(); ++c) {
      queued += t.wait_h[c];
      if (t.wait_h[c] > t.wait_h[top_wait]) top_wait = c;
    }
    os << "<td>" << Count(t.jobs) << "</td><td>"
       << (t.started > 0 ? Duration(t.wait_sum_s / static_cast<double>(t.started)) : "n/a")
       << "</td><td>"
       << (queued > 0 ? std::string(WaitCauseName(static_cast<WaitCause>(top_wait))) + " " +
                            Fixed(100 * t.wait_h[top_wait] / queued, 0) + " %"
                      : "-")
       << "</td><td>" << Fixed(t.gpu_h, 1) << "</td><td>" << Fixed(idle, 1) << "</td><td>"
       << (idle > 0 ? IdleCauseName(static_cast<IdleCause>(top)) : "-") << "</td><td>"
       << Fixed(t.energy_kwh, 1) << "</td>";
  };
  const size_t shown = std::min(order.size(), max_tenants);
  for (size_t i = 0; i < shown; ++i) {
    const uint32_t id = order[i].second;
    os << "<tr><td>" << id << "</td>";
    for (size_t r = 0; r < runs.size(); ++r) {
      const auto* t = find(r, id);
      report::TenantStats none;
      none.tenant = id;
      cells(t ? *t : none);
    }
    os << "</tr>\n";
  }
  if (shown < order.size()) {
    os << "<tr><td>" << Count(static_cast<int64_t>(order.size() - shown)) << " other tenants</td>";
    for (size_t r = 0; r < runs.size(); ++r) {
      report::TenantStats rest;
      for (size_t i = shown; i < order.size(); ++i)
        if (const auto* t = find(r, order[i].second)) {
          rest.jobs += t->jobs;
          rest.started += t->started;
          rest.wait_sum_s += t->wait_sum_s;
          rest.gpu_h += t->gpu_h;
          for (size_t c = 0; c < rest.idle_h.size(); ++c) rest.idle_h[c] += t->idle_h[c];
          for (size_t c = 0; c < rest.wait_h.size(); ++c) rest.wait_h[c] += t->wait_h[c];
          rest.energy_kwh += t->energy_kwh;
        }
      cells(rest);
    }
    os << "</tr>\n";
  }
  os << "</tbody></table>\n";
}

// One row per column of the results database's runs table (docs/results.md).
void MetadataTable(std::ostream& os, const std::vector<RunResult>& runs) {
  using F = std::function<std::string(const RunResult&)>;
  auto s = [](auto get, int decimals) {
    return F([get, decimals](const RunResult& r) { return Fixed(get(r.summary), decimals); });
  };
  auto i = [](auto get) { return F([get](const RunResult& r) { return Count(get(r.summary)); }); };
  auto t = [](auto get) { return F([get](const RunResult& r) { return get(r.meta); }); };
  const std::vector<std::pair<const char*, F>> rows = {
      {"label", t([](const RunMeta& m) { return m.label; })},
      {"utilsim_version", t([](const RunMeta& m) { return m.utilsim_version; })},
      {"queue_policy",
       t([](const RunMeta& m) { return m.queue_policy + " v" + m.queue_policy_version; })},
      {"placement_policy",
       t([](const RunMeta& m) { return m.placement_policy + " v" + m.placement_policy_version; })},
      {"seed", t([](const RunMeta& m) { return std::to_string(m.seed); })},
      {"input_digest", t([](const RunMeta& m) { return m.input_digest; })},
      {"workload_source", t([](const RunMeta& m) { return m.workload_source; })},
      {"cluster_name", t([](const RunMeta& m) { return m.cluster_name; })},
      {"sample_interval_s",
       t([](const RunMeta& m) { return Fixed(m.sample_interval.seconds(), 3); })},
      {"progress_model", t([](const RunMeta& m) { return m.progress_model; })},
      {"notes", t([](const RunMeta& m) { return m.notes; })},
      {"jobs", i([](const Summary& x) { return x.jobs; })},
      {"finished", i([](const Summary& x) { return x.finished; })},
      {"rejected", i([](const Summary& x) { return x.rejected; })},
      {"unfinished", i([](const Summary& x) { return x.unfinished; })},
      {"killed", i([](const Summary& x) { return x.killed; })},
      {"capacity_gpus", i([](const Summary& x) { return x.capacity_gpus; })},
      {"window_start_s", s([](const Summary& x) { return x.window_start.seconds(); }, 1)},
      {"window_end_s", s([](const Summary& x) { return x.window_end.seconds(); }, 1)},
      {"alloc_gpu_h", s([](const Summary& x) { return x.alloc_gpu_h; }, 2)},
      {"useful_gpu_h", s([](const Summary& x) { return x.useful_gpu_h; }, 2)},
      {"idle_alloc_gpu_h", s([](const Summary& x) { return x.idle_alloc_gpu_h; }, 2)},
      {"allocation_pct", s([](const Summary& x) { return x.allocation_pct; }, 2)},
      {"effective_util_pct", s([](const Summary& x) { return x.effective_util_pct; }, 2)},
      {"price_per_gpu_h", s([](const Summary& x) { return x.price_per_gpu_h; }, 2)},
      {"idle_cost", s([](const Summary& x) { return x.idle_cost; }, 2)},
      {"idle_input_gpu_h", s([](const Summary& x) { return x.idle_input_gpu_h; }, 2)},
      {"idle_storage_gpu_h", s([](const Summary& x) { return x.idle_storage_gpu_h; }, 2)},
      {"idle_communication_gpu_h", s([](const Summary& x) { return x.idle_comm_gpu_h; }, 2)},
      {"idle_fixed_gpu_h", s([](const Summary& x) { return x.idle_fixed_gpu_h; }, 2)},
      {"idle_sharing_gpu_h", s([](const Summary& x) { return x.idle_sharing_gpu_h; }, 2)},
      {"idle_unattributed_gpu_h", s([](const Summary& x) { return x.idle_unattributed_gpu_h; }, 2)},
      {"stranded_gpu_h", s([](const Summary& x) { return x.stranded_gpu_h; }, 2)},
      {"cpu_alloc_pct", s([](const Summary& x) { return x.cpu_alloc_pct; }, 2)},
      {"mem_alloc_pct", s([](const Summary& x) { return x.mem_alloc_pct; }, 2)},
      {"wait_mean_s", s([](const Summary& x) { return x.wait_mean_s; }, 1)},
      {"wait_p50_s", s([](const Summary& x) { return x.wait_p50_s; }, 1)},
      {"wait_p95_s", s([](const Summary& x) { return x.wait_p95_s; }, 1)},
      {"wait_p99_s", s([](const Summary& x) { return x.wait_p99_s; }, 1)},
      {"wait_max_s", s([](const Summary& x) { return x.wait_max_s; }, 1)},
      {"queued_mean_s", s([](const Summary& x) { return x.queued_mean_s; }, 1)},
      {"queued_p95_s", s([](const Summary& x) { return x.queued_p95_s; }, 1)},
      {"queued_max_s", s([](const Summary& x) { return x.queued_max_s; }, 1)},
      {"jct_mean_s", s([](const Summary& x) { return x.jct_mean_s; }, 1)},
      {"jct_p50_s", s([](const Summary& x) { return x.jct_p50_s; }, 1)},
      {"jct_p95_s", s([](const Summary& x) { return x.jct_p95_s; }, 1)},
      {"slowdown_mean", s([](const Summary& x) { return x.slowdown_mean; }, 3)},
      {"slowdown_p50", s([](const Summary& x) { return x.slowdown_p50; }, 3)},
      {"slowdown_p95", s([](const Summary& x) { return x.slowdown_p95; }, 3)},
      {"makespan_s", s([](const Summary& x) { return x.makespan_s; }, 1)},
      {"tenant_fairness", s([](const Summary& x) { return x.tenant_fairness; }, 4)},
      {"events", i([](const Summary& x) { return x.events; })},
  };
  os << "<table id=\"metadata\"><thead><tr><th>runs column</th>";
  for (size_t r = 0; r < runs.size(); ++r) os << "<th>run " << r + 1 << "</th>";
  os << "</tr></thead><tbody>\n";
  for (const auto& [name, get] : rows) {
    os << "<tr><td>" << name << "</td>";
    for (const auto& r : runs) os << "<td class=\"text\">" << HtmlEscape(get(r)) << "</td>";
    os << "</tr>\n";
  }
  os << "</tbody></table>\n";
}

// The note in place of the per-run time series when there are too many runs.
void SeriesSkipped(std::ostream& os, size_t runs, size_t max_runs, const char* what) {
  os << "<p class=\"note\">Not drawn: this database holds " << Count(static_cast<int64_t>(runs))
     << " runs (more than " << Count(static_cast<int64_t>(max_runs)) << "), too many for " << what
     << ". The summary table above lists every run.</p>\n";
}

}  // namespace

std::string BuildReportHtml(const std::vector<RunResult>& runs, const ReportOptions& opt) {
  return report::BuildPage(runs, opt, nullptr);
}

std::string report::BuildPage(const std::vector<RunResult>& runs, const ReportOptions& opt_in,
                              const SweepData* sweep) {
  if (!CheckReportBuilt().ok()) return "";
  ReportOptions opt = opt_in;
  opt.max_points = std::max<size_t>(opt.max_points, 1);
  opt.max_quantiles = std::max<size_t>(opt.max_quantiles, 1);
  opt.max_tenants = std::max<size_t>(opt.max_tenants, 1);
  const std::vector<std::string> names = report::RunNames(runs);
  const report::ChartSet set = report::BuildCharts(runs, opt);
  const std::vector<report::Chart> sweep_charts =
      sweep ? report::BuildSweepCharts(*sweep) : std::vector<report::Chart>{};
  const RunMeta first = runs.empty() ? RunMeta{} : runs[0].meta;
  const int64_t capacity = runs.empty() ? 0 : runs[0].summary.capacity_gpus;

  std::ostringstream os;
  report::PageHead(os, "utilsim report: " + first.workload_source,
                   "utilsim " + first.utilsim_version);
  os << "<h1>utilsim report</h1>\n<p class=\"sub\">Workload " << HtmlEscape(first.workload_source)
     << " on cluster " << HtmlEscape(first.cluster_name) << " (" << Count(capacity) << " GPUs); "
     << runs.size();
  if (sweep)
    os << (runs.size() == 1 ? " run" : " runs") << " of a sweep";
  else
    os << (runs.size() == 1 ? " policy" : " policies") << " compared";
  os << "; made by utilsim " << HtmlEscape(first.utilsim_version)
     << ". Times are simulated time since the start.</p>\n";
  std::set<std::string> digests;
  for (const auto& r : runs) digests.insert(r.meta.input_digest);
  if (digests.size() > 1 && !sweep)  // a sweep varies its inputs on purpose
    os << "<p class=\"note\">These runs do not share one input (their input digests differ): "
          "compare them with care.</p>\n";

  if (sweep) report::SweepSection(os, *sweep, sweep_charts);

  os << "<h2>Summary</h2>\n<p class=\"explain\">Allocation and effective utilization cover each "
        "run's measurement window (run metadata: window_start_s .. window_end_s); waits, JCT and "
        "makespan cover every job.</p>\n";
  SummaryTable(os, runs, names);

  os << "<h2>Allocated vs effectively busy GPUs</h2>\n<p class=\"explain\">The light area is the "
        "GPUs allocated to jobs (samples.gpus_allocated), the dark area the GPUs effectively busy "
        "(samples.gpus_busy: each running job's GPUs times its busy fraction at that instant). "
        "The gap between them is allocated-but-idle capacity: GPUs reserved, not working.</p>\n";
  Charts(os, set, "alloc");
  if (set.series_skipped) SeriesSkipped(os, runs.size(), opt.max_series_runs, "one chart per run");

  os << "<h2>Queue time</h2>\n<p class=\"explain\">Share of the jobs that started whose queue "
        "wait (jobs.wait_s) is at most x. A curve further left is better.</p>\n";
  Charts(os, set, "wait");
  os << "<p class=\"explain\">Above: every queued second of every job, attributed to one "
        "primary cause (runs.wait_*_h; docs/explain.md: capacity, gpu-model, fragmentation, "
        "co-resource, placement, mig-layout, reservation, queue-order, recorded-start, "
        "preemption, power-on). <code>utilsim explain --db FILE --job NAME</code> shows one "
        "job's timeline.</p>\n";
  os << "<h2>Job completion time and slowdown</h2>\n<p class=\"explain\">Finished and killed "
        "jobs. JCT = finish - submit (jobs.jct_s); bounded slowdown = max(1, JCT / max(recorded "
        "runtime, 10 s)), as in runs.slowdown_*.</p>\n";
  Charts(os, set, "jct");
  Charts(os, set, "slowdown");

  os << "<h2>Idle allocated GPU-hours by cause</h2>\n<p class=\"explain\">runs.idle_*_gpu_h: "
        "the allocated-but-idle GPU-hours inside the measurement window, split by the cause the "
        "progress model attributes (docs/model.md); the whole-gpu model attributes everything "
        "to unattributed.</p>\n";
  Charts(os, set, "idle");

  os << "<h2>Energy</h2>\n<p class=\"explain\">runs.energy_*_kwh (docs/energy.md): the jobs' "
        "GPUs while busy (active power x busy GPU time) and while allocated but idle (context "
        "power), GPUs held by no job (idle power; the free part of a shared GPU at context "
        "power) and the nodes' non-GPU parts, inside the measurement window, before PUE. "
        "Idle allocated energy and its cost: ";
  for (size_t r = 0; r < runs.size(); ++r)
    os << (r ? ", " : "") << HtmlEscape(names[r]) << " "
       << Fixed(runs[r].summary.energy_alloc_idle_kwh, 1) << " kWh ("
       << Fixed(runs[r].summary.idle_alloc_energy_cost, 2) << " at "
       << Fixed(runs[r].summary.energy_price_per_kwh, 3) << "/kWh, PUE "
       << Fixed(runs[r].summary.pue, 2) << ")";
  os << ".</p>\n";
  Charts(os, set, "energy");
  if (set.series_skipped) SeriesSkipped(os, runs.size(), opt.max_series_runs, "one line per run");

  // Clusters that change (docs/cluster-events.md): only when some run had
  // nodes down or jobs interrupted.
  const bool changed = std::any_of(runs.begin(), runs.end(), [](const RunResult& r) {
    const Summary& m = r.summary;
    return m.down_absent_gpu_h + m.down_maintenance_gpu_h + m.down_failure_gpu_h > 0 ||
           m.interruptions > 0;
  });
  if (changed) {
    os << "<h2>Cluster changes and failures</h2>\n<p class=\"explain\">runs.down_*_gpu_h, "
          "interruptions, lost_gpu_h, ettr_mean, ettr_p5 and wait_nodes_down_h "
          "(docs/cluster-events.md): GPU-hours of nodes down in the window by cause, jobs "
          "killed by a node going down, the GPU-hours of work they redid, the finished jobs' "
          "effective training time ratio, and the job-hours queued for down nodes.</p>\n"
          "<table id=\"cluster-changes\"><thead><tr><th>policy</th><th>down absent GPU-h</th>"
          "<th>down maintenance GPU-h</th><th>down failure GPU-h</th><th>interruptions</th>"
          "<th>lost GPU-h</th><th>ETTR mean</th><th>ETTR p5</th><th>queued on nodes-down "
          "(job-h)</th></tr></thead><tbody>\n";
    for (size_t r = 0; r < runs.size(); ++r) {
      const Summary& m = runs[r].summary;
      os << "<tr><td>" << HtmlEscape(names[r]) << "</td><td>" << Fixed(m.down_absent_gpu_h, 1)
         << "</td><td>" << Fixed(m.down_maintenance_gpu_h, 1) << "</td><td>"
         << Fixed(m.down_failure_gpu_h, 1) << "</td><td>" << m.interruptions << "</td><td>"
         << Fixed(m.lost_gpu_h, 1) << "</td><td>" << Fixed(m.ettr_mean, 3) << "</td><td>"
         << Fixed(m.ettr_p5, 3) << "</td><td>"
         << Fixed(m.wait_cause_h[static_cast<size_t>(WaitCause::kNodesDown)], 1) << "</td></tr>\n";
    }
    os << "</tbody></table>\n";
  }

  os << "<h2>Stranded GPUs</h2>\n<p class=\"explain\">samples.gpus_stranded: whole free GPUs "
        "that no GPU job can use because their node's free CPU or memory is too small "
        "(docs/results.md). Stranded GPU-hours in the window (runs.stranded_gpu_h): ";
  for (size_t r = 0; r < runs.size(); ++r)
    os << (r ? ", " : "") << HtmlEscape(names[r]) << " "
       << Fixed(runs[r].summary.stranded_gpu_h, 1);
  os << ".</p>\n";
  Charts(os, set, "stranded");
  if (set.series_skipped) SeriesSkipped(os, runs.size(), opt.max_series_runs, "one line per run");

  os << "<h2>Fragmentation</h2>\n";
  const bool has_frag = std::any_of(set.charts.begin(), set.charts.end(),
                                    [](const report::Chart& c) { return c.section == "frag"; });
  const bool frag_recorded = std::any_of(runs.begin(), runs.end(), [](const RunResult& r) {
    return std::any_of(r.samples.begin(), r.samples.end(),
                       [](const Sample& s) { return !std::isnan(s.frag_gpu_milli); });
  });
  if (has_frag || (set.series_skipped && frag_recorded)) {
    os << "<p class=\"explain\">samples.frag_gpu_milli: the FGD measure (Weng et al., ATC'23; "
          "docs/packing.md) of the free GPU capacity that the workload's task shapes cannot "
          "use, in GPUs. Mean fragmented share of free GPU capacity in the window "
          "(runs.frag_mean_pct): ";
    for (size_t r = 0; r < runs.size(); ++r)
      os << (r ? ", " : "") << HtmlEscape(names[r]) << " "
         << (std::isnan(runs[r].summary.frag_mean_pct)
                 ? std::string("n/a")
                 : Fixed(runs[r].summary.frag_mean_pct, 1) + " %");
    os << ".</p>\n";
    Charts(os, set, "frag");
    if (set.series_skipped) SeriesSkipped(os, runs.size(), opt.max_series_runs, "one line per run");
  } else {
    os << "<p class=\"note\" id=\"fragmentation\">Not recorded: utilsim samples the FGD "
          "fragmentation only for workloads with fractional GPU requests (docs/sharing.md). "
          "Stranded GPUs above are the part of fragmentation caused by CPU or memory; "
          "<code>utilsim fgd-experiment</code> measures GPU fragmentation for placement "
          "policies.</p>\n";
  }

  os << "<h2>Tenants</h2>\n<p class=\"explain\">From the jobs table, per tenant index: jobs, "
        "mean queue wait of the jobs that started, the largest cause of their queued time "
        "(jobs.wait_*_s, docs/explain.md), allocated and idle GPU-hours and the GPU energy of "
        "their jobs over the whole run (not clipped to the window). Largest total GPU-hours "
        "first; at most "
     << opt.max_tenants << " rows.</p>\n";
  TenantTable(os, runs, names, opt.max_tenants);

  os << "<h2>Run metadata</h2>\n<p class=\"explain\">Every column of the runs table "
        "(docs/results.md), one run per column.</p>\n";
  MetadataTable(os, runs);

  os << "<h2>How this report was made</h2>\n<ul class=\"explain\" id=\"sampling\">\n";
  for (const auto& line : set.sampling) os << "<li>" << HtmlEscape(line) << "</li>\n";
  os << "<li>Time series: at most " << Count(static_cast<int64_t>(opt.max_points))
     << " points per run, each the mean of a fixed number of consecutive samples (area "
        "and GPU-hours are kept, short peaks are smoothed). Distributions: every value up to "
     << Count(static_cast<int64_t>(opt.max_quantiles)) << " values per run, else the "
     << Count(static_cast<int64_t>(opt.max_quantiles))
     << " nearest-rank quantiles. Deterministic: the same results give the same file.</li>\n"
     << "<li>Charts drawn in the page by";
  for (const auto& lib : Libraries())
    os << " " << lib.name << " " << lib.version << (lib.name == "vega-embed" ? "" : ",");
  os << " (inlined; the file needs no network).</li>\n</ul>\n"
     << "<pre id=\"report-check\" hidden></pre>\n";

  nlohmann::json data = {{"charts", nlohmann::json::array()}};
  for (const auto& c : sweep_charts) data["charts"].push_back({{"id", c.id}, {"spec", c.spec}});
  for (const auto& c : set.charts) data["charts"].push_back({{"id", c.id}, {"spec", c.spec}});
  os << "<script type=\"application/json\" id=\"report-data\">"
     << report::ScriptSafeJson(data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
     << "</script>\n<script>" << report::kBootstrapJs << "</script>\n</body>\n</html>\n";
  return os.str();
}

}  // namespace utilsim
