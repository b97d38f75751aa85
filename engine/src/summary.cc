#include "summary.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>

#include "utilsim/engine/metrics.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/engine/units.h"

namespace utilsim {

namespace {
double SortedPercentile(const std::vector<double>& values, double p) {
  if (values.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(values.size()));
  const size_t idx = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return values[std::min(idx, values.size() - 1)];
}
}  // namespace

double Percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return SortedPercentile(values, p);
}

namespace {
double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

// ComputeSummary over n jobs; figure(i) gives job i's JobFigures.
template <class FigureOf>
Summary Compute(size_t n, FigureOf figure, const internal::WaitMicros& wait_us,
                const WindowTotals& totals, int64_t capacity_gpus, Micros window_start,
                Micros window_end, double makespan_s, double price_per_gpu_h) {
  Summary s;
  s.capacity_gpus = capacity_gpus;
  s.window_start = window_start;
  s.window_end = window_end;
  s.price_per_gpu_h = price_per_gpu_h;
  std::vector<double> waits, queued, jcts, slowdowns, ettrs;
  std::map<uint32_t, std::pair<double, int64_t>> tenant_slowdown;  // sum, count
  const double alloc_s = totals.alloc_gpu_s, useful_s = totals.useful_gpu_s;
  const auto& idle_s = totals.idle_gpu_s;
  for (size_t i = 0; i < n; ++i) {
    const internal::JobFigures r = figure(i);
    ++s.jobs;
    switch (r.outcome) {
      case JobOutcome::kFinished:
        ++s.finished;
        break;
      case JobOutcome::kRejected:
        ++s.rejected;
        break;
      case JobOutcome::kUnfinished:
        ++s.unfinished;
        break;
      case JobOutcome::kKilled:
        ++s.killed;
        break;
    }
    if (r.started) {
      waits.push_back(r.wait_s);
      queued.push_back(r.queued_s);
    }
    s.interruptions += r.interruptions;
    s.lost_gpu_h += r.lost_gpu_s / 3600.0;
    if (r.outcome == JobOutcome::kFinished && r.ettr >= 0) ettrs.push_back(r.ettr);
    if (r.outcome == JobOutcome::kFinished || r.outcome == JobOutcome::kKilled) {
      jcts.push_back(r.jct_s);
      slowdowns.push_back(r.slowdown);
      auto& t = tenant_slowdown[r.tenant];
      t.first += r.slowdown;
      ++t.second;
    }
  }
  constexpr double kMicrosPerHour = 3.6e9;
  for (size_t c = 0; c < kWaitCauses; ++c)
    s.wait_cause_h[c] = static_cast<double>(wait_us[c]) / kMicrosPerHour;
  auto idle_h = [&](IdleCause c) { return idle_s[static_cast<size_t>(c)] / 3600.0; };
  s.idle_input_gpu_h = idle_h(IdleCause::kInput);
  s.idle_storage_gpu_h = idle_h(IdleCause::kStorage);
  s.idle_comm_gpu_h = idle_h(IdleCause::kCommunication);
  s.idle_fixed_gpu_h = idle_h(IdleCause::kFixed);
  s.idle_sharing_gpu_h = idle_h(IdleCause::kSharing);
  s.idle_unattributed_gpu_h = idle_h(IdleCause::kUnattributed);
  s.alloc_gpu_h = alloc_s / 3600.0;
  s.useful_gpu_h = useful_s / 3600.0;
  s.idle_alloc_gpu_h = std::max(0.0, s.alloc_gpu_h - s.useful_gpu_h);
  const double span_s = (window_end - window_start).seconds();
  // Capacity is the GPU time not down (cluster events) in the window.
  double down_s = 0;
  for (double v : totals.down_gpu_s) down_s += v;
  const double cap_s = static_cast<double>(capacity_gpus) * span_s - down_s;
  s.down_absent_gpu_h = totals.down_gpu_s[0] / 3600.0;
  s.down_maintenance_gpu_h = totals.down_gpu_s[1] / 3600.0;
  s.down_failure_gpu_h = totals.down_gpu_s[2] / 3600.0;
  if (cap_s > 0) {
    s.allocation_pct = 100.0 * alloc_s / cap_s;
    s.effective_util_pct = 100.0 * useful_s / cap_s;
  }
  s.stranded_gpu_h = totals.stranded_gpu_s / 3600.0;
  if (span_s > 0) {
    s.cpu_alloc_pct = 100.0 * totals.cpu_alloc_frac_s / span_s;
    s.mem_alloc_pct = 100.0 * totals.mem_alloc_frac_s / span_s;
  }
  s.idle_cost = s.idle_alloc_gpu_h * price_per_gpu_h;
  internal::SortFigures(waits);
  internal::SortFigures(queued);
  internal::SortFigures(jcts);
  internal::SortFigures(slowdowns);
  auto Percentile = SortedPercentile;
  // Mean, p50, p95, p99 and max of sorted `v`.
  auto spread = [&](const std::vector<double>& v, double* mean, double* p50, double* p95,
                    double* p99, double* max) {
    *mean = Mean(v);
    *p50 = Percentile(v, 50);
    *p95 = Percentile(v, 95);
    *p99 = Percentile(v, 99);
    *max = Percentile(v, 100);
  };
  spread(waits, &s.wait_mean_s, &s.wait_p50_s, &s.wait_p95_s, &s.wait_p99_s, &s.wait_max_s);
  spread(queued, &s.queued_mean_s, &s.queued_p50_s, &s.queued_p95_s, &s.queued_p99_s,
         &s.queued_max_s);
  s.jct_mean_s = Mean(jcts);
  s.jct_p50_s = Percentile(jcts, 50);
  s.jct_p95_s = Percentile(jcts, 95);
  s.slowdown_mean = Mean(slowdowns);
  s.slowdown_p50 = Percentile(slowdowns, 50);
  s.slowdown_p95 = Percentile(slowdowns, 95);
  s.makespan_s = makespan_s;
  if (!ettrs.empty()) {
    s.ettr_mean = Mean(ettrs);
    internal::SortFigures(ettrs);
    s.ettr_p5 = Percentile(ettrs, 5);
  }
  double sum = 0, sum_sq = 0;
  for (const auto& [tenant, v] : tenant_slowdown) {
    const double x = v.first / static_cast<double>(v.second);
    sum += x;
    sum_sq += x * x;
  }
  if (!tenant_slowdown.empty() && sum_sq > 0)
    s.tenant_fairness = sum * sum / (static_cast<double>(tenant_slowdown.size()) * sum_sq);
  return s;
}

}  // namespace

