// The Slurm advice log against the sacct history (slurm_report.h).
#include "utilsim/live/slurm_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "json_line.h"
#include "utilsim/traces/sacct.h"

namespace utilsim::live {

using nlohmann::json;

namespace {

bool SameSet(std::vector<std::string> a, std::vector<std::string> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

std::string Fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s.empty() ? "-" : s;
}

}  // namespace

bool IsSlurmAdviceLog(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return false;
    internal::JsonLine f(j, path);
    const std::string e = f.Str("event");
    return f.status().ok() && (e == "start" || e == "advice" || e == "poll_error");
  }
  return false;
}

Result<SlurmReport> ReadSlurmReport(const std::string& path, const std::string& sacct_path) {
  std::ifstream in(path);
  if (!in) return Status::Error(StatusCode::kIo, path + ": cannot read the advice log");
  SlurmReport r;
  r.path = path;
  std::map<std::string, size_t> at;  // job -> row
  std::vector<std::string> text;
  for (std::string line; std::getline(in, line);) text.push_back(line);
  for (size_t n = 0; n < text.size(); ++n) {
    const std::string& line = text[n];
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, false);
    const std::string where = path + ":" + std::to_string(n + 1);
    if (j.is_discarded() || !j.is_object()) {
      if (n + 1 == text.size()) {
        r.warnings.push_back(where + ": last line cut short (skipped)");
        continue;
      }
      return Status::Error(StatusCode::kInvalidArgument, where + ": not a JSON object");
    }
    ++r.lines;
    internal::JsonLine f(j, where);
    const int64_t t = f.Int("t");
    const std::string event = f.Str("event");
    const std::string job = f.Str("job");
    if (!f.status().ok()) return f.status();
    if (r.first_ms == 0) r.first_ms = t;
    r.last_ms = std::max(r.last_ms, t);
    if (event == "start") {
      r.policy = f.Str("policy");
      r.slurm = f.Str("slurm");
    } else if (event == "poll_error") {
      ++r.poll_errors;
    } else if (event == "recovered") {
      ++r.recoveries;
    } else if (event == "advice") {
      auto [it, fresh] = at.emplace(job, r.rows.size());
      if (fresh) {
        SlurmReportRow row;
        row.job = job;
        row.first_advice_unix = t / 1000;
        row.est_start_unix = f.Int("est_start", -1);
        r.rows.push_back(row);
      }
      SlurmReportRow& row = r.rows[it->second];
      row.advised = f.Strings("nodes");
      row.advised_stranded = static_cast<int32_t>(f.Int("stranded_after", -1));
    } else if (event == "started") {
      const std::string as = f.Str("advised_as", job);
      auto it = at.find(as);
      if (it != at.end()) {
        SlurmReportRow& row = r.rows[it->second];
        if (as != job) row.job = job;  // an array's next task
        row.started = true;
        row.slurm = f.Strings("slurm_nodes");
        row.advised = f.Strings("advised");
        row.agree = f.Bool("agree");
        row.in_ranked = f.Bool("in_ranked");
        row.applied = f.Bool("applied");
        row.start_unix = f.Int("start");
        row.stranded_slurm = static_cast<int32_t>(f.Int("stranded_slurm", -1));
        row.advised_stranded = static_cast<int32_t>(f.Int("advised_stranded", -1));
      }
    } else if (event == "gone") {
      ++r.gone;
    }
    if (!f.status().ok()) return f.status();
  }
  if (!sacct_path.empty()) {
    auto history = traces::ReadSacct({sacct_path});
    if (!history.ok()) return history.status();
    std::map<std::string, const Job*> by_name;
    for (const Job& job : history.value().workload.jobs) by_name[job.name] = &job;
    for (SlurmReportRow& row : r.rows) {
      auto it = by_name.find(row.job);
      if (it == by_name.end() || !it->second->recorded_start) continue;
      row.recorded_wait_s = (*it->second->recorded_start - it->second->submit).seconds();
      if (row.slurm.empty()) row.slurm = it->second->recorded_hosts;
      if (!row.started && !row.slurm.empty()) {
        row.started = true;
        row.agree = SameSet(row.slurm, row.advised);
      }
    }
  }
  std::vector<double> waits;
  for (const SlurmReportRow& row : r.rows) {
    ++r.advised;
    if (row.recorded_wait_s >= 0) {
      ++r.in_history;
      waits.push_back(row.recorded_wait_s);
    }
    if (!row.started) continue;
    ++r.started;
    r.agree += row.agree;
    r.in_ranked += row.in_ranked || row.agree;
    r.applied += row.applied;
    if (row.stranded_slurm >= 0) r.stranded_slurm += row.stranded_slurm;
    if (row.advised_stranded >= 0 && row.stranded_slurm >= 0)
      r.advised_stranded += row.advised_stranded;
  }
  if (!waits.empty()) {
    double sum = 0;
    for (double w : waits) sum += w;
    r.wait_mean_s = sum / static_cast<double>(waits.size());
    r.wait_p50_s = Quantile(waits, 0.5);
    r.wait_p95_s = Quantile(waits, 0.95);
  }
  return r;
}

