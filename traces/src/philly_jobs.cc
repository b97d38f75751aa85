// Philly sampled_jobs.json (DRE extract) -> Workload. JSON is parsed with
// nlohmann_json; a light scan of the text finds the line of every key of
// every job so that errors can name it.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "csv_input.h"
#include "row_helpers.h"
#include "utilsim/traces/philly.h"

namespace utilsim::traces {

namespace {

using nlohmann::json;

// Line of each array element's start and of its top-level keys.
struct ElementLines {
  int64_t line = 1;
  std::map<std::string, int64_t> keys;
};

std::vector<ElementLines> ScanLines(const std::string& text) {
  std::vector<ElementLines> out;
  int64_t line = 1;
  int depth = 0;
  bool expecting = false;  // a depth-1 value may start here
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') continue;
    if (depth == 1 && expecting && c != ',' && c != ']') {
      out.push_back({line, {}});
      expecting = false;
    }
    if (c == '"') {
      std::string s;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) ++i;
        if (text[i] == '\n') ++line;
        s += text[i];
      }
      size_t j = i + 1;
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r')) ++j;
      if (depth == 2 && j < text.size() && text[j] == ':' && !out.empty()) {
        out.back().keys.emplace(s, line);
      }
    } else if (c == '{' || c == '[') {
      ++depth;
      if (depth == 1) expecting = true;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 1) {
      expecting = true;
    }
  }
  return out;
}

// Error context of one job.
struct JobCtx {
  const std::string& file;
  const ElementLines* lines;  // null when the scan did not find the element
  const json& obj;

  int64_t Line(const std::string& key) const {
    if (!lines) return 0;
    auto it = lines->keys.find(key);
    return it == lines->keys.end() ? lines->line : it->second;
  }
  Status Bad(const std::string& key, const std::string& field, const std::string& what,
             const json* v) const {
    std::string text;
    if (v) text = v->is_string() ? v->get<std::string>() : v->dump();
    if (text.size() > 100) text = text.substr(0, 100) + "...";
    return Status::Error(file + ":" + std::to_string(Line(key)) + ": field '" + field +
                         "': expected " + what + ", got '" + text + "'");
  }
  Status String(const std::string& key, bool non_empty, std::string* out) const {
    auto it = obj.find(key);
    if (it == obj.end()) return Bad(key, key, "a string", nullptr);
    if (!it->is_string() || (non_empty && it->get_ref<const std::string&>().empty())) {
      return Bad(key, key, non_empty ? "a non-empty string" : "a string", &*it);
    }
    *out = it->get<std::string>();
    return Status::Ok();
  }
  Status Time(const std::string& key, int64_t* unix_s) const {
    std::string s;
    auto it = obj.find(key);
    const std::string what = "a date-time 'YYYY-MM-DD HH:MM:SS'";
    if (it == obj.end() || !it->is_string())
      return Bad(key, key, what, it == obj.end() ? nullptr : &*it);
    auto t = ParsePhillyTime(it->get_ref<const std::string&>());
    if (!t) return Bad(key, key, what, &*it);
    *unix_s = *t;
    return Status::Ok();
  }
};

struct Tally {
  std::map<std::string, int64_t> status;
  std::map<int64_t, int64_t> gpus;
  std::vector<int64_t> delays;
};

Status ParseJob(const JobCtx& ctx, int64_t origin, const PhillyOptions& opt, Workload* w,
                Warnings* warnings, Tally* tally, bool* keep, Job* job) {
  std::string status, vc;
  UTILSIM_RETURN_IF_ERROR(ctx.String("jobid", true, &job->name));
  UTILSIM_RETURN_IF_ERROR(ctx.String("status", false, &status));
  UTILSIM_RETURN_IF_ERROR(ctx.String("vc", false, &vc));
  int64_t sub = 0, start = 0, end = 0;
  UTILSIM_RETURN_IF_ERROR(ctx.Time("submitted_time", &sub));
  UTILSIM_RETURN_IF_ERROR(ctx.Time("start_time", &start));
  UTILSIM_RETURN_IF_ERROR(ctx.Time("end_time", &end));
  const json& obj = ctx.obj;
  auto rt = obj.find("runtime_min");
  if (rt == obj.end() || !rt->is_number() || !(rt->get<double>() >= 0)) {
    return ctx.Bad("runtime_min", "runtime_min", "a number of minutes >= 0",
                   rt == obj.end() ? nullptr : &*rt);
  }
  if (sub < origin) {
    return ctx.Bad("submitted_time", "submitted_time", "a time at or after the origin",
                   &obj["submitted_time"]);
  }
  if (start < sub) {
    return ctx.Bad("start_time", "start_time", "a time >= submitted_time", &obj["start_time"]);
  }
  if (end < start) return ctx.Bad("end_time", "end_time", "a time >= start_time", &obj["end_time"]);
  const std::string where =
      ctx.file + ":" + std::to_string(ctx.Line("jobid")) + ": job '" + job->name + "'";
  if (std::abs(rt->get<double>() * 60.0 - static_cast<double>(end - start)) > 60.0) {
    warnings->Add(kPhillyWarnRuntimeMismatch, where);
  }
  auto detail = obj.find("detail");
  if (detail == obj.end() || !detail->is_array()) {
    return ctx.Bad("detail", "detail", "an array of {ip, gpus}",
                   detail == obj.end() ? nullptr : &*detail);
  }
  int64_t max_gpus = 0, total_gpus = 0;
  for (size_t k = 0; k < detail->size(); ++k) {
    const json& e = (*detail)[k];
    const std::string f = "detail[" + std::to_string(k) + "]";
    auto ip = e.is_object() ? e.find("ip") : e.end();
    if (!e.is_object() || ip == e.end() || !ip->is_string() || ip->get<std::string>().empty()) {
      return ctx.Bad("detail", f + ".ip", "a non-empty host name",
                     e.is_object() && ip != e.end() ? &*ip : &e);
    }
    auto g = e.find("gpus");
    if (g == e.end() || !g->is_array() ||
        !std::all_of(g->begin(), g->end(), [](const json& x) { return x.is_string(); })) {
      return ctx.Bad("detail", f + ".gpus", "an array of GPU names", g == e.end() ? &e : &*g);
    }
    job->recorded_hosts.push_back(ip->get<std::string>());
    const auto n = static_cast<int64_t>(g->size());
    if (k > 0 && n != max_gpus) warnings->Add(kPhillyWarnUnevenHosts, where);
    max_gpus = std::max(max_gpus, n);
    total_gpus += n;
  }
  *keep = false;
  if (end == start) {
    warnings->Add(kPhillyWarnZeroRuntime, where);
    return Status::Ok();
  }
  if (detail->empty()) {
    warnings->Add(kPhillyWarnNoHosts, where);
    return Status::Ok();
  }
  ++tally->status[status];
  if (opt.skip_failed && status == "Failed") return Status::Ok();
  *keep = true;
  ++tally->gpus[total_gpus];
  tally->delays.push_back(start - sub);
  job->tenant = w->InternTenant(vc.empty() ? "default" : vc);
  job->submit = Seconds(sub - origin);
  job->recorded_start = Seconds(start - origin);
  job->runtime = Seconds(end - start);
  job->tasks = static_cast<int32_t>(detail->size());
  job->task.gpus = static_cast<int32_t>(max_gpus);
  return Status::Ok();
}

}  // namespace

