// Calibration of CPU input stalls from GPU / host-CPU utilization windows
// (calibrate.h; docs/model.md "Calibration"). Eigen is used here only.
#include "utilsim/workloads/calibrate.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace utilsim {

namespace {

// The windows selected by the options, flattened: one row per window.
struct Design {
  std::vector<double> g, c, weight;
  std::vector<int64_t> job;  // dense job index per row
  int64_t jobs = 0;
};

bool Selected(const JobWindows& j, const FitOptions& opt) {
  if (opt.min_job_gpus > 0 && j.gpus < opt.min_job_gpus) return false;
  if (opt.max_job_gpus > 0 && j.gpus > opt.max_job_gpus) return false;
  return true;
}

Result<Design> Collect(const std::vector<JobWindows>& jobs, const FitOptions& opt) {
  Design d;
  for (const JobWindows& j : jobs) {
    if (!Selected(j, opt)) continue;
    size_t first = d.g.size();
    for (const CalibrationWindow& w : j.windows) {
      if (!(w.gpu_busy >= 0 && w.gpu_busy <= 1) || !(w.cpu_busy >= 0 && w.cpu_busy <= 1)) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "': window at minute %d on '%s': gpu_busy %g, cpu_busy %g",
                      w.minute, w.host.c_str(), w.gpu_busy, w.cpu_busy);
        return Status::Error("calibration: job '" + j.job + buf + " (expected 0..1)");
      }
      if (opt.exclusive_hosts_only && (w.host_gpus <= 0 || w.host_gpus_used != w.host_gpus)) {
        continue;
      }
      d.g.push_back(1.0 - w.gpu_busy);
      d.c.push_back(w.cpu_busy);
      d.job.push_back(d.jobs);
    }
    const size_t n = d.g.size() - first;
    if (n == 0) continue;
    for (size_t k = 0; k < n; ++k) {
      d.weight.push_back(opt.job_weighted ? 1.0 / static_cast<double>(n) : 1.0);
    }
    ++d.jobs;
  }
  if (d.g.size() < 3) {
    return Status::Error("calibration: " + std::to_string(d.g.size()) +
                         " windows selected; at least 3 are needed");
  }
  return d;
}

