// `utilsim power-fit` (docs/energy.md, "Calibration"): the GPU power model
// fitted on the Acme trace summary, the cross-cluster check, and the fit as
// a power file for `--power`.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>

#include "commands.h"
#include "utilsim/workloads/power_fit.h"

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
      "print the node overhead; --yaml prints the Seren fit as a power file for `run --power`");
  cmd->add_option("csv", s.csv,
                  "The Acme summary's util_cdf_long.csv ($UTILSIM_TRACES/acmetrace-summary)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_flag("--yaml", s.yaml,
                "Print only a power file (YAML) with the Seren GPU-utilization fit for the "
                "A100-SXM4-80GB and Acme's node overhead");
  return cmd;
}

Status PowerFitCommand(const PowerFitCliOptions& s) {
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
