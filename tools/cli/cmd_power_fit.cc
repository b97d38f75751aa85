// `utilsim power-fit` (docs/energy.md, "Calibration"): the GPU power model
// fitted on the Acme trace summary (the cross-cluster check, the fit as a
// power file for `--power`), or on telemetry with power beside utilization
// (a fit per GPU model, workloads/power_telemetry_fit.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli_checks.h"
#include "commands.h"
#include "utilsim/io/formats.h"
#include "utilsim/traces/telemetry.h"
#include "utilsim/workloads/power_fit.h"
#include "utilsim/workloads/power_telemetry_fit.h"

namespace utilsim::cli {
namespace {

std::string Num(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

CLI::App* AddPowerFitCommand(CLI::App* app, PowerFitCliOptions& s) {
  CLI::App* cmd = app->add_subcommand(
      "power-fit",
      "Fit the GPU power model (idle, context and active watts, docs/energy.md) on the Acme "
      "trace summary's utilization and power distributions (Seren, Kalos), check each fit on "
      "the other cluster (Kolmogorov-Smirnov distance of the predicted power distribution), and "
      "print the node overhead; or, with --telemetry, per GPU model on telemetry that records "
      "board power beside utilization. --yaml prints the fit as a power file for `run --power`");
  cmd->add_option("csv", s.csv,
                  "The Acme summary's util_cdf_long.csv ($UTILSIM_TRACES/acmetrace-summary); "
                  "give it or --telemetry")
      ->check(CLI::ExistingFile);
  cmd->add_option("--telemetry", s.telemetry,
                  "Telemetry with board power beside utilization (comma-separated files, or a "
                  "folder of scrapes): dcgm-exporter text with DCGM_FI_DEV_POWER_USAGE, "
                  "Prometheus query_range JSON (utilization and power queries as separate "
                  "files), nvidia-smi CSV with power.draw, DCGM field CSV with POWER. "
                  "idle_w, context_w: median power at busy 0 on GPUs without / with a job or "
                  "pod; active_w: the least-squares line of power on busy (busy > 0, GPUs with a "
                  "job) at busy 1");
  // The telemetry formats that can carry power (of TelemetryFormatList()).
  cmd->add_option("--telemetry-format", s.telemetry_format,
                  "Telemetry format (default: detected; `utilsim formats` lists them)")
      ->check(checks::OneOf({"dcgm-exporter", "prom-json", "nvidia-smi", "dcgm-csv"}));
  cmd->add_option("--signal", s.signal,
                  "Busy signal of the telemetry fit (default: sm_active where present, else "
                  "gr_engine_active, else gpu_util)")
      ->check(checks::OneOf({"gpu_util", "sm_active", "gr_engine_active"}));
  cmd->add_flag("--yaml", s.yaml,
                "Print only a power file (YAML): with the csv, the Seren GPU-utilization fit for "
                "the A100-SXM4-80GB and Acme's node overhead; with --telemetry, every model's fit "
                "under the model name the telemetry gives");
  cmd->callback([cmd, &s] {
    if (s.csv.empty() == s.telemetry.empty()) {
      const std::string got = s.csv.empty() ? "neither" : "both";
      throw CLI::ValidationError("power-fit",
                                 "expected the Acme summary CSV or --telemetry FILE, got " + got);
    }
    for (const char* name : {"--telemetry-format", "--signal"}) {
      if (s.telemetry.empty() && cmd->count(name) > 0)
        throw CLI::ValidationError(name, "only with --telemetry");
    }
  });
  return cmd;
}

namespace {

// "pod 'p' host 'h' gpu 1" (the parts the track has).
std::string TrackName(const traces::UtilTrack& t) {
  std::string s;
  auto add = [&s](const std::string& part) { s += (s.empty() ? "" : " ") + part; };
  if (!t.job.empty()) add("pod '" + t.job + "'");
  if (!t.host.empty()) add("host '" + t.host + "'");
  if (t.gpu >= 0) add("gpu " + std::to_string(t.gpu));
  if (!t.gpu_instance.empty()) add("instance '" + t.gpu_instance + "'");
  return s;
}

// The power file's name of a model as the telemetry writes it: without the
// vendor's "NVIDIA " prefix, spaces as '-' ("NVIDIA A100-SXM4-80GB" ->
// "A100-SXM4-80GB", the name of utilsim's clusters and power table).
std::string PowerFileModel(const std::string& name) {
  std::string out = name;
  if (out.size() > 7 && (out.compare(0, 7, "NVIDIA ") == 0 || out.compare(0, 7, "nvidia ") == 0))
    out.erase(0, 7);
  std::replace(out.begin(), out.end(), ' ', '-');
  return out;
}

// A YAML double-quoted scalar.
std::string Quoted(const std::string& v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// Reads --telemetry: the format given or detected, as `run --telemetry`
// does; several query_range JSON files are read together (utilization and
// power come from separate queries).
Result<traces::TelemetryData> ReadPowerTelemetry(const PowerFitCliOptions& s, std::string* format) {
  const std::vector<std::string> paths = SplitPaths(s.telemetry);
  *format = s.telemetry_format;
  if (format->empty()) {
    auto f = DetectTelemetryFormat(paths, "--telemetry");
    if (!f.ok()) return f.status();
    *format = f.value();
  }
  if (*format == "philly-windows" || *format == "genai") {
    return Status::Error("--telemetry: " + *format + " has no GPU power (expected dcgm-exporter, " +
                         "prom-json, nvidia-smi or dcgm-csv)");
  }
  if (*format == "prom-json") {
    std::vector<traces::PromQueryFile> files;
    for (const std::string& p : paths) files.push_back({p, ""});
    return traces::ReadPromQueryRange(files);
  }
  if (paths.size() > 1) {
    return Status::Error("--telemetry: " + *format +
                         " reads one file (or a folder of scrapes), got " +
                         std::to_string(paths.size()));
  }
  return ReadTelemetry(*format, paths, Workload{}, "--telemetry");
}

Status TelemetryPowerFit(const PowerFitCliOptions& s) {
  std::string format;
  auto data = ReadPowerTelemetry(s, &format);
  if (!data.ok()) return data.status();
  for (const std::string& w : data.value().warnings.Lines())
    std::cerr << "utilsim power-fit: warning: " << w << "\n";
  const std::vector<traces::UtilTrack>& tracks = data.value().tracks;
  std::vector<std::string> names;
  names.reserve(tracks.size());
  std::vector<PowerSeries> series;
  for (const traces::UtilTrack& t : tracks) {
    names.push_back(TrackName(t));
    series.push_back({names.back(), t.model, !t.job.empty(), t.signal, t.busy, t.power_w});
  }
  PowerTelemetryFitOptions opt;
  for (UtilSignal sig : {UtilSignal::kGpuUtil, UtilSignal::kSmActive, UtilSignal::kGrEngineActive})
    if (s.signal == UtilSignalName(sig)) opt.signal = sig;
  auto fit = FitPowerOnTelemetry(series, opt);
  if (!fit.ok()) return fit.status().Prefixed(s.telemetry + ": ");
  const PowerTelemetryFit& f = fit.value();
  const std::string signal = UtilSignalName(f.signal);
  if (s.yaml) {
    std::cout
        << "# utilsim power-fit --telemetry " << s.telemetry << " (" << signal << ")\n"
        << "# idle_w, context_w: median power at busy 0 on GPUs without / with a job;\n"
        << "# active_w: the least-squares line of power on busy at busy 1 (docs/energy.md).\n"
        << "# Model names as the telemetry writes them, without \"NVIDIA \" and with '-' for\n"
        << "# spaces: `run --power` matches them to the cluster's GPU model names exactly,\n"
        << "# then case-insensitively; rename an entry that names your model otherwise.\n"
        << "models:\n";
    for (const ModelPowerTelemetryFit& m : f.models) {
      std::cout << "  " << Quoted(PowerFileModel(m.model))
                << ": {idle_w: " << Num(m.power.idle_w, 1)
                << ", context_w: " << Num(m.power.context_w, 1)
                << ", active_w: " << Num(m.power.active_w, 1) << "}\n";
    }
    return Status::Ok();
  }
  std::cout << "Power model fitted on " << s.telemetry << " (" << format << "), busy signal "
            << signal << ": " << f.series << " series, " << f.samples << " samples, "
            << f.samples_without_power << " without power\n";
  size_t width = 5;
  for (const ModelPowerTelemetryFit& m : f.models) width = std::max(width, m.model.size());
  char line[512];
  std::snprintf(line, sizeof line, "  %-*s  %6s  %9s  %8s  %6s  %9s  %8s  %9s  %6s  %5s\n",
                static_cast<int>(width), "model", "n idle", "n context", "n active", "idle_w",
                "context_w", "active_w", "intercept", "R2", "RMS");
  std::cout << line;
  for (const ModelPowerTelemetryFit& m : f.models) {
    std::snprintf(line, sizeof line,
                  "  %-*s  %6lld  %9lld  %8lld  %6.1f  %9.1f  %8.1f  %9.1f  %6.4f  %5.1f W\n",
                  static_cast<int>(width), m.model.c_str(), static_cast<long long>(m.n_idle),
                  static_cast<long long>(m.n_context), static_cast<long long>(m.n_active),
                  m.power.idle_w, m.power.context_w, m.power.active_w, m.intercept_w, m.r2,
                  m.rms_w);
    std::cout << line;
  }
  for (const ModelPowerTelemetryFit& m : f.models) {
    if (m.n_busy_unallocated > 0) {
      std::cout << "Not used: " << m.n_busy_unallocated << " samples of " << m.model
                << " busy on a GPU without a job\n";
    }
  }
  for (const std::string& m : f.models_without_power)
    std::cout << "Not fitted: " << m << " (no power values)\n";
  std::cout << "idle_w, context_w: median power at busy 0 on GPUs without / with a job.\n"
               "active_w = intercept + slope of the least-squares line of power on busy (busy > "
               "0, GPUs with a job); R2, RMS: that line's.\n";
  return Status::Ok();
}

}  // namespace

Status PowerFitCommand(const PowerFitCliOptions& s) {
  if (!s.telemetry.empty()) return TelemetryPowerFit(s);
  auto check = AcmePowerCrossCheck(s.csv);
  if (!check.ok()) return check.status();
  const AcmePowerCheck& c = check.value();
  const PowerFit* seren = nullptr;
  for (const PowerFitRow& f : c.fits)
    if (f.busy_signal == "gpu_util" && f.cluster == "seren") seren = &f.fit;
  if (s.yaml) {
    if (seren == nullptr) return Status::Error(s.csv + ": no Seren GPU-utilization fit");
    std::cout << "# utilsim power-fit " << s.csv << "\n"
              << "# Seren GPU-utilization fit (docs/energy.md); node overhead: mean GPU-server\n"
              << "# power minus 8 x mean GPU power, per GPU; CPU-only nodes: their mean.\n"
              << "node_w_per_gpu: " << Num(c.node.mean_w / 8, 1) << "\n"
              << "cpu_node_w: " << Num(c.node.cpu_node_mean_w, 1) << "\n"
              << "models:\n"
              << "  A100-SXM4-80GB: {idle_w: " << Num(seren->power.idle_w, 1)
              << ", context_w: " << Num(seren->power.context_w, 1)
              << ", active_w: " << Num(seren->power.active_w, 1) << "}\n";
    return Status::Ok();
  }
  std::cout << "Fits (rank-coupled, one rule for every cluster; docs/energy.md):\n"
            << "  signal     cluster       idle_w  context_w  active_w  zero mass  free share"
               "  observed mean\n";
  for (const PowerFitRow& f : c.fits) {
    char line[160];
    std::snprintf(
        line, sizeof line, "  %-9s  %-11s  %7.1f  %9.1f  %8.1f  %9.3f  %10.3f  %11.1f W\n",
        f.busy_signal.c_str(), f.cluster.c_str(), f.fit.power.idle_w, f.fit.power.context_w,
        f.fit.power.active_w, f.fit.zero_mass, f.fit.zero_free_fraction, f.fit.observed_mean_w);
    std::cout << line;
  }
  std::cout << "\nPredicted power distribution against the measured one:\n"
            << "  signal     fitted on    predicted     KS line  KS rank map  mean predicted /"
               " observed\n";
  for (const PowerCheckRow& r : c.rows) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-9s  %-11s  %-11s  %7.4f  %11.4f  %7.1f / %.1f W\n",
                  r.busy_signal.c_str(), r.fit_cluster.c_str(), r.predicted_cluster.c_str(),
                  r.ks_linear, r.ks_rank_map, r.predicted_mean_w, r.observed_mean_w);
    std::cout << line;
  }
  std::cout << "\nNode overhead (Seren, 8-GPU servers): mean " << Num(c.node.mean_w, 1)
            << " W (server " << Num(c.node.server_mean_w, 1) << " W - 8 x GPU "
            << Num(c.node.gpu_mean_w, 1) << " W), floor " << Num(c.node.floor_w, 1)
            << " W; CPU-only nodes " << Num(c.node.cpu_node_mean_w, 1) << " W\n";
  return Status::Ok();
}

}  // namespace utilsim::cli