// One fit at a fixed theta.
CalibrationFit FitAt(const Design& d, double theta, const FitOptions& opt) {
  const Eigen::Index n = static_cast<Eigen::Index>(d.g.size());
  CalibrationFit f;
  f.scope = opt.scope;
  f.theta = theta;
  f.n_windows = n;
  f.n_jobs = d.jobs;
  Eigen::VectorXd y(n), x(n), sw(n);
  double wsum = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    y[i] = d.g[i];
    x[i] = std::max(0.0, d.c[i] - theta);
    sw[i] = std::sqrt(d.weight[i]);
    wsum += d.weight[i];
    if (d.c[i] > theta) ++f.n_active;
    f.mean_gpu_idle += d.weight[i] * d.g[i];
    f.mean_cpu += d.weight[i] * d.c[i];
  }
  f.mean_gpu_idle /= wsum;
  f.mean_cpu /= wsum;
  double xbar = 0;
  for (Eigen::Index i = 0; i < n; ++i) xbar += d.weight[i] * x[i];
  xbar /= wsum;

  const bool within = opt.scope == FitScope::kWithinJob;
  if (within) {  // subtract each job's weighted means
    std::vector<double> sy(static_cast<size_t>(d.jobs), 0), sx(sy), sn(sy);
    for (Eigen::Index i = 0; i < n; ++i) {
      const size_t j = static_cast<size_t>(d.job[i]);
      sy[j] += d.weight[i] * y[i];
      sx[j] += d.weight[i] * x[i];
      sn[j] += d.weight[i];
    }
    for (Eigen::Index i = 0; i < n; ++i) {
      const size_t j = static_cast<size_t>(d.job[i]);
      y[i] -= sy[j] / sn[j];
      x[i] -= sx[j] / sn[j];
    }
  }
  const int k = within ? 1 : 2;
  Eigen::MatrixXd X(n, k);
  if (within) {
    X.col(0) = x;
  } else {
    X.col(0).setOnes();
    X.col(1) = x;
  }
  // Weighted least squares as OLS on rows scaled by sqrt(weight).
  const Eigen::MatrixXd Xw = sw.asDiagonal() * X;
  const Eigen::VectorXd yw = sw.asDiagonal() * y;
  const double ybar = within ? 0.0 : (sw.cwiseProduct(yw)).sum() / wsum;
  const double sst = (yw - sw * ybar).squaredNorm();

  double xvar = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double dx = within ? x[i] : x[i] - xbar;
    xvar += d.weight[i] * dx * dx;
  }
  if (!(xvar > 1e-12 * wsum)) {  // no spread above theta: b not identified
    f.a = f.mean_gpu_idle;
    f.b = 0;
    f.r2 = 0;
    f.identified = false;
    return f;
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(Xw);
  const Eigen::VectorXd beta = qr.solve(yw);
  const Eigen::VectorXd resid = yw - Xw * beta;
  f.b = beta[k - 1];
  f.a = within ? f.mean_gpu_idle - f.b * xbar : beta[0];
  f.r2 = sst > 0 ? 1.0 - resid.squaredNorm() / sst : 0.0;

  // Cluster-robust (CR1) covariance by job: (X'X)^-1 M (X'X)^-1 with
  // M = sum_j (X_j' e_j)(X_j' e_j)', scaled by G/(G-1) (x (N-1)/(N-K) pooled).
  const Eigen::MatrixXd xtx_inv = (Xw.transpose() * Xw).inverse();
  std::vector<Eigen::VectorXd> score(static_cast<size_t>(d.jobs), Eigen::VectorXd::Zero(k));
  for (Eigen::Index i = 0; i < n; ++i) {
    score[static_cast<size_t>(d.job[i])] += Xw.row(i).transpose() * resid[i];
  }
  Eigen::MatrixXd meat = Eigen::MatrixXd::Zero(k, k);
  for (const Eigen::VectorXd& s : score) meat += s * s.transpose();
  const double g = static_cast<double>(d.jobs);
  double scale = g > 1 ? g / (g - 1) : 1.0;
  if (!within && n > k) scale *= static_cast<double>(n - 1) / static_cast<double>(n - k);
  const Eigen::MatrixXd cov = xtx_inv * meat * xtx_inv * scale;
  f.b_se = std::sqrt(std::max(0.0, cov(k - 1, k - 1)));
  f.identified = f.n_active >= opt.min_active;
  return f;
}

}  // namespace

double JobWindows::GpuMean() const {
  if (windows.empty()) return 0;
  double s = 0;
  for (const CalibrationWindow& w : windows) s += w.gpu_busy;
  return s / static_cast<double>(windows.size());
}

const char* FitScopeName(FitScope s) { return s == FitScope::kWithinJob ? "within-job" : "pooled"; }

std::string CalibrationFit::Summary() const {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "%s theta=%.2f: g = %.4f + %.4f x (se %.4f), R^2 %.4f, n %lld windows / %lld "
                "jobs, %lld above theta%s",
                FitScopeName(scope), theta, a, b, b_se, r2, static_cast<long long>(n_windows),
                static_cast<long long>(n_jobs), static_cast<long long>(n_active),
                identified ? "" : " (not identified)");
  return buf;
}

