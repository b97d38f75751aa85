// `utilsim slurm advise`: the shadow advisor beside a running Slurm
// (docs/live-slurm.md). Polls Slurm (slurm_source.h), advises every pending
// GPU job (slurm_advisor.h), serves /advice and /metrics, and with --apply
// pins pending jobs of allowed partitions to the advised nodes; --revert
// undoes the pins of an apply log.
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "commands.h"
#include "utilsim/io/output_path.h"
#include "utilsim/live/exporter.h"
#include "utilsim/live/slurm_advisor.h"
#include "utilsim/traces/slurm_text.h"

namespace utilsim::cli {
namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }

// "600", "90s", "10m", "2h" -> seconds; -1 when not a duration.
int64_t DurationSeconds(const std::string& text) {
  if (text.empty()) return -1;
  size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (...) {
    return -1;
  }
  const std::string unit = text.substr(used);
  int64_t mul = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  if (mul == 0 || v < 0) return -1;
  return v * mul;
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty()) out.push_back(part);
  return out;
}

// "now", or the wait to the estimated start: +58s, +3m58s, +2h05m, +364d21h.
std::string When(const live::SlurmAdvice& a, int64_t now_s) {
  if (a.nodes.empty()) return "-";
  if (a.now) return "now";
  const int64_t d = std::max<int64_t>(0, a.est_start_unix - now_s);
  char buf[48];
  if (d < 60) {
    std::snprintf(buf, sizeof buf, "+%llds", static_cast<long long>(d));
  } else if (d < 3600) {
    std::snprintf(buf, sizeof buf, "+%lldm%02llds", static_cast<long long>(d / 60),
                  static_cast<long long>(d % 60));
  } else if (d < 86400) {
    std::snprintf(buf, sizeof buf, "+%lldh%02lldm", static_cast<long long>(d / 3600),
                  static_cast<long long>(d % 3600 / 60));
  } else {
    std::snprintf(buf, sizeof buf, "+%lldd%02lldh", static_cast<long long>(d / 86400),
                  static_cast<long long>(d % 86400 / 3600));
  }
  return buf;
}

// One row per advised job, columns padded to their widest cell.
void PrintAdvice(const std::vector<live::SlurmAdvice>& advice, int64_t now_s) {
  std::vector<std::vector<std::string>> rows = {
      {"job", "partition", "user", "tasks x GPUs", "start", "nodes", "slurm reason", "note"}};
  for (const auto& a : advice)
    rows.push_back({a.job, a.partition, a.user,
                    std::to_string(a.tasks) + " x " + std::to_string(a.task.gpus) +
                        (a.gpu_model.empty() ? "" : " " + a.gpu_model),
                    When(a, now_s), traces::CompressHostlist(a.nodes), a.slurm_reason, a.why});
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c)
      line += r[c] + (c + 1 < r.size() ? std::string(width[c] - r[c].size() + 2, ' ') : "");
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << "\n";
  }
  if (advice.empty()) std::cout << "(no pending GPU job)\n";
}

Result<std::unique_ptr<live::SlurmSource>> MakeSource(const SlurmCliOptions& s) {
  live::SlurmCommandOptions co;
  co.bin_dir = s.slurm_bin;
  co.timeout_ms = s.command_timeout_s * 1000;
  if (s.rest_url.empty()) return live::MakeCommandSource(co);
  live::SlurmRestOptions ro;
  ro.url = s.rest_url;
  ro.user = s.rest_user;
  ro.data_parser = s.rest_version;
  ro.timeout_ms = co.timeout_ms;
  ro.commands = co;
  std::ifstream in(s.rest_token_file);
  if (!in)
    return Status::Error(StatusCode::kIo, "--rest-token-file: cannot read " + s.rest_token_file);
  std::getline(in, ro.token);
  if (ro.token.rfind("SLURM_JWT=", 0) == 0) ro.token = ro.token.substr(10);
  while (!ro.token.empty() && (ro.token.back() == '\r' || ro.token.back() == ' '))
    ro.token.pop_back();
  return live::MakeRestSource(ro);
}

Result<std::unique_ptr<live::JsonlFile>> OpenLog(const std::string& path, const char* option,
                                                 const char* what) {
  OutputGuard guard{option, {}, false, what};
  if (Status st = CheckOutput(path, guard); !st.ok()) return st;
  return live::JsonlFile::Open(path, std::string(option) + " " + what);
}

}  // namespace

