// `utilsim serve k8s-extender`: the advisory kube-scheduler extender
// (docs/live-k8s.md). Reads the YAML config (utilsim/live/extender_config.h),
// lists and watches the cluster (kube_client.h), polls Prometheus
// (prometheus.h), serves the verbs (extender_server.h) until SIGINT or
// SIGTERM, then stops cleanly (exit 0).
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "cli_options.h"
#include "commands.h"
#include "utilsim/io/output_path.h"
#include "utilsim/live/extender_config.h"
#include "utilsim/live/extender_server.h"
#include "utilsim/live/kube_client.h"
#include "utilsim/live/prometheus.h"
#include "utilsim/live/shadow_log.h"
#include "utilsim/live/shadow_report.h"
#include "utilsim/live/slurm_report.h"

namespace utilsim::cli {
namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }

}  // namespace

CLI::App* AddServeCommand(CLI::App* app, ServeCliOptions& s) {
  CLI::App* serve = app->add_subcommand(
      "serve", "Run utilsim beside a real scheduler (live mode; docs/live-k8s.md)");
  serve->require_subcommand(1);
  CLI::App* ext = serve->add_subcommand(
      "k8s-extender",
      "An advisory kube-scheduler extender (filter, prioritize, preempt; bind only when "
      "enabled): scores nodes 0-10 with the same placement policy code as the simulator, from "
      "the cluster's nodes and pods (Kubernetes list+watch) and measured GPU utilization "
      "(dcgm-exporter series in Prometheus). Answers \"no opinion\" rather than late. Logs every "
      "request and binding to --shadow-log for `utilsim shadow-report`. Stops on SIGINT/SIGTERM");
  ext->add_option("--config", s.config,
                  "YAML configuration (docs/live-k8s.md, \"Configuration\"; every key optional)")
      ->required()
      ->check(CLI::ExistingFile);
  ext->add_option("--listen", s.listen,
                  "HOST:PORT to serve on, over the config's listen "
                  "(default 127.0.0.1:8888; port 0 = any free port)");
  ext->add_option("--shadow-log", s.shadow_log,
                  "Append every request, answer and binding seen as JSON lines to this file "
                  "(over the config's shadow_log)");
  ext->add_flag("--check", s.check, "Check the configuration, print it resolved, and exit");
  return serve;
}

Status ServeCommand(const ServeCliOptions& s, const PolicyRegistry& reg) {
  auto cfg = live::LoadExtenderConfig(s.config);
  if (!cfg.ok()) return cfg.status();
  live::ExtenderConfig c = std::move(cfg).value();
  if (!s.listen.empty())
    if (Status st = live::ParseListen(s.listen, &c.server); !st.ok())
      return st.Prefixed("--listen: ");
  if (!s.shadow_log.empty()) c.shadow_log = s.shadow_log;
  c.state.registry = &reg;
  auto state = live::LiveState::Create(c.state);
  if (!state.ok()) return state.status().Prefixed(s.config + ": policy: ");
  std::optional<live::KubeConfig> kube;
  if (c.in_cluster) {
    auto k = live::InClusterConfig();
    if (!k.ok()) return k.status().Prefixed("kubernetes.in_cluster: ");
    kube = k.value();
  } else if (!c.kubeconfig.empty()) {
    auto k = live::LoadKubeconfig(c.kubeconfig, c.context);
    if (!k.ok()) return k.status();
    kube = k.value();
  }
  std::optional<live::PromClient> prom;
  if (!c.prometheus_url.empty()) {
    auto p = live::PromClient::Create(c.prometheus_url);
    if (!p.ok()) return p.status().Prefixed("prometheus.url: ");
    prom = p.value();
  }
  if (s.check) {
    std::cout << "config " << s.config << ": ok\n"
              << "  listen " << c.server.host << ":" << c.server.port
              << (c.server.tls_cert_file.empty() ? " (http)" : " (https)") << "\n"
              << "  policy " << c.state.policy << ", rank_depth " << c.state.rank_depth
              << ", fallback_util " << c.state.fallback_util << "\n"
              << "  kubernetes "
              << (kube ? kube->server
                       : std::string("none (no cluster state: every answer is "
                                     "\"no opinion\")"))
              << "\n"
              << "  prometheus " << (prom ? c.prometheus_url + " " + c.metric : "none") << "\n"
              << "  safety threads " << c.server.threads << ", max_in_flight "
              << c.server.max_in_flight << ", deadline_ms " << c.server.deadline_ms
              << ", max_body_bytes " << c.server.max_body_bytes << "\n"
              << "  bind " << (c.server.bind_enabled ? "enabled" : "disabled") << "\n"
              << "  shadow_log " << (c.shadow_log.empty() ? "none" : c.shadow_log) << "\n";
    return Status::Ok();
  }
  std::unique_ptr<live::ShadowLog> log;
  if (!c.shadow_log.empty()) {
    // Appended to, so never an input of this command.
    OutputGuard guard{"shadow_log", {{"--config", s.config}}, false, "a shadow log"};
    if (!c.kubeconfig.empty()) guard.inputs.push_back({"kubernetes.kubeconfig", c.kubeconfig});
    if (Status st = CheckOutput(c.shadow_log, guard); !st.ok()) return st;
    auto l = live::ShadowLog::Open(c.shadow_log);
    if (!l.ok()) return l.status();
    log = std::move(l).value();
  }
  live::Extender extender(state.value().get(), c.extender);
  if (c.server.bind_enabled && !kube)
    return Status::Error(StatusCode::kInvalidArgument,
                         s.config + ": bind.enabled needs a kubernetes source to bind through");
  live::Extender::Binder binder;
  if (kube)
    binder = [k = *kube](const std::string& ns, const std::string& name, const std::string& uid,
                         const std::string& node) {
      const Status bound = live::BindPod(k, ns, name, uid, node);
      return bound.ok() ? std::string() : "utilsim: " + bound.message();
    };
  live::ExtenderServer server(c.server, &extender, state.value().get(), log.get(), binder);
  if (Status st = server.Start(); !st.ok()) return st;
  std::cout << "utilsim k8s-extender listening on "
            << (c.server.tls_cert_file.empty() ? "http://" : "https://") << c.server.host << ":"
            << server.port() << std::endl;
  std::unique_ptr<live::KubeCache> cache;
  if (kube) {
    live::KubeCacheOptions ko;
    ko.resync_s = c.resync_s;
    cache = std::make_unique<live::KubeCache>(*kube, ko, state.value().get());
    cache->Start();
  } else {
    std::cerr << "utilsim k8s-extender: no kubernetes source configured: every answer is "
                 "\"no opinion\"\n";
  }
  std::unique_ptr<live::MeasuredUtil> util;
  if (prom) {
    live::MeasuredUtilOptions mo;
    mo.metric = c.metric;
    mo.scrape_interval_s = c.scrape_interval_s;
    mo.poll_s = c.poll_s;
    util = std::make_unique<live::MeasuredUtil>(*prom, mo);
    util->Start();
  }
  g_stop = false;
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::shared_ptr<const live::MeasuredSnapshot> last;
  while (!g_stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (util) {
      auto now = util->Current();
      if (now && now != last) {
        state.value()->SetMeasured(now);
        last = now;
      }
    }
  }
  std::cout << "utilsim k8s-extender: stopping" << std::endl;
  server.Stop();
  if (util) util->Stop();
  if (cache) cache->Stop();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  return Status::Ok();
}