Result<TraceData> ReadPhillyJobs(const std::string& path, const PhillyOptions& opt) {
  if (opt.origin_unix && *opt.origin_unix % 60 != 0) {
    return Status::Error(path + ": option origin_unix: expected a multiple of 60, got '" +
                         std::to_string(*opt.origin_unix) + "'");
  }
  auto in = internal::OpenCsvInput(path);
  if (!in.ok()) return in.status();
  std::string text;
  std::vector<char> buf(size_t{1} << 16);
  for (int64_t n; (n = in.value()->Read(buf.data(), buf.size())) > 0;) text.append(buf.data(), n);
  if (!in.value()->error.empty()) return Status::Error(path + ": " + in.value()->error);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    const auto upto = std::min(text.size(), static_cast<size_t>(e.byte));
    const int64_t line = 1 + std::count(text.begin(), text.begin() + upto, '\n');
    return Status::Error(path + ":" + std::to_string(line) + ": JSON error: " + e.what());
  } catch (const json::exception& e) {  // e.g. a number beyond double (out_of_range.406)
    return Status::Error(path + ": JSON error: " + e.what());
  }
  if (!doc.is_array()) return Status::Error(path + ":1: expected a JSON array of jobs");
  const std::vector<ElementLines> lines = ScanLines(text);
  TraceData out;
  out.bytes_read = static_cast<int64_t>(text.size());
  out.rows_read = static_cast<int64_t>(doc.size());
  int64_t origin = opt.origin_unix.value_or(0);
  if (!opt.origin_unix) {
    int64_t first = INT64_MAX;
    for (const json& j : doc) {
      auto s = j.is_object() ? j.find("submitted_time") : j.end();
      if (j.is_object() && s != j.end() && s->is_string()) {
        if (auto t = ParsePhillyTime(s->get_ref<const std::string&>())) first = std::min(first, *t);
      }
    }
    origin = first == INT64_MAX ? 0 : first - ((first % 86400) + 86400) % 86400;
  }
  Workload& w = out.workload;
  std::unordered_map<std::string, int64_t> seen;
  Tally tally;
  for (size_t k = 0; k < doc.size(); ++k) {
    const ElementLines* el = k < lines.size() ? &lines[k] : nullptr;
    JobCtx ctx{path, el, doc[k]};
    if (!doc[k].is_object()) {
      return Status::Error(path + ":" + std::to_string(el ? el->line : 0) +
                           ": expected a job object, got '" + doc[k].dump().substr(0, 100) + "'");
    }
    Job job;
    bool keep = false;
    UTILSIM_RETURN_IF_ERROR(ParseJob(ctx, origin, opt, &w, &out.warnings, &tally, &keep, &job));
    if (auto [it, ok] = seen.emplace(job.name, ctx.Line("jobid")); !ok) {
      return ctx.Bad("jobid", "jobid",
                     "a job id not already used on line " + std::to_string(it->second),
                     &doc[k]["jobid"]);
    }
    if (keep) w.jobs.push_back(std::move(job));
  }
  w.source = path;
  w.Finalize();
  std::string statuses = "status:";
  for (const auto& [s, n] : tally.status) statuses += " " + s + " " + internal::Thousands(n);
  out.notes.push_back(statuses + (opt.skip_failed ? " (Failed skipped)" : ""));
  std::string sizes = "GPUs per job:";
  for (const auto& [g, n] : tally.gpus) sizes += " " + std::to_string(g) + ":" + std::to_string(n);
  out.notes.push_back(sizes);
  if (!tally.delays.empty()) {
    std::sort(tally.delays.begin(), tally.delays.end());
    out.notes.push_back("recorded queueing delay (start - submit): median " +
                        std::to_string(tally.delays[tally.delays.size() / 2]) + " s, max " +
                        std::to_string(tally.delays.back()) + " s");
  }
  out.notes.push_back("time origin: UNIX " + std::to_string(origin) +
                      " (Philly's clock read as UTC; zone not stated)");
  out.notes.push_back("not in the trace: CPU/memory demand; user kept out (tenant = vc)");
  return out;
}

}  // namespace utilsim::traces