CLI::App* AddSlurmCommand(CLI::App* app, SlurmCliOptions& s) {
  CLI::App* slurm =
      app->add_subcommand("slurm", "Live mode beside a running Slurm cluster (docs/live-slurm.md)");
  slurm->require_subcommand(1);
  CLI::App* adv = slurm->add_subcommand(
      "advise",
      "Shadow advisor: polls Slurm (squeue/sinfo or slurmrestd), and for every pending GPU job "
      "computes where the placement policy would put it and when it could start, with the same "
      "policy code as the simulator. Writes the advice as JSON lines (--log), serves it on "
      "/advice and Prometheus metrics on /metrics (allocated vs measured-busy GPUs, idle "
      "allocated GPUs per node and job, how often Slurm agreed). Read-only unless --apply. "
      "Survives slurmctld restarts (backoff). `utilsim shadow-report LOG --sacct ...` compares "
      "the advice with what Slurm did. Stops on SIGINT/SIGTERM");
  adv->add_option("--policy", s.policy, "Placement policy or profile to advise with")
      ->capture_default_str();
  adv->add_option("--partitions", s.partitions,
                  "Advise only jobs of these partitions (comma-separated; default all)");
  adv->add_option("--poll", s.poll_s, "Seconds between polls of Slurm")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  adv->add_option("--max-backoff", s.max_backoff_s,
                  "Longest wait after failed polls, seconds (waits double from --poll)")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  adv->add_option("--rank-depth", s.rank_depth,
                  "Placements listed per job (the first is the advice)")
      ->check(CLI::Range(1, 20))
      ->capture_default_str();
  adv->add_option("--log", s.log, "Advice log: JSON lines appended (docs/live-slurm.md)")
      ->capture_default_str();
  adv->add_option("--listen", s.listen,
                  "HOST:PORT for /advice, /metrics, /healthz, /readyz (port 0 = any free port; "
                  "'none' = no server)")
      ->capture_default_str();
  adv->add_option("--slurm-bin", s.slurm_bin,
                  "Folder of squeue, sinfo and scontrol (default PATH)");
  adv->add_option("--command-timeout", s.command_timeout_s,
                  "Seconds a Slurm command may take before it is killed")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  adv->add_option("--rest", s.rest_url,
                  "Read Slurm through slurmrestd at this URL instead of the commands (JWT auth)");
  adv->add_option("--rest-user", s.rest_user, "User name for slurmrestd (X-SLURM-USER-NAME)");
  adv->add_option("--rest-token-file", s.rest_token_file,
                  "File holding the JWT (scontrol token's output, or the bare token)");
  adv->add_option("--rest-version", s.rest_version,
                  "slurmrestd data-parser version to pin (checked at start)")
      ->capture_default_str();
  adv->add_option("--prometheus", s.prometheus,
                  "Prometheus URL with dcgm-exporter series: measured busy per GPU, joined to "
                  "Slurm's jobs by node (Hostname label) and GPU index");
  adv->add_option("--metric", s.metric, "The busy series (DCGM_FI_DEV_GPU_UTIL, ..._PROF_...)")
      ->capture_default_str();
  adv->add_option("--scrape-interval", s.scrape_interval_s,
                  "dcgm-exporter's scrape interval, seconds: readings older than twice it are "
                  "unknown")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  adv->add_flag("--once", s.once, "Poll once, print the advice and exit");
  adv->add_option("--duration", s.duration,
                  "Stop after this long (e.g. 90s, 10m; default: until SIGINT/SIGTERM)");
  adv->add_flag("--apply", s.apply,
                "Pin pending jobs of --apply-partitions to the advised nodes (scontrol update "
                "JobId=.. ReqNodeList=..), rate-limited, logged to --apply-log, undone after "
                "--apply-deadline if the job is still pending");
  adv->add_option("--apply-partitions", s.apply_partitions,
                  "Partitions --apply may touch (required with --apply)");
  adv->add_option("--apply-rate", s.apply_rate, "Pins per minute at most")
      ->check(CLI::Range(0.1, 6000.0))
      ->capture_default_str();
  adv->add_option("--apply-deadline", s.apply_deadline,
                  "A pinned job still pending after this loses its pin (e.g. 600, 10m)")
      ->capture_default_str();
  adv->add_option("--apply-log", s.apply_log, "Apply log: JSON lines appended")
      ->capture_default_str();
  adv->add_option("--revert", s.revert,
                  "Undo every pin of this apply log whose job is still pending, then exit")
      ->check(CLI::ExistingFile);
  adv->add_option("--seed", s.seed, "Seed of policies that draw random numbers")
      ->capture_default_str();
  return slurm;
}

Status CheckSlurmOptions(const SlurmCliOptions& s) {
  auto usage = [](const std::string& m) { return Status::Error(StatusCode::kInvalidArgument, m); };
  if (!s.rest_url.empty() && (s.rest_user.empty() || s.rest_token_file.empty()))
    return usage("--rest: needs --rest-user and --rest-token-file");
  if (DurationSeconds(s.apply_deadline) < 0)
    return usage("--apply-deadline: '" + s.apply_deadline + "' is not a duration (600, 90s, 10m)");
  if (s.apply && Split(s.apply_partitions).empty())
    return usage("--apply: needs --apply-partitions (the partitions it may touch)");
  if (!s.apply && !s.apply_partitions.empty())
    return usage("--apply-partitions: only with --apply");
  if (!s.duration.empty() && DurationSeconds(s.duration) <= 0)
    return usage("--duration: '" + s.duration + "' is not a positive duration (90s, 10m)");
  if (s.listen != "none")
    if (auto l = live::ParseListen(s.listen); !l.ok()) return l.status().Prefixed("--listen: ");
  return Status::Ok();
}

