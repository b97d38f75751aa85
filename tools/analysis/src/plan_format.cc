// Text and JSON output of `utilsim plan` (docs/planning.md).
#include <cmath>
#include <nlohmann/json.hpp>

#include "plan_text.h"
#include "utilsim/analysis/plan.h"

namespace utilsim {
namespace {

std::string TargetsText(const std::vector<PlanTarget>& targets) {
  std::string s;
  for (const auto& t : targets)
    s += (s.empty() ? "" : " and ") + std::string(PlanTargetMetric(t)) +
         " <= " + text::Duration(t.limit_s);
  return s;
}

// " (N jobs not run)" when the point did not run every job the largest
// candidate ran.
std::string NotRunText(const PlanPoint& p) {
  if (p.runs_all) return "";
  return " (" + std::to_string(p.summary.rejected + p.summary.unfinished) + " jobs not run)";
}

// "1.2 h", "1.2 h (3 jobs not run)" or "> 2.0 h (stopped)".
std::string FigureText(const PlanPoint& p, const PlanTarget& t, size_t k) {
  if (p.stopped_early) return "> " + text::Duration(t.limit_s) + " (stopped)";
  return text::Duration(p.figures[k]) + NotRunText(p);
}

double WindowH(const Summary& s) { return (s.window_end - s.window_start).seconds() / 3600; }

nlohmann::ordered_json Num(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
}

nlohmann::ordered_json PointJson(const PlanPoint& p, const PlanResult& r) {
  nlohmann::ordered_json j;
  j["nodes"] = p.nodes;
  j["gpus"] = p.gpus;
  j["meets"] = p.meets;
  j["runs_all_jobs"] = p.runs_all;
  j["stopped_early"] = p.stopped_early;
  if (p.stopped_early) {
    j["stopped_at_s"] = p.stopped_at_s;
    return j;
  }
  nlohmann::ordered_json f = nlohmann::ordered_json::object();
  for (size_t k = 0; k < r.targets.size(); ++k)
    f[PlanTargetMetric(r.targets[k]) + std::string("_s")] = Num(p.figures[k]);
  j["figures"] = f;
  const Summary& s = p.summary;
  j["allocation_pct"] = Num(s.allocation_pct);
  j["effective_util_pct"] = Num(s.effective_util_pct);
  j["wait_mean_s"] = Num(s.wait_mean_s);
  j["wait_p95_s"] = Num(s.wait_p95_s);
  j["wait_p99_s"] = Num(s.wait_p99_s);
  j["rejected"] = s.rejected;
  j["unfinished"] = s.unfinished;
  return j;
}

}  // namespace

std::string FormatPlan(const PlanResult& r) {
  std::string out =
      "utilsim plan: the smallest cluster per policy meeting " + TargetsText(r.targets) + "\n";
  out += "workload: " + r.workload_source + " (" + std::to_string(r.jobs) + " jobs)\n";
  out += "cluster as given: " + r.cluster_name + " (" + std::to_string(r.given_nodes) + " nodes, " +
         std::to_string(r.given_gpus) + " GPUs); " + std::to_string(r.candidates.size()) +
         " candidate sizes, " + std::to_string(r.candidates.front()) + " .. " +
         std::to_string(r.candidates.back()) + " nodes (--step " + r.step + ", --max-scale " +
         text::Fixed(r.max_scale, 2) + "); " + std::to_string(r.runs) + " runs\n";
  out += "price " + text::Fixed(r.price_per_gpu_h, 2) +
         " per GPU-hour; allocation and effective utilization over the " + r.window + " window\n\n";

  std::vector<std::string> head = {"policy",   "meets",      "GPUs",     "nodes",
                                   "vs given", "allocation", "eff. util"};
  for (const auto& t : r.targets) head.push_back(PlanTargetMetric(t));
  head.push_back("next smaller");
  for (const auto& t : r.targets) head.push_back(std::string(PlanTargetMetric(t)) + " there");
  head.push_back("cost/h");
  head.push_back("window cost");
  std::vector<bool> left(head.size(), false);
  left[1] = true;
  text::Table table(head, left);
  for (const auto& p : r.policies) {
    const PlanPoint& c = p.chosen;
    std::vector<std::string> row = {
        p.policy,
        p.met ? "yes" : "NO (largest)",
        std::to_string(c.gpus),
        std::to_string(c.nodes),
        text::Pct(100.0 * static_cast<double>(c.gpus) / static_cast<double>(r.given_gpus)),
        text::Pct(c.summary.allocation_pct),
        text::Pct(c.summary.effective_util_pct)};
    for (size_t k = 0; k < r.targets.size(); ++k) row.push_back(FigureText(c, r.targets[k], k));
    if (p.below) {
      row.push_back(std::to_string(p.below->gpus) + " GPUs");
      for (size_t k = 0; k < r.targets.size(); ++k)
        row.push_back(FigureText(*p.below, r.targets[k], k));
    } else {
      row.push_back(p.met ? "none (smallest)" : "-");
      for (size_t k = 0; k < r.targets.size(); ++k) row.push_back("-");
    }
    const double per_h = static_cast<double>(c.gpus) * r.price_per_gpu_h;
    row.push_back(text::Fixed(per_h, 2));
    row.push_back(text::Fixed(per_h * WindowH(c.summary), 2));
    table.Add(row);
  }
  out += table.Render();

  out += "\nCandidates evaluated (GPUs: " + std::string(PlanTargetMetric(r.targets[0])) +
         "; * meets every target):\n";
  for (const auto& p : r.policies) {
    std::string line = "  " + p.policy + ":";
    for (const auto& e : p.evaluated) {
      line += " " + std::to_string(e.gpus) + ": " +
              (e.stopped_early ? "> " + text::Duration(r.targets[0].limit_s)
                               : text::Duration(e.figures[0]) + NotRunText(e)) +
              (e.meets ? "*" : "") + ",";
    }
    line.pop_back();
    out += line + "\n";
  }
  bool unmet = false;
  for (const auto& p : r.policies) unmet |= !p.met;
  if (unmet)
    out += "\nNO: no candidate up to " + std::to_string(r.candidates.back()) +
           " nodes meets the target for the policies marked NO; their row shows the largest "
           "candidate (raise --max-scale, or relax --target).\n";
  out +=
      "\nWaits are not guaranteed to fall as the cluster grows, so the result is the smallest "
      "evaluated size that meets the target while the evaluated size just below it does not "
      "(docs/planning.md). \"(stopped)\": the run was stopped once the target could no longer "
      "be met. \"jobs not run\": rejected or unfinished jobs beyond those of the largest "
      "candidate, which fails the target. cost/h = GPUs x price; window cost = cost/h x the "
      "measurement window.\n";
  return out;
}

std::string PlanJson(const PlanResult& r) {
  nlohmann::ordered_json j;
  j["workload"] = r.workload_source;
  j["jobs"] = r.jobs;
  j["cluster"] = {{"name", r.cluster_name}, {"nodes", r.given_nodes}, {"gpus", r.given_gpus}};
  nlohmann::ordered_json targets = nlohmann::ordered_json::array();
  for (const auto& t : r.targets)
    targets.push_back({{"metric", PlanTargetMetric(t)}, {"limit_s", t.limit_s}});
  j["targets"] = targets;
  j["step"] = r.step;
  j["max_scale"] = r.max_scale;
  j["candidate_nodes"] = r.candidates;
  j["candidate_gpus"] = r.candidate_gpus;
  j["price_per_gpu_h"] = r.price_per_gpu_h;
  j["window"] = r.window;
  j["runs"] = r.runs;
  nlohmann::ordered_json pols = nlohmann::ordered_json::array();
  for (const auto& p : r.policies) {
    nlohmann::ordered_json q;
    q["policy"] = p.policy;
    q["met"] = p.met;
    q["gpus"] = p.chosen.gpus;
    q["nodes"] = p.chosen.nodes;
    q["chosen"] = PointJson(p.chosen, r);
    q["below"] = p.below ? PointJson(*p.below, r) : nlohmann::ordered_json();
    const double per_h = static_cast<double>(p.chosen.gpus) * r.price_per_gpu_h;
    q["cost_per_h"] = per_h;
    q["window_h"] = WindowH(p.chosen.summary);
    q["window_cost"] = per_h * WindowH(p.chosen.summary);
    nlohmann::ordered_json ev = nlohmann::ordered_json::array();
    for (const auto& e : p.evaluated) ev.push_back(PointJson(e, r));
    q["evaluated"] = ev;
    pols.push_back(q);
  }
  j["policies"] = pols;
  return j.dump(2) + "\n";
}

}  // namespace utilsim
