// AttachTelemetry: telemetry tracks -> job-relative utilization series
// (telemetry_join.h; rule in docs/formats/telemetry.md §6).
#include "utilsim/traces/telemetry_join.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include "utilsim/traces/text_writer.h"

namespace utilsim::traces {

namespace {

struct Piece {  // busy `v` over [b, e), offsets from the job's start
  Micros b, e;
  double v;
};

struct Window {
  Micros start, end;
};

std::string TrackName(const UtilTrack& tr, size_t k) {
  std::string s = "track " + std::to_string(k);
  if (!tr.job.empty()) s += " pod '" + tr.job + "'";
  if (!tr.host.empty()) s += " host '" + tr.host + "'";
  if (tr.gpu >= 0) s += " gpu " + std::to_string(tr.gpu);
  if (!tr.gpu_instance.empty()) s += " instance '" + tr.gpu_instance + "'";
  return s;
}

// Adds the parts of `tr` that hold during `win` to *pieces and raises *mem;
// false when no sample holds during the window.
bool Collect(const UtilTrack& tr, const Window& win, Micros offset, Micros gap,
             std::vector<Piece>* pieces, int64_t* mem) {
  const Micros rel = win.start - offset;  // window start in track time
  auto it = std::upper_bound(tr.time.begin(), tr.time.end(), rel);
  size_t i = it == tr.time.begin() ? 0 : static_cast<size_t>(it - tr.time.begin()) - 1;
  bool any = false;
  for (; i < tr.time.size(); ++i) {
    const Micros t = tr.time[i] + offset;
    if (t >= win.end) break;
    Micros hold = t + gap;
    if (i + 1 < tr.time.size()) hold = std::min(hold, tr.time[i + 1] + offset);
    const Micros b = std::max(t, win.start), e = std::min(hold, win.end);
    if (e <= b) continue;
    pieces->push_back({b - win.start, e - win.start, static_cast<double>(tr.busy[i])});
    if (!tr.mem_bytes.empty()) *mem = std::max(*mem, tr.mem_bytes[i]);
    any = true;
  }
  return any;
}

// Averages overlapping pieces, fills uncovered time and merges equal
// neighbours into a series over [0, runtime).
UtilSeries BuildSeries(const std::vector<Piece>& pieces, Micros runtime, GapFill fill) {
  std::vector<Micros> bp{Micros(0), runtime};
  for (const Piece& p : pieces) {
    bp.push_back(p.b);
    bp.push_back(p.e);
  }
  std::sort(bp.begin(), bp.end());
  bp.erase(std::unique(bp.begin(), bp.end()), bp.end());
  std::vector<double> sum(bp.size(), 0.0);
  std::vector<int64_t> cnt(bp.size(), 0);
  auto at = [&bp](Micros x) {
    return static_cast<size_t>(std::lower_bound(bp.begin(), bp.end(), x) - bp.begin());
  };
  for (const Piece& p : pieces) {
    sum[at(p.b)] += p.v;
    sum[at(p.e)] -= p.v;
    ++cnt[at(p.b)];
    --cnt[at(p.e)];
  }
  // Value per elementary interval [bp[k], bp[k+1]); -1 = uncovered.
  std::vector<double> val(bp.size() - 1, -1.0);
  double s = 0, covered_sum = 0, covered_len = 0;
  int64_t c = 0;
  for (size_t k = 0; k + 1 < bp.size(); ++k) {
    s += sum[k];
    c += cnt[k];
    if (c <= 0) continue;
    val[k] = std::clamp(s / static_cast<double>(c), 0.0, 1.0);
    const double len = static_cast<double>((bp[k + 1] - bp[k]).us);
    covered_sum += val[k] * len;
    covered_len += len;
  }
  const double filler =
      fill == GapFill::kZero || covered_len <= 0 ? 0.0 : covered_sum / covered_len;
  UtilSeries out;
  for (size_t k = 0; k + 1 < bp.size(); ++k) {
    const auto v = static_cast<float>(val[k] < 0 ? filler : val[k]);
    if (!out.busy.empty() && out.busy.back() == v) continue;
    out.offset.push_back(bp[k]);
    out.busy.push_back(v);
  }
  return out;
}

// Marks jobs sharing a host with another job at an overlapping time.
void MarkShared(const std::vector<size_t>& jobs, const std::vector<Window>& win,
                std::vector<char>* shared) {
  std::vector<size_t> order = jobs;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return win[a].start < win[b].start; });
  Micros max_end = kNever;
  for (size_t k = 0; k < order.size(); ++k) {
    const Window& w = win[order[k]];
    if (k > 0 && w.start < max_end) (*shared)[order[k]] = 1;
    if (k + 1 < order.size() && win[order[k + 1]].start < w.end) (*shared)[order[k]] = 1;
    max_end = k == 0 ? w.end : std::max(max_end, w.end);
  }
}

}  // namespace