std::string FormatSlurmReport(const SlurmReport& r, bool per_job) {
  std::ostringstream o;
  const auto pct = [](int64_t a, int64_t b) {
    return b == 0 ? std::string("n/a")
                  : Fmt("%.1f %%", 100.0 * static_cast<double>(a) / static_cast<double>(b));
  };
  o << "Slurm advice log " << r.path << ": " << r.lines << " lines over "
    << Fmt("%.0f", static_cast<double>(r.last_ms - r.first_ms) / 1000.0) << " s; policy "
    << (r.policy.empty() ? "?" : r.policy) << ", Slurm " << (r.slurm.empty() ? "?" : r.slurm)
    << "\n";
  o << "  jobs advised          " << r.advised << " (" << r.gone << " left the queue unstarted)\n";
  o << "  started               " << r.started << "\n";
  o << "  agreement             " << r.agree << " of " << r.started << " on the advised nodes ("
    << pct(r.agree, r.started) << "), " << r.in_ranked << " on one of the ranked choices ("
    << pct(r.in_ranked, r.started) << ")\n";
  if (r.applied > 0) o << "  pinned by --apply     " << r.applied << "\n";
  o << "  stranded GPUs         " << r.stranded_slurm << " on Slurm's nodes after its starts, "
    << r.advised_stranded << " had the jobs gone to the advised nodes\n";
  if (r.in_history > 0)
    o << "  recorded waits        " << r.in_history << " advised jobs in the history: mean "
      << Fmt("%.1f", r.wait_mean_s) << " s, p50 " << Fmt("%.1f", r.wait_p50_s) << " s, p95 "
      << Fmt("%.1f", r.wait_p95_s) << " s\n";
  o << "  Slurm unreachable     " << r.poll_errors << " time(s), recovered " << r.recoveries
    << "\n";
  for (const auto& w : r.warnings) o << "  warning: " << w << "\n";
  if (per_job) {
    o << "\njob  advised  slurm  agree  applied  est_wait_s  recorded_wait_s\n";
    for (const auto& row : r.rows)
      o << row.job << "  " << Join(row.advised) << "  " << Join(row.slurm) << "  "
        << (row.started ? (row.agree       ? "yes"
                           : row.in_ranked ? "ranked"
                                           : "no")
                        : "-")
        << "  " << (row.applied ? "yes" : "no") << "  "
        << (row.est_start_unix >= 0 ? std::to_string(row.est_start_unix - row.first_advice_unix)
                                    : "-")
        << "  " << (row.recorded_wait_s >= 0 ? Fmt("%.0f", row.recorded_wait_s) : "-") << "\n";
  }
  return o.str();
}

std::string SlurmReportJson(const SlurmReport& r) {
  json rows = json::array();
  for (const auto& row : r.rows)
    rows.push_back({{"job", row.job},
                    {"advised", row.advised},
                    {"slurm", row.slurm},
                    {"started", row.started},
                    {"agree", row.agree},
                    {"in_ranked", row.in_ranked},
                    {"applied", row.applied},
                    {"est_start", row.est_start_unix},
                    {"start", row.start_unix},
                    {"recorded_wait_s", row.recorded_wait_s},
                    {"stranded_slurm", row.stranded_slurm},
                    {"advised_stranded", row.advised_stranded}});
  json j = {{"path", r.path},
            {"policy", r.policy},
            {"slurm", r.slurm},
            {"lines", r.lines},
            {"advised", r.advised},
            {"started", r.started},
            {"agree", r.agree},
            {"in_ranked", r.in_ranked},
            {"applied", r.applied},
            {"gone", r.gone},
            {"poll_errors", r.poll_errors},
            {"recoveries", r.recoveries},
            {"in_history", r.in_history},
            {"wait_mean_s", r.wait_mean_s},
            {"wait_p50_s", r.wait_p50_s},
            {"wait_p95_s", r.wait_p95_s},
            {"stranded_slurm", r.stranded_slurm},
            {"advised_stranded", r.advised_stranded},
            {"warnings", r.warnings},
            {"jobs", rows}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace utilsim::live
