// The FGD experiment's report page (report.h, BuildFgdReportHtml): its curves
// against arrived demand, with the published ones dashed beside them.
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report_charts.h"
#include "report_data.h"
#include "report_page.h"
#include "utilsim/analysis/fgd_compare.h"
#include "utilsim/analysis/report.h"

namespace utilsim {
namespace {

using nlohmann::json;

// One metric's chart: a line per policy (mean over seeds) and, dashed, the
// published mean of the matching policy.
report::Chart MetricChart(const std::string& id, const std::string& title, const std::string& y,
                          FgdMetric metric, const std::vector<FgdCurve>& curves,
                          const std::vector<FgdPublished>& published) {
  json rows = json::array();
  std::vector<std::string> names;
  for (const FgdCurve& c : curves) {
    names.push_back(c.policy);
    const std::vector<double>& v = metric == FgdMetric::kAlloc  ? c.alloc_mean
                                   : metric == FgdMetric::kFrag ? c.frag_mean
                                                                : c.frag_ratio_mean;
    for (size_t k = 0; k < v.size(); ++k)
      if (!std::isnan(v[k]))
        rows.push_back({{"policy", c.policy},
                        {"source", "utilsim"},
                        {"arrived", static_cast<int>(k)},
                        {"value", report::Round(100 * v[k], 3)}});
  }
  bool any_published = false;
  for (const FgdPublished& pub : published) {
    if (pub.metric != metric) continue;
    for (const auto& [sc, seeds] : pub.curves) {
      const std::string mine = FgdMatchPolicy(sc, curves);
      if (mine.empty()) continue;
      for (size_t k = 0; k < 131; ++k) {
        double s = 0;
        int n = 0;
        for (const auto& seed : seeds)
          if (k < seed.size() && !std::isnan(seed[k])) {
            s += seed[k];
            ++n;
          }
        if (n == 0) continue;
        any_published = true;
        rows.push_back({{"policy", mine},
                        {"source", "published"},
                        {"published_as", sc},
                        {"arrived", static_cast<int>(k)},
                        {"value", report::Round(s / n, 3)}});
      }
    }
  }
  report::Chart c;
  c.id = id;
  c.section = "fgd";
  c.title = title;
  c.rows = rows.size();
  if (!any_published && !published.empty())
    c.note = "no published file of this metric was given (--compare-with)";
  c.spec = report::ChartBase(std::move(rows), 300);
  json range = json::array();
  for (size_t i = 0; i < names.size(); ++i) range.push_back(report::PaletteColor(i));
  c.spec["mark"] = {{"type", "line"}, {"tooltip", true}};
  c.spec["encoding"] = {
      {"x",
       {{"field", "arrived"},
        {"type", "quantitative"},
        {"title", "arrived GPU request (% of capacity)"}}},
      {"y",
       {{"field", "value"}, {"type", "quantitative"}, {"title", y}, {"scale", {{"zero", false}}}}},
      {"color",
       {{"field", "policy"},
        {"type", "nominal"},
        {"scale", {{"domain", names}, {"range", range}}},
        {"legend", {{"orient", "bottom"}, {"title", "policy"}}}}},
      {"strokeDash",
       {{"field", "source"},
        {"type", "nominal"},
        {"legend", {{"orient", "bottom"}, {"title", "curve"}}}}},
      {"detail", {{"field", "source"}, {"type", "nominal"}}}};
  return c;
}

}  // namespace

std::string BuildFgdReportHtml(const std::vector<FgdCurve>& curves,
                               const std::vector<FgdPublished>& published,
                               const std::string& subtitle) {
  if (!CheckReportBuilt().ok()) return "";
  std::vector<report::Chart> charts = {
      MetricChart("fgd-alloc", "GPU allocation", "allocated GPU (% of capacity)", FgdMetric::kAlloc,
                  curves, published),
      MetricChart("fgd-frag", "Fragmentation", "fragmented GPU (% of capacity)", FgdMetric::kFrag,
                  curves, published),
      MetricChart("fgd-frag-ratio", "Fragmentation ratio", "fragmented share of idle GPU (%)",
                  FgdMetric::kFragRatio, curves, published)};
  std::ostringstream os;
  report::PageHead(os, "utilsim fgd-experiment", "");
  os << "<h1>utilsim fgd-experiment</h1>\n<p class=\"sub\">" << report::HtmlEscape(subtitle)
     << "</p>\n"
     << "<p class=\"explain\">The FGD paper's arrival-only packing experiment (docs/packing.md): "
        "each line is one policy's mean over its seeds, point k the mean over the pods whose "
        "arrived GPU request rounds to k % of the capacity. Dashed: the FGD authors' simulator's "
        "published curve of the same policy, where given.</p>\n";
  os << "<table id=\"summary\"><thead><tr><th>policy</th><th>seeds</th><th>allocation "
        "@100 %</th><th>allocation @130 %</th><th>fragmentation @130 %</th></tr></thead><tbody>\n";
  auto at = [](const std::vector<double>& v, size_t k) {
    return k < v.size() && !std::isnan(v[k]) ? report::Fixed(100 * v[k], 2) + " %"
                                             : std::string("n/a");
  };
  for (const FgdCurve& c : curves)
    os << "<tr><td>" << report::HtmlEscape(c.policy) << "</td><td>" << c.runs.size() << "</td><td>"
       << at(c.alloc_mean, 100) << "</td><td>" << at(c.alloc_mean, 130) << "</td><td>"
       << at(c.frag_mean, 130) << "</td></tr>\n";
  os << "</tbody></table>\n";
  for (const report::Chart& c : charts) report::ChartBlock(os, c);
  os << "<pre id=\"report-check\" hidden></pre>\n";
  json data = {{"charts", json::array()}};
  for (const auto& c : charts) data["charts"].push_back({{"id", c.id}, {"spec", c.spec}});
  os << "<script type=\"application/json\" id=\"report-data\">"
     << report::ScriptSafeJson(data.dump(-1, ' ', false, json::error_handler_t::replace))
     << "</script>\n<script>" << report::kBootstrapJs << "</script>\n</body>\n</html>\n";
  return os.str();
}

}  // namespace utilsim