Status SlurmCommand(const SlurmCliOptions& s, const PolicyRegistry& reg) {
  live::SlurmAdvisorOptions ao;
  ao.advice.policy = s.policy;
  ao.advice.registry = &reg;
  ao.advice.seed = s.seed;
  ao.advice.rank_depth = s.rank_depth;
  ao.advice.partitions = Split(s.partitions);
  ao.poll_s = s.poll_s;
  ao.max_backoff_s = s.max_backoff_s;
  ao.apply.enabled = s.apply;
  ao.apply.partitions = Split(s.apply_partitions);
  ao.apply.max_per_minute = s.apply_rate;
  ao.apply.deadline_s = DurationSeconds(s.apply_deadline);
  const int64_t duration = s.duration.empty() ? 0 : DurationSeconds(s.duration);
  std::pair<std::string, int> listen{"", -1};
  if (s.listen != "none" && !s.once && s.revert.empty())
    listen = live::ParseListen(s.listen).value();
  auto source = MakeSource(s);
  if (!source.ok()) return source.status();

  if (!s.revert.empty()) {
    auto log = live::JsonlFile::Open(s.revert, "--revert apply log");
    if (!log.ok()) return log.status();
    auto lines = live::RevertPins(s.revert, source.value().get(), log.value().get());
    if (!lines.ok()) return lines.status();
    for (const std::string& l : lines.value()) std::cout << l << "\n";
    return Status::Ok();
  }
  auto log = OpenLog(s.log, "--log", "advice log");
  if (!log.ok()) return log.status();
  std::unique_ptr<live::JsonlFile> apply_log;
  if (s.apply) {
    auto a = OpenLog(s.apply_log, "--apply-log", "apply log");
    if (!a.ok()) return a.status();
    apply_log = std::move(a).value();
  }
  std::unique_ptr<live::MeasuredUtil> util;
  if (!s.prometheus.empty()) {
    auto p = live::PromClient::Create(s.prometheus);
    if (!p.ok()) return p.status().Prefixed("--prometheus: ");
    live::MeasuredUtilOptions mo;
    mo.metric = s.metric;
    mo.scrape_interval_s = s.scrape_interval_s;
    mo.poll_s = std::max(1, std::min(s.poll_s, 15));
    util = std::make_unique<live::MeasuredUtil>(p.value(), mo);
    if (auto first = util->Poll(std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count());
        !first.ok())
      std::cerr << "utilsim slurm advise: prometheus: " << first.status().message()
                << " (retrying in the background)\n";
    util->Start();
  }
  live::SlurmAdvisor advisor(ao, source.value().get(), log.value().get(), apply_log.get(),
                             util.get());
  if (s.once) {
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    if (util) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (Status st = advisor.Poll(now_ms); !st.ok()) return st;
    PrintAdvice(advisor.advice(), now_ms / 1000);
    return Status::Ok();
  }
  std::unique_ptr<live::ExporterServer> server;
  if (listen.second >= 0) {
    live::ExporterServer::Routes routes;
    routes["/metrics"] = [&] {
      return live::ExporterServer::Reply{200, "text/plain; version=0.0.4; charset=utf-8",
                                         advisor.MetricsText()};
    };
    routes["/advice"] = [&] {
      return live::ExporterServer::Reply{200, "application/json", advisor.AdviceJson() + "\n"};
    };
    routes["/healthz"] = [] { return live::ExporterServer::Reply{200, "text/plain", "ok\n"}; };
    routes["/readyz"] = [&] {
      return advisor.ready() ? live::ExporterServer::Reply{200, "text/plain", "ready\n"}
                             : live::ExporterServer::Reply{
                                   503, "text/plain", "not ready: " + advisor.last_error() + "\n"};
    };
    auto srv = live::ExporterServer::Start(listen.first, listen.second, std::move(routes),
                                           "utilsim slurm advise");
    if (!srv.ok()) return srv.status().Prefixed("--listen: ");
    server = std::move(srv).value();
    std::cout << "utilsim slurm advise: serving http://" << server->address()
              << "/advice and /metrics" << std::endl;
  }
  std::cout << "utilsim slurm advise: " << s.policy << ", polling " << source.value()->Describe()
            << " every " << s.poll_s << " s, advice to " << s.log
            << (s.apply ? ", applying to partitions " + s.apply_partitions : ", shadow mode")
            << std::endl;
  g_stop = false;
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::thread timer;
  if (duration > 0)
    timer = std::thread([duration] {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(duration);
      while (!g_stop && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      g_stop = true;
    });
  advisor.Run(g_stop);
  if (timer.joinable()) timer.join();
  std::cout << "utilsim slurm advise: stopping after " << advisor.polls_ok() << " polls ("
            << advisor.polls_failed() << " failed)" << std::endl;
  if (server) server->Stop();
  if (util) util->Stop();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  return Status::Ok();
}

}  // namespace utilsim::cli
