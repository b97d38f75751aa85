#include "utilsim/analysis/validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

#include "inspect_stats.h"
#include "utilsim/analysis/trace_evidence.h"
#include "utilsim/engine/parallel.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/engine/units.h"

namespace utilsim {

namespace {

std::vector<double> Ranks(const std::vector<double>& v) {
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> rank(v.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    const double avg = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (size_t k = i; k <= j; ++k) rank[idx[k]] = avg;
    i = j + 1;
  }
  return rank;
}

}  // namespace

double Pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n = std::min(a.size(), b.size());
  if (n < 2) return 0;
  double ma = 0, mb = 0;
  for (size_t i = 0; i < n; ++i) {
    ma += a[i];
    mb += b[i];
  }
  ma /= static_cast<double>(n);
  mb /= static_cast<double>(n);
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  if (saa <= 0 || sbb <= 0) return 0;
  return sab / std::sqrt(saa * sbb);
}

double Spearman(const std::vector<double>& a, const std::vector<double>& b) {
  return Pearson(Ranks(a), Ranks(b));
}

WaitFidelity CompareWaits(const Workload& w, const RunResult& r) {
  WaitFidelity f;
  std::vector<double> rec, sim, err;
  std::map<int64_t, std::pair<double, double>> day_sum;  // day -> (recorded, simulated) sums
  std::map<int64_t, int64_t> day_n;
  for (size_t i = 0; i < w.jobs.size() && i < r.jobs.size(); ++i) {
    const Job& j = w.jobs[i];
    const JobRecord& x = r.jobs[i];
    if (!j.recorded_start || x.start.us < 0) continue;
    const double rw = (*j.recorded_start - j.submit).seconds();
    const double sw = x.wait_s();
    rec.push_back(rw);
    sim.push_back(sw);
    err.push_back(std::fabs(sw - rw));
    const int64_t day = j.submit.us / (86400 * kMicrosPerSecond);
    day_sum[day].first += rw;
    day_sum[day].second += sw;
    ++day_n[day];
  }
  f.jobs = static_cast<int64_t>(rec.size());
  if (rec.empty()) return f;
  auto mean = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  f.recorded_mean_s = mean(rec);
  f.simulated_mean_s = mean(sim);
  f.mae_s = mean(err);
  f.start_mae_s = f.mae_s;
  f.median_ae_s = Percentile(err, 50);
  f.spearman = Spearman(rec, sim);
  f.latency_floor_s = LatencyFloorSeconds(w);
  std::vector<double> rec_above, sim_above;
  for (size_t i = 0; i < rec.size(); ++i) {
    if (rec[i] <= f.latency_floor_s) continue;
    rec_above.push_back(rec[i]);
    sim_above.push_back(sim[i]);
  }
  f.jobs_above_floor = static_cast<int64_t>(rec_above.size());
  f.spearman_above_floor = Spearman(rec_above, sim_above);
  std::vector<double> dr, ds;
  for (const auto& [day, s] : day_sum) {
    dr.push_back(s.first / static_cast<double>(day_n[day]));
    ds.push_back(s.second / static_cast<double>(day_n[day]));
  }
  f.days = static_cast<int64_t>(dr.size());
  f.daily_pearson = Pearson(dr, ds);
  std::sort(rec.begin(), rec.end());
  std::sort(sim.begin(), sim.end());
  for (double p : {10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 100.0}) {
    f.quantile_p.push_back(p);
    f.recorded_q.push_back(Percentile(rec, p));
    f.simulated_q.push_back(Percentile(sim, p));
  }
  return f;
}

std::string FormatFidelity(const std::vector<std::string>& labels,
                           const std::vector<WaitFidelity>& f) {
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
  auto add = [&](const std::string& name, auto fn) {
    std::vector<std::string> cells;
    for (const auto& x : f) cells.push_back(fn(x));
    rows.emplace_back(name, cells);
  };
  auto num = [](double v, const char* fmt) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return std::string(buf);
  };
  add("jobs compared", [](const WaitFidelity& x) { return std::to_string(x.jobs); });
  add("recorded mean wait", [](const WaitFidelity& x) { return HumanSeconds(x.recorded_mean_s); });
  add("simulated mean wait",
      [](const WaitFidelity& x) { return HumanSeconds(x.simulated_mean_s); });
  add("wait MAE", [](const WaitFidelity& x) { return HumanSeconds(x.mae_s); });
  add("wait median AE", [](const WaitFidelity& x) { return HumanSeconds(x.median_ae_s); });
  add("rank correlation", [&](const WaitFidelity& x) { return num(x.spearman, "%.3f"); });
  add("latency floor", [](const WaitFidelity& x) { return HumanSeconds(x.latency_floor_s); });
  add("rank corr. > floor", [&](const WaitFidelity& x) {
    return num(x.spearman_above_floor, "%.3f") + " (" + std::to_string(x.jobs_above_floor) +
           " jobs)";
  });
  add("daily mean wait corr.", [&](const WaitFidelity& x) {
    return num(x.daily_pearson, "%.3f") + " (" + std::to_string(x.days) + " d)";
  });
  if (!f.empty()) {
    for (size_t q = 0; q < f[0].quantile_p.size(); ++q) {
      add("wait p" + num(f[0].quantile_p[q], "%.0f") + " rec / sim", [&](const WaitFidelity& x) {
        return q < x.recorded_q.size()
                   ? HumanSeconds(x.recorded_q[q]) + " / " + HumanSeconds(x.simulated_q[q])
                   : std::string("-");
      });
    }
  }
  size_t w0 = 6;
  for (const auto& [n, c] : rows) w0 = std::max(w0, n.size());
  std::vector<size_t> wc(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    wc[i] = labels[i].size();
    for (const auto& [n, c] : rows) wc[i] = std::max(wc[i], c[i].size());
  }
  std::string out = "metric" + std::string(w0 - 6, ' ');
  for (size_t i = 0; i < labels.size(); ++i)
    out += "  " + std::string(wc[i] - labels[i].size(), ' ') + labels[i];
  out += "\n";
  for (const auto& [n, c] : rows) {
    out += n + std::string(w0 - n.size(), ' ');
    for (size_t i = 0; i < c.size(); ++i)
      out += "  " + std::string(wc[i] - c[i].size(), ' ') + c[i];
    out += "\n";
  }
  return out;
}