Status AttachTelemetry(Workload* w, const TelemetryData& t, const JoinOptions& opt,
                       Warnings* warnings) {
  if (w == nullptr) return Status::Error("AttachTelemetry: no workload");
  const std::optional<Micros> gap =
      std::isfinite(opt.max_gap_s) && opt.max_gap_s > 0 ? FromSeconds(opt.max_gap_s) : std::nullopt;
  if (!gap || gap->us <= 0) {
    std::string got;
    AppendDouble(&got, opt.max_gap_s);
    return Status::Error("AttachTelemetry: max_gap_s: expected seconds > 0, got '" + got + "'");
  }
  std::set<UtilSignal> signals;
  for (size_t k = 0; k < t.tracks.size(); ++k) {
    const UtilTrack& tr = t.tracks[k];
    if (tr.busy.size() != tr.time.size() ||
        (!tr.mem_bytes.empty() && tr.mem_bytes.size() != tr.time.size())) {
      return Status::Error("AttachTelemetry: " + TrackName(tr, k) +
                           ": time, busy and mem_bytes lengths differ");
    }
    for (size_t i = 0; i < tr.busy.size(); ++i) {
      if (!(tr.busy[i] >= 0.0f && tr.busy[i] <= 1.0f)) {
        return Status::Error("AttachTelemetry: " + TrackName(tr, k) + ": busy at " +
                             FormatSeconds(tr.time[i]) + " s is not a fraction 0..1");
      }
    }
    for (size_t i = 1; i < tr.time.size(); ++i) {
      if (tr.time[i] <= tr.time[i - 1]) {
        return Status::Error("AttachTelemetry: " + TrackName(tr, k) + ": time " +
                             FormatSeconds(tr.time[i]) + " s is not after the previous sample");
      }
    }
    if (!tr.time.empty()) signals.insert(tr.signal);
  }
  UtilSignal signal = opt.signal;
  if (signal == UtilSignal::kUnknown && signals.size() > 1) {
    std::string names;
    for (UtilSignal s : signals)
      names += std::string(names.empty() ? "" : ", ") + UtilSignalName(s);
    return Status::Error("AttachTelemetry: telemetry holds several signals (" + names +
                         "); choose one with JoinOptions::signal");
  }
  if (signal == UtilSignal::kUnknown && !signals.empty()) signal = *signals.begin();

  Warnings local;
  Warnings& warn = warnings ? *warnings : local;
  const size_t n = w->jobs.size();
  std::vector<Window> win(n);
  std::unordered_map<std::string, size_t> by_name;
  std::unordered_map<std::string, std::vector<size_t>> by_host;
  for (size_t j = 0; j < n; ++j) {
    const Job& job = w->jobs[j];
    const Micros s = job.recorded_start.value_or(job.submit);
    win[j] = {s, s + job.runtime};
    by_name.emplace(job.name, j);
    if (job.task.gpus > 0 && job.runtime.us > 0) {
      std::set<std::string> hosts(job.recorded_hosts.begin(), job.recorded_hosts.end());
      for (const std::string& h : hosts) by_host[h].push_back(j);
    }
  }
  std::vector<std::vector<Piece>> pieces(n);
  std::vector<int64_t> mem(n, -1);
  std::vector<char> host_joined(n, 0);
  for (size_t k = 0; k < t.tracks.size(); ++k) {
    const UtilTrack& tr = t.tracks[k];
    if (tr.time.empty()) continue;
    if (tr.signal != signal) {
      warn.Add(kWarnOtherSignal, TrackName(tr, k) + " measures " + UtilSignalName(tr.signal));
      continue;
    }
    if (!tr.job.empty()) {
      auto it = opt.by_job ? by_name.find(tr.job) : by_name.end();
      if (it == by_name.end()) {
        warn.Add(kWarnTrackWithoutJob, TrackName(tr, k) + (opt.by_job ? "" : " (by_job off)"));
      } else if (!Collect(tr, win[it->second], opt.time_offset, *gap, &pieces[it->second],
                          &mem[it->second])) {
        warn.Add(kWarnTrackOutsideRun, TrackName(tr, k));
      }
      continue;
    }
    bool used = false;
    auto hj = opt.by_host && !tr.host.empty() ? by_host.find(tr.host) : by_host.end();
    if (hj != by_host.end()) {
      for (size_t j : hj->second) {
        if (Collect(tr, win[j], opt.time_offset, *gap, &pieces[j], &mem[j])) {
          used = true;
          host_joined[j] = 1;
        }
      }
    }
    if (!used) warn.Add(kWarnTrackWithoutJob, TrackName(tr, k));
  }
  std::vector<char> shared(n, 0);
  for (const auto& [host, jobs] : by_host) MarkShared(jobs, win, &shared);

  int64_t joined = 0;
  for (size_t j = 0; j < n; ++j) {
    Job& job = w->jobs[j];
    if (pieces[j].empty()) {
      if (job.task.gpus > 0) warn.Add(kWarnJobWithoutTelemetry, "job '" + job.name + "'");
      continue;
    }
    if (host_joined[j] && shared[j]) warn.Add(kWarnSharedHost, "job '" + job.name + "'");
    w->series.push_back(BuildSeries(pieces[j], job.runtime, opt.gap_fill));
    job.series = static_cast<int32_t>(w->series.size() - 1);
    job.util = static_cast<float>(SeriesMean(w->series.back(), job.runtime));
    if (mem[j] >= 0) job.gpu_mem_used_bytes = mem[j];
    ++joined;
  }
  if (joined > 0 && w->signal != signal) {
    if (w->signal != UtilSignal::kUnknown) {
      warn.Add(kWarnSignalReplaced,
               std::string("was ") + UtilSignalName(w->signal) + ", now " + UtilSignalName(signal));
    }
    w->signal = signal;
  }
  return Status::Ok();
}

}  // namespace utilsim::traces
