#include "report_charts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "report_data.h"

namespace utilsim::report {
namespace {

using nlohmann::json;

// Tableau 10: policy colours, the same in every chart.
constexpr std::array<const char*, 10> kPalette = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                                  "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
                                                  "#9c755f", "#bab0ac"};

}  // namespace

std::vector<std::string> RunNames(const std::vector<RunResult>& runs) {
  std::vector<std::string> names;
  std::multiset<std::string> labels;
  for (const auto& r : runs) labels.insert(r.meta.label);
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string& l = runs[i].meta.label;
    const std::string n = "run " + std::to_string(i + 1);
    names.push_back(l.empty() ? n : labels.count(l) > 1 ? l + " (" + n + ")" : l);
  }
  return names;
}

const char* PaletteColor(size_t i) { return kPalette[i % kPalette.size()]; }

json ChartBase(json rows, int height) {
  return {{"width", "container"},
          {"height", height},
          {"datasets", {{"main", std::move(rows)}}},
          {"data", {{"name", "main"}}}};
}

namespace {

json PolicyColor(const std::vector<std::string>& names) {
  json range = json::array();
  for (size_t i = 0; i < names.size(); ++i) range.push_back(PaletteColor(i));
  return {{"field", "policy"},
          {"type", "nominal"},
          {"scale", {{"domain", names}, {"range", range}}},
          {"legend", {{"orient", "bottom"}, {"title", "policy"}}}};
}

// [first, last] sample time over all runs, hours, so that every run's
// allocated-vs-busy chart has the same time axis; null when no samples.
json TimeDomain(const std::vector<RunResult>& runs) {
  double lo = 0, hi = 0;
  bool any = false;
  for (const auto& r : runs) {
    if (r.samples.empty()) continue;
    const double a = r.samples.front().time.seconds() / 3600.0;
    const double b = r.samples.back().time.seconds() / 3600.0;
    lo = any ? std::min(lo, a) : a;
    hi = any ? std::max(hi, b) : b;
    any = true;
  }
  if (!any || hi <= lo) return nullptr;
  return {Round(lo, 4), Round(hi, 4)};
}

Chart AllocBusy(const RunResult& run, const std::string& name, size_t index, size_t max_points,
                const json& time_domain, std::string* sampling) {
  size_t group = 0;
  const std::vector<SeriesPoint> pts = DownsampleSamples(run.samples, max_points, &group);
  json rows = json::array();
  for (const auto& p : pts)
    rows.push_back(
        {{"t", Round(p.t_h, 4)}, {"allocated", Round(p.allocated, 3)}, {"busy", Round(p.busy, 3)}});
  const double cap = static_cast<double>(std::max<int64_t>(run.summary.capacity_gpus, 1));
  auto area = [&](const char* field, const char* series, bool first) {
    json color = {{"datum", series}};
    if (first) {
      color["scale"] = {{"domain", {"allocated", "effectively busy"}},
                        {"range", {"#a0cbe8", "#1f4e79"}}};
      color["legend"] = {{"orient", "top"}, {"title", nullptr}};
    }
    json y = {{"field", field}, {"type", "quantitative"}};
    if (first) {
      y["title"] = "GPUs";
      y["scale"] = {{"domain", {0, cap}}};
    }
    return json{{"mark", {{"type", "area"}, {"interpolate", "step-after"}, {"tooltip", true}}},
                {"encoding", {{"y", y}, {"color", color}}}};
  };
  Chart c;
  c.id = "alloc-busy-" + std::to_string(index + 1);
  c.section = "alloc";
  c.title =
      name + ": allocated vs effectively busy GPUs (of " + Count(run.summary.capacity_gpus) + ")";
  if (pts.empty()) c.note = "This run recorded no samples: nothing to draw.";
  c.rows = rows.size();
  c.spec = ChartBase(std::move(rows), 190);
  json x = {{"field", "t"}, {"type", "quantitative"}, {"title", "simulated time (h)"}};
  if (!time_domain.is_null()) x["scale"] = {{"domain", time_domain}, {"nice", false}};
  c.spec["encoding"] = {{"x", x}};
  c.spec["layer"] = {area("allocated", "allocated", true), area("busy", "effectively busy", false)};
  *sampling = name + ": " + Count(static_cast<int64_t>(run.samples.size())) +
              " samples, one every " + Duration(run.meta.sample_interval.seconds());
  if (group > 1)
    *sampling += ", drawn as " + Count(static_cast<int64_t>(pts.size())) +
                 " points, each the mean of " + Count(static_cast<int64_t>(group)) +
                 " consecutive samples";
  else
    *sampling += ", every sample drawn";
  return c;
}

// x_title: axis title; scale: "symlog", "log" or "linear". legend: false
// for too many runs to list (their names are in each line's tooltip).
Chart CdfChart(const std::string& id, const std::string& section, const std::string& title,
               const std::string& x_title, const char* scale, const std::vector<std::string>& names,
               const std::vector<std::vector<double>>& per_run, size_t max_points, int decimals,
               bool legend) {
  json rows = json::array();
  std::string empty;
  double max_value = 0;
  for (size_t r = 0; r < per_run.size(); ++r) {
    const auto cdf = Cdf(per_run[r], max_points);
    if (cdf.empty()) empty += (empty.empty() ? "" : ", ") + names[r];
    for (const auto& p : cdf) {
      rows.push_back(
          {{"policy", names[r]}, {"x", Round(p.value, decimals)}, {"p", Round(p.frac, 6)}});
      max_value = std::max(max_value, p.value);
    }
  }
  Chart c;
  c.id = id;
  c.section = section;
  c.title = title;
  if (!empty.empty()) c.note = "No jobs to draw for: " + empty + ".";
  if (!legend)
    c.note += std::string(c.note.empty() ? "" : " ") + "One line per run, " +
              Count(static_cast<int64_t>(names.size())) +
              " runs: no legend; hover over a line for its run.";
  c.rows = rows.size();
  c.spec = ChartBase(std::move(rows), 260);
  c.spec["mark"] = {{"type", "line"}, {"interpolate", "step-after"}, {"tooltip", true}};
  // Readable ticks: durations (minutes) at 1 min, 10 min, 1 h, 6 h, 1 d, 1 w,
  // 30 d; ratios at 1, 2, 5, 10, ...; only those up to the largest value.
  const bool minutes = std::string(scale) == "symlog";
  const std::vector<double> candidates =
      minutes ? std::vector<double>{0, 1, 10, 60, 360, 1440, 10080, 43200, 525600}
              : std::vector<double>{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 1e4, 1e5, 1e6};
  json ticks = json::array();
  for (double v : candidates)
    if (ticks.empty() || v <= max_value) ticks.push_back(v);
  json axis = {{"values", ticks}};
  if (minutes)
    axis["labelExpr"] =
        "datum.value >= 1440 ? datum.value / 1440 + ' d' : datum.value >= 60 ? "
        "datum.value / 60 + ' h' : datum.value + ' min'";
  c.spec["encoding"] = {{"x",
                         {{"field", "x"},
                          {"type", "quantitative"},
                          {"title", x_title},
                          {"scale", {{"type", scale}}},
                          {"axis", axis}}},
                        {"y",
                         {{"field", "p"},
                          {"type", "quantitative"},
                          {"title", "fraction of jobs"},
                          {"axis", {{"format", "%"}}},
                          {"scale", {{"domain", {0, 1}}}}}},
                        {"order", {{"field", "p"}, {"type", "quantitative"}}},
                        {"color", PolicyColor(names)}};
  if (!legend) c.spec["encoding"]["color"]["legend"] = nullptr;
  return c;
}

// A horizontal stacked bar per run: rows {policy, <part>, <value>}, summed
// per policy, coloured by part in `domain` order with `range` colours.
Chart StackedBars(const char* id, const char* section, const std::string& title, json rows,
                  size_t runs, const std::vector<std::string>& names, const char* part,
                  const char* value, const char* x_title, const json& domain, const json& range,
                  const json& legend_title) {
  Chart c;
  c.id = id;
  c.section = section;
  c.title = title;
  c.rows = rows.size();
  c.spec = ChartBase(std::move(rows), static_cast<int>(std::max<size_t>(2, runs) * 36));
  c.spec["mark"] = {{"type", "bar"}, {"tooltip", true}};
  c.spec["encoding"] = {
      {"y", {{"field", "policy"}, {"type", "nominal"}, {"sort", names}, {"title", nullptr}}},
      {"x", {{"field", value}, {"type", "quantitative"}, {"aggregate", "sum"}, {"title", x_title}}},
      {"color",
       {{"field", part},
        {"type", "nominal"},
        {"scale", {{"domain", domain}, {"range", range}}},
        {"legend", {{"orient", "bottom"}, {"title", legend_title}}}}},
      {"order", {{"field", part}}}};
  return c;
}

Chart IdleCauses(const std::vector<RunResult>& runs, const std::vector<std::string>& names) {
  static const std::array<const char*, 6> kCauses = {"input", "storage", "communication",
                                                     "fixed", "sharing", "unattributed"};
  json rows = json::array();
  for (size_t r = 0; r < runs.size(); ++r) {
    const Summary& s = runs[r].summary;
    const std::array<double, 6> v = {s.idle_input_gpu_h,   s.idle_storage_gpu_h,
                                     s.idle_comm_gpu_h,    s.idle_fixed_gpu_h,
                                     s.idle_sharing_gpu_h, s.idle_unattributed_gpu_h};
    for (size_t c = 0; c < kCauses.size(); ++c)
      rows.push_back({{"policy", names[r]}, {"cause", kCauses[c]}, {"gpu_h", Round(v[c], 3)}});
  }
  return StackedBars(
      "idle-causes", "idle", "Allocated-but-idle GPU-hours by cause, inside the measurement window",
      std::move(rows), runs.size(), names, "cause", "gpu_h", "idle allocated GPU-hours", kCauses,
      {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#edc948", "#bab0ac"}, "cause");
}

// Queued job-hours by primary cause (runs.wait_*_h, docs/explain.md).
Chart WaitCauses(const std::vector<RunResult>& runs, const std::vector<std::string>& names) {
  json rows = json::array();
  json domain = json::array();
  for (size_t c = 0; c < kWaitCauses; ++c)
    domain.push_back(WaitCauseName(static_cast<WaitCause>(c)));
  double total = 0;
  for (size_t r = 0; r < runs.size(); ++r)
    for (size_t c = 0; c < kWaitCauses; ++c) {
      total += runs[r].summary.wait_cause_h[c];
      rows.push_back({{"policy", names[r]},
                      {"cause", WaitCauseName(static_cast<WaitCause>(c))},
                      {"h", Round(runs[r].summary.wait_cause_h[c], 3)}});
    }
  Chart c = StackedBars("wait-causes", "wait", "Queued job-hours by primary cause", std::move(rows),
                        runs.size(), names, "cause", "h", "job-hours", domain,
                        {"#e15759", "#b07aa1", "#f28e2b", "#edc948", "#9c755f", "#ff9da7",
                         "#4e79a7", "#bab0ac", "#76b7b2", "#59a14f", "#8cd17d"},
                        "cause");
  if (!(total > 0)) c.note = "No job waited.";
  return c;
}

// Energy inside the window by where it went (runs.energy_*_kwh).
Chart EnergyBreakdown(const std::vector<RunResult>& runs, const std::vector<std::string>& names) {
  static const std::array<const char*, 4> kParts = {"busy", "allocated idle", "free", "node"};
  json rows = json::array();
  for (size_t r = 0; r < runs.size(); ++r) {
    const Summary& s = runs[r].summary;
    const std::array<double, 4> v = {s.energy_busy_kwh, s.energy_alloc_idle_kwh, s.energy_free_kwh,
                                     s.energy_node_kwh};
    for (size_t k = 0; k < kParts.size(); ++k)
      rows.push_back({{"policy", names[r]}, {"part", kParts[k]}, {"kwh", Round(v[k], 3)}});
  }
  return StackedBars("energy", "energy",
                     "IT energy inside the measurement window, by where it went", std::move(rows),
                     runs.size(), names, "part", "kwh", "kWh", kParts,
                     {"#59a14f", "#e15759", "#bab0ac", "#4e79a7"}, nullptr);
}

// A step line per policy over simulated time: rows {policy, t, <field>}.
void PolicyTimeLines(Chart* c, json rows, const std::string& field, const std::string& y_title,
                     const std::vector<std::string>& names) {
  c->rows = rows.size();
  c->spec = ChartBase(std::move(rows), 220);
  c->spec["mark"] = {{"type", "line"}, {"interpolate", "step-after"}, {"tooltip", true}};
  c->spec["encoding"] = {
      {"x", {{"field", "t"}, {"type", "quantitative"}, {"title", "simulated time (h)"}}},
      {"y", {{"field", field}, {"type", "quantitative"}, {"title", y_title}}},
      {"order", {{"field", "t"}, {"type", "quantitative"}}},
      {"color", PolicyColor(names)}};
}

Chart Power(const std::vector<RunResult>& runs, const std::vector<std::string>& names,
            size_t max_points) {
  json rows = json::array();
  for (size_t r = 0; r < runs.size(); ++r) {
    size_t group = 0;
    for (const auto& p : DownsampleSamples(runs[r].samples, max_points, &group))
      rows.push_back({{"policy", names[r]}, {"t", Round(p.t_h, 4)}, {"kw", Round(p.power_kw, 3)}});
  }
  Chart c;
  c.id = "power";
  c.section = "energy";
  c.title = "IT power over time (GPUs and nodes, before PUE)";
  PolicyTimeLines(&c, std::move(rows), "kw", "kW", names);
  return c;
}

Chart Stranded(const std::vector<RunResult>& runs, const std::vector<std::string>& names,
               size_t max_points) {
  json rows = json::array();
  std::string empty;
  for (size_t r = 0; r < runs.size(); ++r) {
    size_t group = 0;
    const auto pts = DownsampleSamples(runs[r].samples, max_points, &group);
    if (pts.empty()) empty += (empty.empty() ? "" : ", ") + names[r];
    for (const auto& p : pts)
      rows.push_back(
          {{"policy", names[r]}, {"t", Round(p.t_h, 4)}, {"stranded", Round(p.stranded, 3)}});
  }
  Chart c;
  c.id = "stranded";
  c.section = "stranded";
  c.title = "Stranded GPUs over time";
  if (!empty.empty()) c.note = "No samples to draw for: " + empty + ".";
  PolicyTimeLines(&c, std::move(rows), "stranded", "stranded GPUs", names);
  return c;
}

// FGD fragmentation over time, for the runs whose samples recorded it
// (workloads with fractional GPU requests); none: no chart (returns false).
bool Fragmentation(const std::vector<RunResult>& runs, const std::vector<std::string>& names,
                   size_t max_points, Chart* out) {
  json rows = json::array();
  std::string missing;
  for (size_t r = 0; r < runs.size(); ++r) {
    size_t group = 0;
    size_t drawn = 0;
    for (const auto& p : DownsampleSamples(runs[r].samples, max_points, &group)) {
      if (std::isnan(p.frag)) continue;
      rows.push_back({{"policy", names[r]}, {"t", Round(p.t_h, 4)}, {"frag", Round(p.frag, 3)}});
      ++drawn;
    }
    if (drawn == 0) missing += (missing.empty() ? "" : ", ") + names[r];
  }
  if (rows.empty()) return false;
  Chart& c = *out;
  c.id = "fragmentation-chart";
  c.section = "frag";
  c.title = "Fragmented GPU capacity over time (FGD)";
  if (!missing.empty()) c.note = "Not recorded for: " + missing + ".";
  PolicyTimeLines(&c, std::move(rows), "frag", "fragmented GPUs", names);
  return true;
}

}  // namespace

ChartSet BuildCharts(const std::vector<RunResult>& runs, const ReportOptions& opt) {
  ChartSet set;
  const std::vector<std::string> names = RunNames(runs);
  const json time_domain = TimeDomain(runs);
  std::vector<std::vector<double>> waits, jcts, slowdowns;
  set.series_skipped = opt.max_series_runs > 0 && runs.size() > opt.max_series_runs;
  for (size_t r = 0; r < runs.size(); ++r) {
    std::string line;
    if (set.series_skipped)
      line = names[r] + ": " + Count(static_cast<int64_t>(runs[r].samples.size())) +
             " samples, one every " + Duration(runs[r].meta.sample_interval.seconds()) +
             ", not drawn (more than " + Count(static_cast<int64_t>(opt.max_series_runs)) +
             " runs)";
    else
      set.charts.push_back(AllocBusy(runs[r], names[r], r, opt.max_points, time_domain, &line));
    RunDistributions d = Distributions(runs[r].jobs);
    auto dist = [&](const std::vector<double>& v, const char* what) {
      return Count(static_cast<int64_t>(v.size())) + " " + what +
             (v.size() > opt.max_quantiles
                  ? " (" + Count(static_cast<int64_t>(opt.max_quantiles)) + " quantiles drawn)"
                  : " (all drawn)");
    };
    line += "; " + dist(d.wait_min, "queue waits") + ", " + dist(d.jct_min, "JCTs and slowdowns");
    set.sampling.push_back(line);
    waits.push_back(std::move(d.wait_min));
    jcts.push_back(std::move(d.jct_min));
    slowdowns.push_back(std::move(d.slowdown));
  }
  set.charts.push_back(CdfChart("queue-wait", "wait", "Queue wait (submit to start), CDF",
                                "queue wait (symlog scale)", "symlog", names, waits,
                                opt.max_quantiles, 3, !set.series_skipped));
  set.charts.push_back(CdfChart("jct", "jct", "Job completion time (submit to finish), CDF",
                                "job completion time (symlog scale)", "symlog", names, jcts,
                                opt.max_quantiles, 3, !set.series_skipped));
  set.charts.push_back(CdfChart("slowdown", "slowdown", "Bounded slowdown, CDF",
                                "bounded slowdown (log scale)", "log", names, slowdowns,
                                opt.max_quantiles, 4, !set.series_skipped));
  set.charts.push_back(WaitCauses(runs, names));
  set.charts.push_back(IdleCauses(runs, names));
  set.charts.push_back(EnergyBreakdown(runs, names));
  if (set.series_skipped) return set;
  set.charts.push_back(Power(runs, names, opt.max_points));
  set.charts.push_back(Stranded(runs, names, opt.max_points));
  if (Chart frag; Fragmentation(runs, names, opt.max_points, &frag))
    set.charts.push_back(std::move(frag));
  return set;
}

}  // namespace utilsim::report