Result<CalibrationFit> FitInputStalls(const std::vector<JobWindows>& jobs, const FitOptions& opt) {
  auto check = [](double t) { return t >= 0 && t <= 1; };
  if (!check(opt.theta)) {
    return Status::Error("calibration: theta " + std::to_string(opt.theta) + ": expected 0..1");
  }
  if (opt.scan_theta) {
    if (opt.theta_grid.empty()) return Status::Error("calibration: empty theta grid");
    for (double t : opt.theta_grid) {
      if (!check(t)) {
        return Status::Error("calibration: theta grid value " + std::to_string(t) +
                             ": expected 0..1");
      }
    }
  }
  auto design = Collect(jobs, opt);
  if (!design.ok()) return design.status();
  const Design& d = design.value();
  if (!opt.scan_theta) return FitAt(d, opt.theta, opt);

  std::vector<ThetaScanRow> rows;
  int best = -1;
  std::vector<CalibrationFit> fits;
  for (double t : opt.theta_grid) {
    fits.push_back(FitAt(d, t, opt));
    const CalibrationFit& f = fits.back();
    rows.push_back({t, f.a, f.b, f.r2, f.n_active});
    if (f.identified && (best < 0 || f.r2 > fits[static_cast<size_t>(best)].r2)) {
      best = static_cast<int>(fits.size()) - 1;
    }
  }
  CalibrationFit out = best >= 0 ? fits[static_cast<size_t>(best)] : FitAt(d, opt.theta, opt);
  out.scan = std::move(rows);
  return out;
}

ApplyReport ApplyInputStalls(const CalibrationFit& fit, const std::vector<JobWindows>& jobs,
                             Workload* w, const ApplyOptions& opt) {
  ApplyReport rep;
  std::unordered_map<std::string, size_t> by_name;
  for (size_t i = 0; i < w->jobs.size(); ++i) by_name.emplace(w->jobs[i].name, i);
  const bool attribute = opt.rule == Attribution::kSaturatedIdle || fit.identified;
  const double b = std::max(0.0, fit.b);
  double sum_input = 0;
  for (const JobWindows& jw : jobs) {
    auto it = by_name.find(jw.job);
    if (it == by_name.end()) continue;
    ++rep.jobs_matched;
    if (jw.windows.empty()) continue;
    Job& job = w->jobs[it->second];
    if (!job.util_known) {
      job.util = static_cast<float>(std::clamp(jw.GpuMean(), 0.0, 1.0));
      job.util_known = true;
      ++rep.util_set;
    }
    if (opt.cpu_milli_per_gpu > 0 && job.host_cpu_used_milli < 0 && job.task.gpus > 0) {
      // Per task: mean over hosts of the machine CPU (minutes averaged)
      // shared by GPU: cpu_busy x cpu_milli_per_gpu x the task's GPUs.
      std::unordered_map<std::string, std::pair<double, int>> host;
      for (const CalibrationWindow& win : jw.windows) {
        auto& [s, cnt] = host[win.host];
        s += win.cpu_busy;
        ++cnt;
      }
      double busy = 0;
      for (const auto& [h, sc] : host) busy += sc.first / sc.second;
      busy /= static_cast<double>(host.size());
      job.host_cpu_used_milli = std::llround(busy * static_cast<double>(opt.cpu_milli_per_gpu) *
                                             static_cast<double>(job.task.gpus));
      ++rep.host_cpu_set;
    }
    if (!attribute) continue;
    double share = 0;
    for (const CalibrationWindow& win : jw.windows) {
      const double g = std::clamp(1.0 - win.gpu_busy, 0.0, 1.0);
      if (opt.rule == Attribution::kSaturatedIdle) {
        share += win.cpu_busy >= fit.theta ? g : 0.0;
      } else {
        share += std::min(g, b * std::max(0.0, win.cpu_busy - fit.theta));
      }
    }
    share /= static_cast<double>(jw.windows.size());
    double cap = 1.0 - static_cast<double>(job.util);
    if (job.stalls.input_storage > 0) cap -= job.stalls.input_storage;
    if (job.stalls.comm > 0) cap -= job.stalls.comm;
    cap = std::max(0.0, cap);
    if (share > cap) {
      share = cap;
      ++rep.clamped;
    }
    share = std::max(0.0, share);
    // float rounding must not push util + parts above 1.
    float f = static_cast<float>(share);
    while (f > 0 && static_cast<double>(f) > cap) f = std::nextafter(f, 0.0f);
    job.stalls.input_cpu = f;
    ++rep.input_set;
    sum_input += f;
    if (f > 0.1f) ++rep.above_0_1;
  }
  rep.mean_input_cpu = rep.input_set ? sum_input / static_cast<double>(rep.input_set) : 0.0;
  return rep;
}

}  // namespace utilsim
