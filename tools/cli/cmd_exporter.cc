// `utilsim exporter` (cmd_exporter.h): options and help, then the telemetry
// read with the telemetry readers (utilsim/io/formats.h), placed and served
// by utilsim::live (exporter.h). SIGTERM/SIGINT are blocked first thing
// (before the telemetry loads and any thread starts) and taken with
// sigtimedwait, so the server stops cleanly: exit 0.
#include "cmd_exporter.h"

#include <signal.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli_checks.h"
#include "cli_options.h"
#include "utilsim/io/formats.h"
#include "utilsim/live/exporter.h"

namespace utilsim::cli {

namespace {

constexpr char kPlacementGroup[] = "Placement";
constexpr char kServeGroup[] = "Serve";

Status ParseStart(const std::string& s, std::optional<double>* abs, std::optional<double>* rel) {
  const bool plus = !s.empty() && s[0] == '+';
  const std::string num = plus ? s.substr(1) : s;
  char* end = nullptr;
  const double v = std::strtod(num.c_str(), &end);
  if (num.empty() || end != num.c_str() + num.size() || !std::isfinite(v) ||
      std::fabs(v) > kMaxSeconds || (plus && v < 0))
    return Status::Error(
        "expected trace seconds (S) or seconds after the first sample (+S), got '" + s + "'");
  (plus ? *rel : *abs) = v;
  return Status::Ok();
}

std::vector<std::string> FormatNames() {
  std::vector<std::string> n;
  for (const auto& [name, desc] : TelemetryFormatList())
    if (name != "philly-windows") n.push_back(name);
  return n;
}

}  // namespace

CLI::App* AddExporterCommand(CLI::App* app, ExporterCliOptions& o) {
  CLI::App* cmd = app->add_subcommand(
      "exporter",
      "Replay recorded GPU telemetry as a dcgm-exporter: serves Prometheus text on GET /metrics "
      "(DCGM_FI_DEV_GPU_UTIL, DCGM_FI_PROF_* and DCGM_FI_DEV_FB_USED with dcgm-exporter's "
      "labels) whose values follow the trace at wall-clock speed x --speed, for testing "
      "Prometheus-fed schedulers (the live modes) without GPUs. Prints the bound HOST:PORT as "
      "one line on standard output; runs until SIGTERM or SIGINT (exit 0)");
  cmd->add_option("--telemetry", o.telemetry,
                  "Recorded telemetry, comma-separated files (or a folder of scrapes): "
                  "dcgm-exporter text, Prometheus query_range JSON, nvidia-smi CSV, DCGM field "
                  "CSV, alibaba-genai duty cycle CSV[,memory CSV] (docs/formats/telemetry.md)")
      ->required()
      ->group(kInputGroup);
  cmd->add_option("--telemetry-format", o.telemetry_format, "Telemetry format (default: detected)")
      ->check(checks::OneOf(FormatNames()))
      ->group(kInputGroup);
  cmd->add_option("--map", o.map,
                  "CSV placing recorded series: entity,node,gpu[,pod][,namespace] (entity as "
                  "--list-entities prints it; a blank pod/namespace keeps the series' own); "
                  "series not listed are not served")
      ->check(CLI::ExistingFile)
      ->group(kPlacementGroup);
  CLI::Option* nodes =
      cmd->add_option("--nodes", o.nodes,
                      "Place every series round-robin on this many nodes instead: series k (in "
                      "entity order) -> node <prefix>-(k mod N), GPU (k div N) mod G")
          ->transform(checks::Integer(1, 1'000'000))
          ->group(kPlacementGroup);
  cmd->get_option("--map")->excludes(nodes);
  cmd->add_option("--gpus-per-node", o.gpus_per_node, "G for --nodes")
      ->transform(checks::Integer(1, 1024))
      ->capture_default_str()
      ->group(kPlacementGroup);
  cmd->add_option("--node-prefix", o.node_prefix,
                  "Node names for --nodes: <prefix>-0, <prefix>-1, ... (as a cluster YAML names "
                  "a group's nodes)")
      ->capture_default_str()
      ->group(kPlacementGroup);
  cmd->add_flag("--list-entities", o.list_entities,
                "Print a --map CSV, one row per recorded entity, and exit: as placed by --map or "
                "--nodes, else as the source labels it (blank node/gpu where it does not)")
      ->group(kPlacementGroup);
  cmd->add_option("--listen", o.listen, "HOST:PORT to serve on (port 0: any free port)")
      ->check(checks::Parsed([](const std::string& s) { return live::ParseListen(s).status(); }))
      ->capture_default_str()
      ->group(kServeGroup);
  cmd->add_option("--speed", o.speed, "Trace seconds per wall-clock second")
      ->check(checks::Within(1e-6, 1e6, "a speed-up factor"))
      ->capture_default_str()
      ->group(kServeGroup);
  cmd->add_option("--start", o.start,
                  "Trace time served first: S (in the source's own clock, e.g. UNIX seconds) or "
                  "+S (seconds after the first sample); default: the first sample")
      ->check(checks::Parsed([](const std::string& s) {
        std::optional<double> a, r;
        return ParseStart(s, &a, &r);
      }))
      ->group(kServeGroup);
  cmd->add_flag("--loop", o.loop,
                "After the last sample (held one sample spacing), start again from --start")
      ->group(kServeGroup);
  cmd->add_option("--hold", o.hold_s,
                  "A sample is served until a newer one, for at most this many trace seconds "
                  "(then the series disappears, as an ended pod's); 0 = forever")
      ->check(checks::Within(0, kMaxSeconds, "seconds"))
      ->capture_default_str()
      ->group(kServeGroup);
  cmd->add_option("--hostname-label", o.hostname_label,
                  "Host label name: Hostname (released dcgm-exporters) or hostname (newer)")
      ->check(checks::OneOf({"Hostname", "hostname"}))
      ->capture_default_str()
      ->group(kServeGroup);
  cmd->add_option("--model-name", o.model_name, "The modelName label")
      ->capture_default_str()
      ->group(kServeGroup);
  cmd->add_option("--pod-namespace", o.pod_namespace,
                  "namespace label of pods the source names without one (e.g. GenAI pods)")
      ->capture_default_str()
      ->group(kServeGroup);
  cmd->footer(
      "\nServed value: each series' latest sample at or before trace time start + (wall time "
      "since start) x speed. Series that carry a host and gpu label are served on them; others "
      "(nvidia-smi, DCGM CSV, GenAI pods) need --nodes or --map. Entities are named "
      "'pod=NS/POD;container=C;host=H;gpu=N;instance=I' (the parts the source has). UUID is "
      "made up from node and gpu; pod/namespace/container labels appear when known.\n"
      "Examples:\n"
      "  utilsim exporter --telemetry scrapes.prom --listen 127.0.0.1:9400 --speed 10 --loop\n"
      "  utilsim exporter --telemetry pod_gpu_duty_cycle_anon.csv --nodes 16 --gpus-per-node 8\n"
      "  utilsim exporter --telemetry dcgm.csv --list-entities > map.csv  (edit, then --map "
      "map.csv)\n");
  return cmd;
}

Status ExporterCommand(const ExporterCliOptions& o) {
  // Blocked before anything else (the server's threads inherit the mask), so
  // a SIGTERM while the telemetry loads still ends in a clean exit 0.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  sigset_t pending;
  const std::vector<std::string> paths = SplitPaths(o.telemetry);
  std::string format = o.telemetry_format;
  if (format.empty()) {
    auto f = DetectTelemetryFormat(paths, "--telemetry");
    if (!f.ok()) return f.status();
    format = f.value();
    if (format == "philly-windows")
      return Status::Error(
          "--telemetry: Philly per-job windows have no absolute time; not replayable");
  }
  auto data = ReadTelemetry(format, paths, Workload{}, "--telemetry");
  if (!data.ok()) return data.status();
  for (const std::string& w : data.value().warnings.Lines())
    std::cerr << "utilsim exporter: warning: " << w << "\n";
  live::PlacementOptions place;
  place.map_path = o.map;
  place.nodes = o.nodes;
  place.gpus_per_node = o.gpus_per_node;
  place.node_prefix = o.node_prefix;
  live::ServeOptions serve;
  serve.hostname_label = o.hostname_label;
  serve.model_name = o.model_name;
  serve.pod_namespace = o.pod_namespace;
  serve.hold_s = o.hold_s;
  if (o.list_entities && o.map.empty() && o.nodes == 0) {
    std::cout << live::EntitySkeletonCsv(data.value());
    return Status::Ok();
  }
  std::vector<std::string> notes;
  auto replay = live::Replay::Build(data.value(), place, serve, &notes);
  if (!replay.ok()) return replay.status();  // names the map file:line where at fault
  if (o.list_entities) {
    std::cout << replay.value().MapCsv();
    return Status::Ok();
  }
  std::optional<double> abs, rel;
  if (!o.start.empty())
    if (Status s = ParseStart(o.start, &abs, &rel); !s.ok()) return s.Prefixed("--start: ");
  std::optional<Micros> start;
  if (abs) start = FromSeconds(*abs);
  if (rel) start = replay.value().first() + *FromSeconds(*rel);
  auto clock = replay.value().Clock(start, o.speed, o.loop);
  if (!clock.ok()) return clock.status().Prefixed("--start: ");
  auto listen = live::ParseListen(o.listen).value();  // checked when parsed

  const live::Replay& r = replay.value();
  const live::ReplayClock c = clock.value();
  const auto t0 = std::chrono::steady_clock::now();
  if (sigpending(&pending) == 0 &&
      (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM)))
    return Status::Ok();  // asked to stop while loading
  auto server = live::ExporterServer::Start(listen.first, listen.second, [&r, c, t0] {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r.Render(c.At(elapsed));
  });
  if (!server.ok()) return server.status().Prefixed("--listen: ");
  std::cout << server.value()->address() << std::endl;
  for (const std::string& n : notes) std::cerr << "utilsim exporter: " << n << "\n";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "utilsim exporter: http://%s/metrics: trace %.3f .. %.3f s from %.3f s at "
                "speed %g%s\n",
                server.value()->address().c_str(), r.first().seconds(), r.last().seconds(),
                c.start.seconds(), c.speed, c.loop ? ", looping" : "");
  std::cerr << buf << std::flush;
  const timespec tick{0, 200'000'000};
  while (server.value()->running()) {
    if (sigtimedwait(&sigs, nullptr, &tick) > 0) break;
  }
  const bool died = !server.value()->running();
  server.value()->Stop();
  if (died) return Status::Error("--listen: the server stopped unexpectedly");
  return Status::Ok();
}

}  // namespace utilsim::cli