CLI::App* AddShadowReportCommand(CLI::App* app, ShadowReportCliOptions& s) {
  CLI::App* cmd = app->add_subcommand(
      "shadow-report",
      "What a live mode recommended against what the scheduler did. From the Kubernetes "
      "extender's shadow log (--shadow-log of `serve k8s-extender`): answers per verb with "
      "latency, agreement rate of the bindings with the recommendation, and for the bindings "
      "elsewhere the chosen vs recommended nodes' measured busy fraction, partly used and "
      "stranded GPUs (docs/live-k8s.md; replay the pods with `utilsim compare --trace LOG "
      "--format k8s-shadow`). From the Slurm advisor's advice log (--log of `slurm advise`): "
      "per job the advised vs Slurm's nodes, agreement, pins, recorded waits with --sacct, "
      "stranded GPUs, and with --sacct and --cluster the history replayed offline under "
      "Slurm's decisions and the advised policy (docs/live-slurm.md)");
  cmd->add_option("log", s.log, "The shadow log or advice log (JSON lines; detected)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", s.json, "Print the figures as one JSON object");
  cmd->add_flag("--pods", s.pods, "Add one row per binding (per job for a Slurm log)");
  cmd->add_option("--sacct", s.sacct,
                  "Slurm advice logs: the sacct history of the same period (docs/live-slurm.md: "
                  "recorded waits; with --cluster, the offline replay)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--cluster", s.cluster,
                  "Slurm advice logs: the cluster (slurm.conf or YAML) to replay the history on")
      ->check(CLI::ExistingFile);
  cmd->add_option("--replay-policies", s.replay_policies,
                  "Slurm advice logs: the replay's policies (default as-recorded, "
                  "as-recorded+P and easy-backfill+P, P the advised placement)");
  cmd->add_option("--out", s.out, "Slurm advice logs: write the replay's results database");
  return cmd;
}

bool SlurmReplayWanted(const ShadowReportCliOptions& s, std::vector<std::string>* policies) {
  if (s.sacct.empty() || s.cluster.empty() || !live::IsSlurmAdviceLog(s.log)) return false;
  policies->clear();
  std::stringstream in(s.replay_policies);
  for (std::string p; std::getline(in, p, ',');)
    if (!p.empty()) policies->push_back(p);
  if (policies->empty()) {
    auto r = live::ReadSlurmReport(s.log, "");
    const std::string p = r.ok() && !r.value().policy.empty() ? r.value().policy : "best-fit";
    *policies = {"as-recorded", "as-recorded+" + p, "easy-backfill+" + p};
  }
  return true;
}

Status ShadowReportCommand(const ShadowReportCliOptions& s) {
  if (live::IsSlurmAdviceLog(s.log)) {
    auto r = live::ReadSlurmReport(s.log, s.sacct);
    if (!r.ok()) return r.status();
    std::cout << (s.json ? live::SlurmReportJson(r.value()) + "\n"
                         : live::FormatSlurmReport(r.value(), s.pods));
    return Status::Ok();
  }
  if (!s.sacct.empty() || !s.cluster.empty() || !s.out.empty() || !s.replay_policies.empty())
    return Status::Error(StatusCode::kInvalidArgument,
                         "--sacct, --cluster, --replay-policies and --out are for Slurm advice "
                         "logs; " +
                             s.log + " is a Kubernetes shadow log");
  auto r = live::ReadShadowReport(s.log);
  if (!r.ok()) return r.status();
  std::cout << (s.json ? live::ShadowReportJson(r.value()) + "\n"
                       : live::FormatShadowReport(r.value(), s.pods));
  return Status::Ok();
}

}  // namespace utilsim::cli