namespace internal {

// Non-negative doubles (no NaN, no -0) order as their bit patterns, so a
// radix sort on those gives the very same vector in linear time (the summary
// sorts a million waits per run); anything else goes to std::sort.
void SortFigures(std::vector<double>& v) {
  constexpr uint64_t kSign = uint64_t{1} << 63, kInf = 0x7FF0000000000000ULL;
  if (v.size() < 4096 || !std::all_of(v.begin(), v.end(), [](double x) {
        const uint64_t b = std::bit_cast<uint64_t>(x);
        return (b & kSign) == 0 && b <= kInf;
      })) {
    std::sort(v.begin(), v.end());
    return;
  }
  std::vector<uint64_t> a(v.size()), b(v.size());
  for (size_t i = 0; i < v.size(); ++i) a[i] = std::bit_cast<uint64_t>(v[i]);
  std::vector<size_t> count(1 << 16);
  for (int shift = 0; shift < 64; shift += 16) {
    std::fill(count.begin(), count.end(), 0);
    for (uint64_t x : a) ++count[(x >> shift) & 0xFFFF];
    if (count[(a[0] >> shift) & 0xFFFF] == a.size()) continue;  // one digit: nothing moves
    size_t sum = 0;
    for (size_t& c : count) {
      const size_t k = c;
      c = sum;
      sum += k;
    }
    for (uint64_t x : a) b[count[(x >> shift) & 0xFFFF]++] = x;
    a.swap(b);
  }
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::bit_cast<double>(a[i]);
}

JobFigures FiguresOf(const JobRecord& r) {
  JobFigures f;
  f.outcome = r.outcome;
  f.tenant = r.tenant;
  f.started = r.start.us >= 0;
  f.interruptions = r.interruptions;
  f.lost_gpu_s = r.lost_gpu_s;
  f.ettr = r.ettr;
  if (f.started) {
    f.wait_s = r.wait_s();
    f.queued_s = r.queued_s;
  }
  if (r.outcome == JobOutcome::kFinished || r.outcome == JobOutcome::kKilled) {
    f.jct_s = r.jct_s();
    f.slowdown = std::max(1.0, f.jct_s / std::max(r.recorded_runtime.seconds(), 10.0));
  }
  return f;
}

void AddWaitMicros(const JobRecord& r, WaitMicros* sum) {
  for (size_t c = 0; c < kWaitCauses; ++c)
    (*sum)[c] += std::llround(r.wait_cause_s[c] * static_cast<double>(kMicrosPerSecond));
}

Summary SummaryOf(const std::vector<JobFigures>& jobs, const WaitMicros& wait_us,
                  const WindowTotals& totals, int64_t capacity_gpus, Micros window_start,
                  Micros window_end, double makespan_s, double price_per_gpu_h) {
  return Compute(
      jobs.size(), [&](size_t i) { return jobs[i]; }, wait_us, totals, capacity_gpus, window_start,
      window_end, makespan_s, price_per_gpu_h);
}

}  // namespace internal

