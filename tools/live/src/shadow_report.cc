#include "utilsim/live/shadow_report.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace utilsim::live {
namespace {

using nlohmann::json;

int64_t Pct(std::vector<int64_t>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

Result<ShadowReport> ReadShadowReport(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(StatusCode::kNotFound, path + ": cannot read the file");
  ShadowReport r;
  r.path = path;
  std::map<std::string, std::vector<int64_t>> latencies;
  std::map<std::string, std::string> last_top;  // pod key -> last recommended node
  std::string line, pending;
  int64_t n = 0;
  for (bool bad_before = false; std::getline(in, line);) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (bad_before) return Status::Error(StatusCode::kInvalidArgument, pending);
    const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    const std::string where = path + ":" + std::to_string(n);
    if (!j.is_object() || !j.contains("event") || !j["event"].is_string() || !j.contains("t") ||
        !j["t"].is_number_integer()) {
      bad_before = true;
      pending = where + ": not a shadow log line (a JSON object with \"t\" and \"event\")";
      continue;
    }
    if (j.value("v", 0) != 1)
      return Status::Error(StatusCode::kInvalidArgument,
                           where + ": field 'v': expected 1 (the shadow log version)");
    ++r.lines;
    const int64_t t = j["t"].get<int64_t>();
    if (r.first_ms == 0) r.first_ms = t;
    r.last_ms = std::max(r.last_ms, t);
    const std::string event = j["event"].get<std::string>();
    const std::string key = j.value("uid", std::string()).empty() ? j.value("pod", std::string())
                                                                  : j.value("uid", std::string());
    if (event == "filter" || event == "prioritize" || event == "preempt" || event == "bind") {
      ShadowVerbFigures& v = r.verbs[event];
      ++v.total;
      const std::string reason = j.value("reason", std::string());
      if (j.value("status", 200) == 400) {
        ++v.bad_request;
      } else if (reason.rfind("shed", 0) == 0) {
        ++v.shed;
      } else if (j.value("opinion", false)) {
        ++v.opinion;
      } else {
        ++v.no_opinion;
        ++v.no_opinion_reasons[reason.substr(0, reason.find(':'))];
      }
      if (j.contains("latency_us") && j["latency_us"].is_number_integer())
        latencies[event].push_back(j["latency_us"].get<int64_t>());
      if (event == "prioritize" && j.value("opinion", false) && !j.value("top", "").empty())
        last_top[key] = j.value("top", "");
    } else if (event == "bound") {
      ShadowBinding b;
      b.pod = j.value("pod", std::string());
      b.node = j.value("node", std::string());
      b.recommended = j.value("recommended", std::string());
      if (b.recommended.empty() && last_top.count(key)) b.recommended = last_top[key];
      auto facts = [](const json& f, double* busy, int32_t* partial, int32_t* stranded) {
        if (!f.is_object()) return;
        *busy = f.value("busy", -1.0);
        *partial = f.value("partial_gpus", 0);
        *stranded = f.value("stranded_gpus", 0);
      };
      if (j.contains("chosen"))
        facts(j["chosen"], &b.chosen_busy, &b.chosen_partial, &b.chosen_stranded);
      if (j.contains("recommended_facts"))
        facts(j["recommended_facts"], &b.recommended_busy, &b.recommended_partial,
              &b.recommended_stranded);
      r.bindings.push_back(b);
    } else if (event == "finished") {
      ++r.finished;
    } else if (event != "cluster") {
      return Status::Error(StatusCode::kInvalidArgument,
                           where +
                               ": field 'event': expected cluster, filter, prioritize, "
                               "preempt, bind, bound or finished, got '" +
                               event + "'");
    }
  }
  if (!pending.empty()) r.warnings.push_back(pending + " (skipped: the last line, cut short)");
  for (auto& [verb, v] : r.verbs) {
    std::vector<int64_t>& l = latencies[verb];
    v.latency_p50_us = Pct(l, 0.5);
    v.latency_p99_us = Pct(l, 0.99);
    v.latency_max_us = Pct(l, 1.0);
  }
  double cb = 0, rb = 0;
  for (const ShadowBinding& b : r.bindings) {
    if (b.recommended.empty()) continue;
    ++r.with_recommendation;
    if (b.node == b.recommended) {
      ++r.agreed;
      continue;
    }
    r.chosen_partial += b.chosen_partial;
    r.recommended_partial += b.recommended_partial;
    r.chosen_stranded += b.chosen_stranded;
    r.recommended_stranded += b.recommended_stranded;
    if (b.chosen_busy >= 0 && b.recommended_busy >= 0) {
      ++r.busy_pairs;
      cb += b.chosen_busy;
      rb += b.recommended_busy;
    }
  }
  if (r.busy_pairs > 0) {
    r.chosen_busy_mean = cb / static_cast<double>(r.busy_pairs);
    r.recommended_busy_mean = rb / static_cast<double>(r.busy_pairs);
  }
  return r;
}

std::string FormatShadowReport(const ShadowReport& r, bool per_pod) {
  std::ostringstream o;
  o << "Shadow log " << r.path << ": " << r.lines << " lines over "
    << Fixed(static_cast<double>(r.last_ms - r.first_ms) / 1000.0, 1) << " s\n\n";
  o << "Requests      total  opinion  no-opinion  shed  400  p50_us  p99_us  max_us\n";
  for (const char* verb : {"filter", "prioritize", "preempt", "bind"}) {
    auto it = r.verbs.find(verb);
    if (it == r.verbs.end()) continue;
    const ShadowVerbFigures& v = it->second;
    char row[160];
    std::snprintf(row, sizeof row, "%-12s %6lld %8lld %11lld %5lld %4lld %7lld %7lld %7lld\n", verb,
                  static_cast<long long>(v.total), static_cast<long long>(v.opinion),
                  static_cast<long long>(v.no_opinion), static_cast<long long>(v.shed),
                  static_cast<long long>(v.bad_request), static_cast<long long>(v.latency_p50_us),
                  static_cast<long long>(v.latency_p99_us),
                  static_cast<long long>(v.latency_max_us));
    o << row;
    for (const auto& [why, count] : v.no_opinion_reasons)
      o << "    no opinion: " << count << " x " << (why.empty() ? "(none given)" : why) << "\n";
  }
  o << "\nBindings seen: " << r.bindings.size() << " (" << r.finished << " ended)\n";
  o << "  with a recommendation: " << r.with_recommendation << "\n";
  if (r.with_recommendation > 0)
    o << "  on the recommended node: " << r.agreed << " ("
      << Fixed(100.0 * static_cast<double>(r.agreed) / static_cast<double>(r.with_recommendation),
               1)
      << " %)\n";
  const int64_t disagreed = r.with_recommendation - r.agreed;
  if (disagreed > 0) {
    o << "  elsewhere: " << disagreed << "; chosen vs recommended nodes:\n";
    if (r.busy_pairs > 0)
      o << "    measured busy (mean of " << r.busy_pairs << "): " << Fixed(r.chosen_busy_mean, 3)
        << " vs " << Fixed(r.recommended_busy_mean, 3) << "\n";
    o << "    partly used GPUs (sum): " << r.chosen_partial << " vs " << r.recommended_partial
      << "\n";
    o << "    stranded GPUs (sum): " << r.chosen_stranded << " vs " << r.recommended_stranded
      << "\n";
  }
  if (per_pod && !r.bindings.empty()) {
    o << "\npod  node  recommended  agree  busy(chosen)  busy(recommended)\n";
    for (const ShadowBinding& b : r.bindings)
      o << b.pod << "  " << b.node << "  " << (b.recommended.empty() ? "-" : b.recommended) << "  "
        << (b.recommended.empty() ? "-" : (b.node == b.recommended ? "yes" : "no")) << "  "
        << (b.chosen_busy >= 0 ? Fixed(b.chosen_busy, 3) : "-") << "  "
        << (b.recommended_busy >= 0 ? Fixed(b.recommended_busy, 3) : "-") << "\n";
  }
  for (const std::string& w : r.warnings) o << "warning: " << w << "\n";
  return o.str();
}

std::string ShadowReportJson(const ShadowReport& r) {
  json j;
  j["log"] = r.path;
  j["lines"] = r.lines;
  j["seconds"] = static_cast<double>(r.last_ms - r.first_ms) / 1000.0;
  for (const auto& [verb, v] : r.verbs)
    j["requests"][verb] = {{"total", v.total},
                           {"opinion", v.opinion},
                           {"no_opinion", v.no_opinion},
                           {"no_opinion_reasons", v.no_opinion_reasons},
                           {"shed", v.shed},
                           {"bad_request", v.bad_request},
                           {"latency_p50_us", v.latency_p50_us},
                           {"latency_p99_us", v.latency_p99_us},
                           {"latency_max_us", v.latency_max_us}};
  j["bindings"] = r.bindings.size();
  j["finished"] = r.finished;
  j["with_recommendation"] = r.with_recommendation;
  j["agreed"] = r.agreed;
  j["agreement_rate"] = nullptr;
  if (r.with_recommendation > 0)
    j["agreement_rate"] =
        static_cast<double>(r.agreed) / static_cast<double>(r.with_recommendation);
  j["disagreed"] = {{"busy_pairs", r.busy_pairs},
                    {"chosen_busy_mean", r.chosen_busy_mean},
                    {"recommended_busy_mean", r.recommended_busy_mean},
                    {"chosen_partial_gpus", r.chosen_partial},
                    {"recommended_partial_gpus", r.recommended_partial},
                    {"chosen_stranded_gpus", r.chosen_stranded},
                    {"recommended_stranded_gpus", r.recommended_stranded}};
  j["warnings"] = r.warnings;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace utilsim::live