Result<SizedValidation> ValidateAtSizes(const Inputs& in, const PolicyRegistry& reg,
                                        const std::string& policy, const std::vector<int>& sizes_in,
                                        const RunSpec& spec, const ValidateInference* infer) {
  SizedValidation v;
  for (const auto& j : in.workload.jobs) v.with_start += j.recorded_start.has_value();
  if (v.with_start == 0)
    return Status::Error(
        StatusCode::kInvalidArgument,
        "--trace: " + in.workload.source + ": no job has a recorded start to compare with");
  std::vector<int> sizes = sizes_in;
  if ((!sizes.empty() || infer) && in.cluster.groups.size() != 1)
    return Status::Error(StatusCode::kInvalidArgument,
                         "--nodes-list: the cluster has " +
                             std::to_string(in.cluster.groups.size()) +
                             " node groups; sizes can only be varied for a single group");
  if (sizes.empty()) sizes.push_back(-1);  // the cluster as loaded
  std::vector<ClusterSpec> clusters(sizes.size(), in.cluster);
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] > 0) clusters[i].groups[0].count = sizes[i];
  RunSpec one = spec;
  one.threads = 1;
  std::vector<RunSpec> specs(sizes.size(), one);
  std::vector<int64_t> base(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) base[i] = clusters[i].total_nodes();
  if (infer) {
    const std::vector<int64_t> peaks = PeakGpusInUse(in.workload, infer->window);
    const Micros start = PeakWindowStart(in.workload, infer->window);
    const std::vector<StartGap> gaps = FindStartGaps(in.workload, infer->outage_gap);
    const double floor_s = infer->latency ? LatencyFloorSeconds(in.workload) : 0;
    NodeGroup& g0 = clusters[0].groups[0];
    for (size_t i = 0; i < sizes.size(); ++i) {
      NodeGroup& g = clusters[i].groups[0];
      int64_t total = g.count;
      std::vector<ClusterEvent> ev =
          InferredEvents(peaks, infer->window, start, gaps, g.name, g.count, g.gpus, &total);
      g.count = static_cast<int32_t>(total);
      v.total_nodes.push_back(total);
      v.events.push_back(ev);
      for (ClusterEvent& e : ev) specs[i].cluster_events.push_back(std::move(e));
      specs[i].pass_interval = Micros(std::llround(floor_s * kMicrosPerSecond));
    }
    v.pass_interval = Micros(std::llround(floor_s * kMicrosPerSecond));
    int64_t most = 0;
    for (int64_t p : peaks) most = std::max(most, p);
    char line[240];
    std::snprintf(line, sizeof line,
                  "%zu windows of %.3g h, peak GPUs in use up to %lld (%lld nodes of %d GPUs); %zu "
                  "outages of "
                  ">= %.3g h (every node drained); scheduling cycle %.3g s",
                  peaks.size(), infer->window.seconds() / 3600, static_cast<long long>(most),
                  static_cast<long long>(g0.gpus > 0 ? (most + g0.gpus - 1) / g0.gpus : 0), g0.gpus,
                  gaps.size(), infer->outage_gap.seconds() / 3600, floor_s);
    v.inferred = line;
  }
  std::vector<Result<std::vector<RunResult>>> results(sizes.size(), Status::Error("not run"));
  // One thread per cluster size, each running its size single-threaded.
  ParallelFor(sizes.size(), sizes.size(), [&](size_t i) {
    results[i] = RunPoliciesOn(in, clusters[i], reg, {policy}, specs[i]);
  });
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!results[i].ok()) return results[i].status();
    RunResult r = std::move(results[i]).value().front();
    v.labels.push_back(std::to_string(base[i]) + " nodes");
    r.meta.label = policy + " @ " + v.labels.back();
    v.fidelity.push_back(CompareWaits(in.workload, r));
    v.runs.push_back(std::move(r));
  }
  for (size_t i = 1; i < v.fidelity.size(); ++i)
    if (v.fidelity[i].mae_s < v.fidelity[v.best].mae_s) v.best = i;
  return v;
}

}  // namespace utilsim
