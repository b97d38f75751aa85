// Calibration of the GPU power model (engine/power.h, docs/energy.md) on the
// Acme trace summary ($UTILSIM_TRACES/acmetrace-summary/util_cdf_long.csv, see
// its SOURCE.md): cluster-wide CDFs of a busy signal (DCGM GPU utilization or
// SM activity, in percent) and of GPU power (W) for Seren and Kalos, both
// clusters of 8 x A100-SXM4-80GB nodes.
//
// The CDFs are marginals: which power sample went with which utilization
// sample is not in the data. The fit couples them by rank, the quantile map
// u -> P(u) = F_P^-1(F_U(u)): at every quantile level q the busy quantile
// Q_U(q) is paired with the power quantile Q_P(q) (QuantileMap). Of all
// couplings this one gives zero-utilization samples the lowest powers and
// busy samples the highest, so what it says of the allocated-idle step is a
// low estimate (docs/energy.md, "Calibration").
//
// FitGpuPower, one deterministic method for every cluster and busy signal:
//   z          = F_U(0), the zero-utilization mass (free GPUs and allocated
//                GPUs running nothing both read 0)
//   idle_w     = Q_P(z / 10): a tenth into the zero mass, where the free GPUs
//                are, clear of the few low outliers (Seren's minimum is
//                15.4 W)
//   context_w  = Q_P(z): the top of the zero mass (allocated GPUs, holding a
//                CUDA context, draw more than free ones)
//   active_w   = context_w + 100 x s, s the least-squares slope (W per busy
//                percent) of the line through (0, context_w) over the
//                quantile pairs with u > 0, each weighted by its level span;
//                the pairs at the u = 100 % clip are kept: the model
//                predicts active_w for them, and keeping them keeps the fitted
//                cluster's mean power (energy) within 2 % on Acme
//   zero_free_fraction = min(F_P((idle_w + context_w) / 2), z) / z: the share
//                of the zero mass drawing nearer idle_w than context_w
// The unconstrained least-squares line on the same pairs is reported beside
// it (its intercept is far below idle on Acme: GPU utilization saturates near
// 100 % while power still spans 90..560 W).
//
// CDFs are step functions: F(x) = cdf[i] for the last i with x[i] <= x (0
// before x[0]); Q(q) = the first x[i] with cdf[i] >= q (levels within 1e-9
// count as equal).
//
// Thread-safety: pure functions (ReadAcmeCdfs and AcmePowerCrossCheck read a
// file only).
#pragma once

#include <string>
#include <vector>

#include "utilsim/engine/power.h"
#include "utilsim/engine/status.h"

