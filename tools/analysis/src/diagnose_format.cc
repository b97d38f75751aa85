// Text and JSON output of `utilsim diagnose` (docs/diagnose.md).
#include <cmath>
#include <nlohmann/json.hpp>

#include "plan_text.h"
#include "utilsim/analysis/diagnose.h"

namespace utilsim {
namespace {

nlohmann::ordered_json Num(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Policy names, "(in use)" after the run's own queue or placement policy.
std::string Remedies(const IdleCauseRow& r, const Diagnosis& d) {
  std::vector<std::string> names;
  for (const auto& p : r.policies)
    names.push_back(p == d.queue_policy || p == d.placement_policy ? p + " (in use)" : p);
  std::string s = Join(names);
  if (!r.options.empty()) s += (s.empty() ? "" : "; ") + r.options;
  return s.empty() ? "none in this version" : s;
}

}  // namespace

std::string FormatDiagnosis(const std::vector<Diagnosis>& ds, const DiagnoseThresholds& th) {
  std::string out;
  for (size_t i = 0; i < ds.size(); ++i) {
    const Diagnosis& d = ds[i];
    if (i) out += "\n";
    out += "utilsim diagnose: " + d.label + " (queue " + d.queue_policy + ", placement " +
           d.placement_policy + ")\n";
    out += "workload: " + d.workload + " (" + std::to_string(d.jobs) +
           " jobs); cluster: " + d.cluster + " (" + std::to_string(d.capacity_gpus) +
           " GPUs); progress model: " + d.progress_model + "\n";
    out += "window: " + text::Fixed(d.window_start_s / 3600, 1) + " h .. " +
           text::Fixed(d.window_end_s / 3600, 1) + " h (" +
           text::Fixed((d.window_end_s - d.window_start_s) / 3600, 1) + " h)\n\n";
    for (size_t k = 0; k < d.answers.size(); ++k) {
      const DiagnoseAnswer& a = d.answers[k];
      const std::string verdict =
          std::isnan(a.value) || a.unknown ? "UNKNOWN" : (a.yes ? "YES" : "NO");
      out += std::to_string(k + 1) + ". " + a.question + "  " + verdict + ": " +
             text::Pct(a.value) + " (" + a.rule + ")\n";
      out += "   " + a.detail + "\n";
      if (a.id == "underused") out += "   " + d.mfu_note + "\n";
    }
    out += "\nWhere the idle allocated GPU time goes, and what addresses it:\n";
    text::Table t({"cause", "GPU-h", "share of idle", "addressed by"}, {true, false, false, true});
    for (const IdleCauseRow& r : d.causes) {
      if (std::isnan(r.share_pct) || !(r.gpu_h > 0)) continue;
      t.Add({r.cause, text::Fixed(r.gpu_h, 1), text::Pct(r.share_pct), Remedies(r, d)});
    }
    out += t.Render("  ");
    out += "\nGPU time lost outside allocations:\n";
    text::Table u({"cause", "GPU-h", "addressed by"}, {true, false, true});
    for (const IdleCauseRow& r : d.causes)
      if (std::isnan(r.share_pct)) u.Add({r.cause, text::Fixed(r.gpu_h, 1), Remedies(r, d)});
    out += u.Render("  ");
    const double gpu = d.energy_gpu_kwh;
    out += "\nEnergy (IT, GPUs): " + text::Fixed(gpu, 1) + " kWh; idle allocated GPUs drew " +
           text::Fixed(d.energy_alloc_idle_kwh, 1) + " kWh (" +
           text::Fixed(gpu > 0 ? 100 * d.energy_alloc_idle_kwh / gpu : 0, 1) + " %), free GPUs " +
           text::Fixed(d.energy_free_kwh, 1) + " kWh; the idle allocated " + "share costs " +
           text::Fixed(d.idle_alloc_energy_cost, 2) + " at " +
           text::Fixed(d.energy_price_per_kwh, 3) + "/kWh and PUE " + text::Fixed(d.pue, 2) +
           " (facility total " + text::Fixed(d.energy_facility_kwh, 1) + " kWh)\n";
    double queued = 0;
    for (const auto& [c, h] : d.wait_causes_h) queued += h;
    out += "\nWhy jobs waited (queued job-hours by primary cause, docs/explain.md):";
    if (d.wait_causes_h.empty()) out += " no job waited";
    for (size_t k = 0; k < d.wait_causes_h.size() && k < 5; ++k)
      out += std::string(k ? "," : "") + " " + d.wait_causes_h[k].first + " " +
             text::Fixed(d.wait_causes_h[k].second, 1) + " h (" +
             text::Fixed(100 * d.wait_causes_h[k].second / queued, 0) + " %)";
    out += "\n";
    const double down = d.down_absent_gpu_h + d.down_maintenance_gpu_h + d.down_failure_gpu_h;
    if (down > 0 || d.interruptions > 0) {
      // Is capacity lost to failures and maintenance a cause of long queues?
      // Yes when at least a tenth of the queued job-hours waited on it.
      out += "\nCapacity that changed (docs/cluster-events.md): " + text::Fixed(down, 1) +
             " GPU-h down (" + text::Fixed(d.down_pct, 1) +
             " % of the installed GPU time; absent " + text::Fixed(d.down_absent_gpu_h, 1) +
             ", maintenance " + text::Fixed(d.down_maintenance_gpu_h, 1) + ", failure " +
             text::Fixed(d.down_failure_gpu_h, 1) + "); " + std::to_string(d.interruptions) +
             " interruptions lost " + text::Fixed(d.lost_gpu_h, 1) +
             " GPU-h of work; finished jobs' mean ETTR " + text::Fixed(d.ettr_mean, 3) +
             ". Jobs waited " + text::Fixed(d.nodes_down_wait_h, 1) + " h (" +
             text::Fixed(d.nodes_down_wait_pct, 0) +
             " % of queued job-hours) for nodes that were down: " +
             (d.nodes_down_wait_pct >= 10 ? "lost capacity IS a cause of the queues"
                                          : "lost capacity is not a main cause of the queues") +
             ".\n";
    }
  }
  out += "\nThresholds: allocation >= " + text::Fixed(th.high_allocation_pct, 0) + " %; idle > " +
         text::Fixed(th.idle_share_pct, 0) +
         " % of allocated GPU-h; full = >= " + text::Fixed(th.full_allocation_pct, 0) +
         " % allocated, for >= " + text::Fixed(th.full_and_queued_pct, 0) +
         " % of the window (docs/diagnose.md). Figures cover the measurement window; waits "
         "cover every job.\n";
  return out;
}

std::string DiagnosisJson(const std::vector<Diagnosis>& ds, const DiagnoseThresholds& th) {
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const Diagnosis& d : ds) {
    nlohmann::ordered_json j;
    j["label"] = d.label;
    j["queue_policy"] = d.queue_policy;
    j["placement_policy"] = d.placement_policy;
    j["workload"] = d.workload;
    j["cluster"] = d.cluster;
    j["progress_model"] = d.progress_model;
    j["capacity_gpus"] = d.capacity_gpus;
    j["jobs"] = d.jobs;
    j["window_start_s"] = d.window_start_s;
    j["window_end_s"] = d.window_end_s;
    nlohmann::ordered_json qs = nlohmann::ordered_json::array();
    for (const auto& a : d.answers)
      qs.push_back(
          {{"id", a.id},
           {"question", a.question},
           {"value", Num(a.value)},
           {"unit", a.unit},
           {"rule", a.rule},
           {"verdict", std::isnan(a.value) || a.unknown ? "unknown" : (a.yes ? "yes" : "no")},
           {"detail", a.detail}});
    j["answers"] = qs;
    j["window_samples"] = d.window_samples;
    j["full_and_queued_pct"] = Num(d.full_and_queued_pct);
    j["queued_pct"] = Num(d.queued_pct);
    j["busy_when_full_pct"] = Num(d.busy_when_full_pct);
    j["free_while_queued_gpu_h"] = Num(d.free_while_queued_gpu_h);
    j["mfu"] = {{"available", d.mfu_available}, {"note", d.mfu_note}};
    j["util_measured_pct"] = Num(d.util_measured_pct);
    j["energy"] = {{"gpu_kwh", Num(d.energy_gpu_kwh)},
                   {"alloc_idle_kwh", Num(d.energy_alloc_idle_kwh)},
                   {"free_kwh", Num(d.energy_free_kwh)},
                   {"facility_kwh", Num(d.energy_facility_kwh)},
                   {"pue", Num(d.pue)},
                   {"price_per_kwh", Num(d.energy_price_per_kwh)},
                   {"idle_alloc_cost", Num(d.idle_alloc_energy_cost)}};
    nlohmann::ordered_json waits = nlohmann::ordered_json::object();
    for (const auto& [c, h] : d.wait_causes_h) waits[c] = Num(h);
    j["wait_causes_h"] = waits;
    j["cluster_changes"] = {{"down_absent_gpu_h", Num(d.down_absent_gpu_h)},
                            {"down_maintenance_gpu_h", Num(d.down_maintenance_gpu_h)},
                            {"down_failure_gpu_h", Num(d.down_failure_gpu_h)},
                            {"down_pct", Num(d.down_pct)},
                            {"interruptions", d.interruptions},
                            {"lost_gpu_h", Num(d.lost_gpu_h)},
                            {"ettr_mean", Num(d.ettr_mean)},
                            {"nodes_down_wait_h", Num(d.nodes_down_wait_h)},
                            {"nodes_down_wait_pct", Num(d.nodes_down_wait_pct)}};
    nlohmann::ordered_json cs = nlohmann::ordered_json::array();
    for (const auto& r : d.causes)
      cs.push_back({{"cause", r.cause},
                    {"gpu_h", Num(r.gpu_h)},
                    {"share_of_idle_pct", Num(r.share_pct)},
                    {"policies", r.policies},
                    {"options", r.options},
                    {"note", r.note}});
    j["causes"] = cs;
    runs.push_back(j);
  }
  nlohmann::ordered_json out;
  out["thresholds"] = {{"high_allocation_pct", th.high_allocation_pct},
                       {"idle_share_pct", th.idle_share_pct},
                       {"full_allocation_pct", th.full_allocation_pct},
                       {"full_and_queued_pct", th.full_and_queued_pct}};
  out["runs"] = runs;
  return out.dump(2) + "\n";
}

}  // namespace utilsim
