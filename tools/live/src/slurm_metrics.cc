// The Slurm advisor's /metrics text and /advice JSON (slurm_advisor.h).
#include <chrono>
#include <cstdio>
#include <sstream>

#include "exporter_labels.h"
#include "slurm_advisor_impl.h"

namespace utilsim::live {

using internal::EscapeLabel;
using nlohmann::json;

namespace {

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

void Help(std::ostringstream& o, const char* name, const char* type, const char* help) {
  o << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
}

}  // namespace

std::string SlurmAdvisor::MetricsText() const {
  const Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.mu);
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  std::ostringstream o;
  Help(o, "utilsim_slurm_up", "gauge", "1 when the last poll of Slurm succeeded.");
  o << "utilsim_slurm_up " << (m.ready && !m.in_error_streak ? 1 : 0) << "\n";
  Help(o, "utilsim_slurm_polls_total", "counter", "Polls of Slurm by outcome.");
  o << "utilsim_slurm_polls_total{outcome=\"ok\"} " << m.ok << "\n"
    << "utilsim_slurm_polls_total{outcome=\"error\"} " << m.failed << "\n";
  Help(o, "utilsim_slurm_state_age_seconds", "gauge",
       "Age of the state shown (since the last good poll; -1 never).");
  o << "utilsim_slurm_state_age_seconds "
    << (m.ready ? Num(static_cast<double>(now_ms - m.last_ok_ms) / 1000.0) : "-1") << "\n";
  if (!m.ready) return o.str();
  const SlurmUsage& u = m.usage;
  Help(o, "utilsim_slurm_gpus", "gauge",
       "GPUs: total, on schedulable nodes, allocated; with measurements, allocated GPUs with a "
       "fresh reading, their summed busy fraction and the idle rest.");
  o << "utilsim_slurm_gpus{state=\"total\"} " << u.gpus_total << "\n"
    << "utilsim_slurm_gpus{state=\"schedulable\"} " << u.gpus_schedulable << "\n"
    << "utilsim_slurm_gpus{state=\"allocated\"} " << u.gpus_allocated << "\n";
  if (m.has_measured)
    o << "utilsim_slurm_gpus{state=\"measured\"} " << u.gpus_measured << "\n"
      << "utilsim_slurm_gpus{state=\"busy\"} " << Num(u.gpus_busy) << "\n"
      << "utilsim_slurm_gpus{state=\"idle_allocated\"} "
      << Num(static_cast<double>(u.gpus_measured) - u.gpus_busy) << "\n";
  Help(o, "utilsim_slurm_node_gpus", "gauge",
       "Per node: allocated GPUs, stranded GPUs (free but the node's CPUs or memory are gone), "
       "and with measurements busy and idle allocated GPUs.");
  for (const auto& n : u.nodes) {
    const std::string l = "{node=\"" + EscapeLabel(n.name) + "\",state=\"";
    o << "utilsim_slurm_node_gpus" << l << "allocated\"} " << n.allocated << "\n";
    o << "utilsim_slurm_node_gpus" << l << "stranded\"} " << n.stranded << "\n";
    if (m.has_measured && n.measured > 0) {
      o << "utilsim_slurm_node_gpus" << l << "busy\"} " << Num(n.busy) << "\n";
      o << "utilsim_slurm_node_gpus" << l << "idle_allocated\"} "
        << Num(static_cast<double>(n.measured) - n.busy) << "\n";
    }
  }
  Help(o, "utilsim_slurm_job_gpus", "gauge",
       "Per running job and node: allocated GPUs, and with measurements idle allocated GPUs.");
  for (const auto& h : u.holdings) {
    const std::string l = "{job=\"" + EscapeLabel(h.job) + "\",node=\"" + EscapeLabel(h.node) +
                          "\",user=\"" + EscapeLabel(h.user) + "\",state=\"";
    o << "utilsim_slurm_job_gpus" << l << "allocated\"} " << h.gpus << "\n";
    if (m.has_measured && h.measured > 0)
      o << "utilsim_slurm_job_gpus" << l << "idle_allocated\"} "
        << Num(static_cast<double>(h.measured) - h.busy) << "\n";
  }
  size_t now_n = 0, later = 0, none = 0;
  for (const SlurmAdvice& a : m.latest) (a.now ? now_n : a.nodes.empty() ? none : later)++;
  Help(o, "utilsim_slurm_pending_gpu_jobs", "gauge", "Pending jobs that ask for GPUs.");
  o << "utilsim_slurm_pending_gpu_jobs " << m.pending_gpu_jobs << "\n";
  Help(o, "utilsim_slurm_advice_jobs", "gauge",
       "Advised jobs: placeable now, at an estimated later start, or with no placement.");
  o << "utilsim_slurm_advice_jobs{when=\"now\"} " << now_n << "\n"
    << "utilsim_slurm_advice_jobs{when=\"later\"} " << later << "\n"
    << "utilsim_slurm_advice_jobs{when=\"none\"} " << none << "\n";
  Help(o, "utilsim_slurm_advice_agreement_total", "counter",
       "Advised jobs Slurm started: on the advised nodes, on one of the ranked alternatives, "
       "elsewhere.");
  for (const char* k : {"same_nodes", "in_ranked", "other"}) {
    auto it = m.agreement.find(k);
    o << "utilsim_slurm_advice_agreement_total{result=\"" << k << "\"} "
      << (it == m.agreement.end() ? 0 : it->second) << "\n";
  }
  if (m.o.apply.enabled) {
    Help(o, "utilsim_slurm_apply_total", "counter", "Apply mode: pins by outcome.");
    for (const auto& [k, v] : m.apply)
      o << "utilsim_slurm_apply_total{outcome=\"" << k << "\"} " << v << "\n";
  }
  Help(o, "utilsim_slurm_unmodelled_holdings", "gauge",
       "Running jobs' holdings the model could not place (see the advice log's warnings).");
  o << "utilsim_slurm_unmodelled_holdings " << m.unmodelled << "\n";
  return o.str();
}

std::string SlurmAdvisor::AdviceJson() const {
  const Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.mu);
  json out = {{"ready", m.ready},
              {"time", m.last_ok_ms / 1000},
              {"policy", m.o.advice.policy},
              {"slurm", m.release},
              {"last_error", m.last_error}};
  json list = json::array();
  for (const SlurmAdvice& a : m.latest) list.push_back(AdviceJsonOf(a));
  out["advice"] = std::move(list);
  const SlurmUsage& u = m.usage;
  out["usage"] = {{"gpus_total", u.gpus_total},
                  {"gpus_allocated", u.gpus_allocated},
                  {"gpus_measured", u.gpus_measured},
                  {"gpus_busy", m.has_measured ? json(u.gpus_busy) : json(nullptr)}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace utilsim::live