namespace utilsim {

// One empirical CDF: x ascending (non-strictly), cdf nondecreasing in 0..1
// ending at 1, same length, not empty.
struct EmpiricalCdf {
  std::string source;  // Acme source_pkl ("gpu_power_seren.pkl"); free text otherwise
  std::string name;    // Acme series ("seren_gpu_power_w")
  std::vector<double> x;
  std::vector<double> cdf;
};

// "" when c is a valid CDF, else what is wrong ("series 'a': cdf[3] 0.2 below
// cdf[2] 0.5").
std::string CdfProblem(const EmpiricalCdf& c);

// Reads util_cdf_long.csv (columns source_pkl, series, x, cdf_percent; other
// columns ignored). `series` selects what to read, each entry a series name
// ("seren_gpu_power_w") or "source_pkl:series" ("util_gpu_kalos.pkl:
// kalos_gpu_util_pct"); empty reads every series. Only selected rows are
// checked: x a number, ascending within its series; cdf_percent a number in
// 0..100, nondecreasing within its series, ending at 100. Series come out in
// file order, cdf scaled to 0..1. Errors name the file, line and field
// ("<file>:<line>: field 'x': expected a number, got 'abc'"); a selector
// that matches nothing, or a bare name found under two source_pkl values, is
// an error.
Result<std::vector<EmpiricalCdf>> ReadAcmeCdfs(const std::string& path,
                                               const std::vector<std::string>& series = {});

// F(x) and Q(q) of a valid CDF (q in 0..1; Q(0) = x[0]).
double CdfAt(const EmpiricalCdf& c, double x);
double QuantileAt(const EmpiricalCdf& c, double q);
// Mean of the step distribution: sum of x[i] x (cdf[i] - cdf[i-1]).
double CdfMean(const EmpiricalCdf& c);

// One quantile pair of the rank coupling: on levels (level_lo, level_hi] the
// busy quantile is `busy` and the power quantile `watts`.
struct QuantilePair {
  double level_lo = 0, level_hi = 0;
  double busy = 0;   // in the busy CDF's unit (percent for Acme)
  double watts = 0;  // in the power CDF's unit
};
// The pairs over the union of both CDFs' levels, in level order; the spans
// cover (0, 1] exactly.
std::vector<QuantilePair> QuantileMap(const EmpiricalCdf& busy, const EmpiricalCdf& power);

struct PowerFit {
  GpuPower power;                 // the fitted model (source names both series)
  double zero_mass = 0;           // z = F_U(0)
  double zero_free_fraction = 0;  // share of z at idle_w rather than context_w
  // The unconstrained weighted least-squares line P = a + b u on the pairs
  // with u > 0: its value at u = 0 and at u = 100 %.
  double free_line_at_0_w = 0, free_line_at_100_w = 0;
  double observed_mean_w = 0;  // CdfMean(power)
};

// The fit above. `busy` in percent (0..100), `power` in W (>= 0). Errors:
// invalid CDFs, values out of range, no zero-utilization mass (idle and
// context are then not identified), nothing above zero.
Result<PowerFit> FitGpuPower(const EmpiricalCdf& busy, const EmpiricalCdf& power);

// The power distribution the model predicts from a busy distribution (in
// percent): zero-busy mass split zero_free_fraction : 1 - zero_free_fraction
// between idle_w (free) and context_w (allocated, idle); busy mass at u > 0
// at context_w + (active_w - context_w) x min(u, 100) / 100. The fraction
// must come from the fitting cluster. Result: x strictly ascending.
EmpiricalCdf PredictPowerCdf(const GpuPower& p, const EmpiricalCdf& busy,
                             double zero_free_fraction);

// Kolmogorov-Smirnov distance of two step CDFs: sup |F_a - F_b|, exact (the
// steps only move at support points, so the union of the x's is checked).
double KsDistance(const EmpiricalCdf& a, const EmpiricalCdf& b);

// The study alternative to the line: the busy-to-power map the rank coupling
// itself gives, one knot per distinct busy value u > 0 at the level-weighted
// mean power of its pairs (nondecreasing by construction), linear between
// knots, flat beyond them. Under the rank coupling it is the least-squares
// best function of the busy signal, so its KS distance shows how much of the
// line's misfit any deterministic busy-to-power map would keep.
struct PowerCurve {
  std::vector<double> busy;   // ascending, in the busy CDF's unit
  std::vector<double> watts;  // nondecreasing
};
PowerCurve RankMapCurve(const EmpiricalCdf& busy, const EmpiricalCdf& power);
double CurveWatts(const PowerCurve& curve, double busy);
// PredictPowerCdf with the curve in place of the line above zero (zero mass
// as there, from p.idle_w and p.context_w).
EmpiricalCdf PredictPowerCdfWithCurve(const GpuPower& p, const PowerCurve& curve,
                                      const EmpiricalCdf& busy, double zero_free_fraction);

// The cross-cluster check ("fitted on one Acme cluster, the predicted power
// distribution of the other from its utilization distribution, with its
// Kolmogorov-Smirnov distance"), in sample for reference, per busy signal.
// Clusters: "seren" (util_gpu_seren.pkl), "kalos" (util_gpu_kalos_full.pkl,
// the pickle that also holds kalos_sm_active) and, for the GPU-utilization
// signal only, "kalos-paper" (util_gpu_kalos.pkl, the Kalos curve of the
// paper's utilization figure; a different collection window).
struct PowerFitRow {
  std::string busy_signal;  // "gpu_util" or "sm_active"
  std::string cluster;
  PowerFit fit;
};
struct PowerCheckRow {
  std::string busy_signal;
  std::string fit_cluster, predicted_cluster;
  double ks_linear = 0;                              // FitGpuPower line
  double ks_rank_map = 0;                            // RankMapCurve of the fit cluster
  double predicted_mean_w = 0, observed_mean_w = 0;  // line model
};
// Per-node non-GPU power of Seren's GPU servers (server_power.pkl, IPMI
// Sys_Total_Power of 8-GPU nodes) against the per-GPU power CDF.
struct NodeOverhead {
  double server_mean_w = 0;    // CdfMean(seren_gpu_server_power_w)
  double gpu_mean_w = 0;       // CdfMean(seren_gpu_power_w)
  double mean_w = 0;           // server_mean_w - 8 x gpu_mean_w
  double server_low_w = 0;     // Q(0.05) of the server power
  double floor_w = 0;          // server_low_w - 8 x the Seren gpu_util idle_w
  double cpu_node_mean_w = 0;  // CdfMean(seren_cpu_server_power_w), CPU-only nodes
};
struct AcmePowerCheck {
  std::vector<PowerFitRow> fits;
  // Rows: every (fit, predicted) pair of one busy signal, except kalos and
  // kalos-paper against each other (the same cluster).
  std::vector<PowerCheckRow> rows;
  NodeOverhead node;
};
Result<AcmePowerCheck> AcmePowerCrossCheck(const std::string& path);

}  // namespace utilsim