Summary ComputeSummary(const std::vector<JobRecord>& jobs, const WindowTotals& totals,
                       int64_t capacity_gpus, Micros window_start, Micros window_end,
                       double makespan_s, double price_per_gpu_h) {
  internal::WaitMicros wait_us{};
  for (const JobRecord& r : jobs) internal::AddWaitMicros(r, &wait_us);
  return Compute(
      jobs.size(), [&](size_t i) { return internal::FiguresOf(jobs[i]); }, wait_us, totals,
      capacity_gpus, window_start, window_end, makespan_s, price_per_gpu_h);
}

void AddEnergyFigures(const WindowTotals& t, double pue, double price_per_kwh, Summary* s) {
  constexpr double kJPerKwh = 3.6e6;
  s->energy_busy_kwh = t.energy_busy_j / kJPerKwh;
  double idle = 0;
  for (size_t c = 0; c < t.energy_idle_j.size(); ++c) {
    s->energy_idle_kwh[c] = t.energy_idle_j[c] / kJPerKwh;
    idle += t.energy_idle_j[c];
  }
  s->energy_alloc_idle_kwh = idle / kJPerKwh;
  s->energy_free_kwh = t.energy_free_j / kJPerKwh;
  s->energy_stranded_kwh = t.energy_stranded_j / kJPerKwh;
  s->energy_node_kwh = t.energy_node_j / kJPerKwh;
  s->off_gpu_h = t.off_gpu_s / 3600.0;
  s->energy_it_kwh = (t.energy_busy_j + idle + t.energy_free_j + t.energy_node_j) / kJPerKwh;
  s->pue = pue;
  s->energy_facility_kwh = s->energy_it_kwh * pue;
  s->energy_price_per_kwh = price_per_kwh;
  s->energy_cost = s->energy_facility_kwh * price_per_kwh;
  s->idle_alloc_energy_cost = s->energy_alloc_idle_kwh * pue * price_per_kwh;
}

void AddSampleFigures(const std::vector<Sample>& samples, Summary* s) {
  double frag = 0;
  int64_t frag_n = 0;
  for (const Sample& x : samples) {
    if (x.time < s->window_start || x.time >= s->window_end) continue;
    double pct;
    if (internal::FragPct(x, s->capacity_gpus, &pct)) {
      frag += pct;
      ++frag_n;
    }
  }
  if (frag_n > 0) s->frag_mean_pct = frag / static_cast<double>(frag_n);
}

namespace internal {

bool FragPct(const Sample& x, int64_t capacity_gpus, double* pct) {
  const double free_milli = static_cast<double>(capacity_gpus - x.gpus_down) * kMilliPerUnit -
                            std::round(x.gpus_allocated * kMilliPerUnit);
  if (std::isnan(x.frag_gpu_milli) || !(free_milli > 0)) return false;
  *pct = 100.0 * x.frag_gpu_milli / free_milli;
  return true;
}

FragMeter::FragMeter(std::vector<Micros> starts, Micros cut, int64_t capacity_gpus)
    : cut_(cut), capacity_gpus_(capacity_gpus) {
  for (Micros t : starts) per_.push_back(PerStart{t, {}, {}, {}, {}});
}

void FragMeter::Add(const Sample& x) {
  double pct = 0;
  const bool counts = FragPct(x, capacity_gpus_, &pct);
  for (PerStart& p : per_) {
    p.before_last = p.all;
    if (counts && x.time >= p.start) {
      p.all.pct += pct;
      ++p.all.n;
    }
    // The same additions in the same order as AddSampleFigures' loop, so
    // each sum is bit for bit the one it forms over its window.
    if (x.time < cut_) p.before_cut = p.all;
    if (x.time < fin_) p.before_fin = p.all;
  }
  any_ = true;
  last_ = x.time;
}

void FragMeter::Finished(Micros t) {
  if (t <= fin_) return;
  fin_ = t;
  fin_ok_ = !(any_ && last_ >= t);  // a sample at or after the finish: the cut is not kept
  for (PerStart& p : per_) p.before_fin = p.all;
}

bool FragMeter::Fill(Summary* s) const {
  const Micros ws = s->window_start, we = s->window_end;
  const PerStart* p = nullptr;
  for (const PerStart& q : per_)
    if (q.start == ws) p = &q;
  if (p == nullptr) return false;
  const Sum* sum = nullptr;
  static const Sum kNone;
  if (we <= ws || !any_ || we > last_)
    sum = we <= ws ? &kNone : &p->all;  // an empty window, or every sample
  else if (we == last_)
    sum = &p->before_last;
  else if (we == cut_)
    sum = &p->before_cut;
  else if (we == fin_ && fin_ok_)
    sum = &p->before_fin;
  else
    return false;
  if (sum->n > 0) s->frag_mean_pct = sum->pct / static_cast<double>(sum->n);
  return true;
}

}  // namespace internal

}  // namespace utilsim
