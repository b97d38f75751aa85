// Apply mode of the Slurm advisor (slurm_advisor.h): pins, their deadline,
// and `--revert`.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "json_line.h"
#include "slurm_advisor_impl.h"
#include "utilsim/traces/slurm_text.h"

namespace utilsim::live {

using nlohmann::json;

namespace {

std::vector<std::string> Unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

bool Allowed(const std::vector<std::string>& allow, const std::string& partitions) {
  size_t b = 0;
  while (b <= partitions.size()) {
    size_t e = partitions.find(',', b);
    if (e == std::string::npos) e = partitions.size();
    if (std::find(allow.begin(), allow.end(), partitions.substr(b, e - b)) != allow.end())
      return true;
    b = e + 1;
  }
  return false;
}

}  // namespace

void SlurmAdvisor::Impl::PinEnded(const std::string& job, const std::string& why,
                                  const std::vector<std::string>& nodes, int64_t now_ms) {
  ApplyLog({{"event", "pin_ended"}, {"job", job}, {"why", why}, {"nodes", nodes}}, now_ms);
  pins.erase(job);
}

void SlurmAdvisor::Impl::Apply(const std::vector<SlurmAdvice>& advice,
                               const std::map<std::string, const SlurmJobInfo*>& jobs,
                               int64_t now_ms) {
  const int64_t now_s = now_ms / 1000;
  auto count = [&](const char* what) {
    std::lock_guard<std::mutex> lock(mu);
    ++apply[what];
  };
  // Deadlines first: a pin that kept its job pending too long is removed.
  for (auto it = pins.begin(); it != pins.end();) {
    auto j = jobs.find(it->first);
    if (j == jobs.end() || !j->second->Pending() || now_s < it->second.deadline_unix) {
      ++it;
      continue;
    }
    const Status s = source->SetRequiredNodes(it->second.job_id, it->second.before);
    ApplyLog({{"event", "unpin"},
              {"job", it->first},
              {"job_id", it->second.job_id},
              {"to", it->second.before},
              {"why", "deadline"},
              {"ok", s.ok()},
              {"error", s.ok() ? "" : s.message()}},
             now_ms);
    count(s.ok() ? "unpinned_deadline" : "unpin_failed");
    it = pins.erase(it);
  }
  // Refill the bucket: max_per_minute tokens a minute, at most that many.
  const double rate = std::max(0.0, o.apply.max_per_minute);
  if (tokens_ms > 0) tokens += rate * static_cast<double>(now_ms - tokens_ms) / 60000.0;
  tokens = std::min(tokens, std::max(1.0, rate));
  tokens_ms = now_ms;
  for (const SlurmAdvice& a : advice) {
    if (a.held || a.nodes.empty() || pins.count(a.job)) continue;
    if (!Allowed(o.apply.partitions, a.partition)) continue;
    // Array summaries ("17_[0-2]") and het components are not pinned: a pin
    // would bind every remaining task, or one component of several.
    if (a.job.find('[') != std::string::npos || a.job.find('+') != std::string::npos) continue;
    auto j = jobs.find(a.job);
    if (j == jobs.end() || !j->second->Pending() || !j->second->required_nodes.empty()) continue;
    if (tokens < 1.0) {
      count("rate_limited");
      continue;
    }
    tokens -= 1.0;
    SlurmPin pin;
    pin.job = a.job;
    pin.job_id = a.job_id;
    pin.before = j->second->required_nodes;
    pin.after = traces::CompressHostlist(Unique(a.nodes));
    pin.deadline_unix = now_s + o.apply.deadline_s;
    const Status s = source->SetRequiredNodes(pin.job_id, pin.after);
    ApplyLog({{"event", s.ok() ? "pin" : "pin_failed"},
              {"job", pin.job},
              {"job_id", pin.job_id},
              {"partition", a.partition},
              {"before", pin.before},
              {"after", pin.after},
              {"deadline", pin.deadline_unix},
              {"error", s.ok() ? "" : s.message()}},
             now_ms);
    count(s.ok() ? "pinned" : "failed");
    if (s.ok()) pins[a.job] = pin;
  }
}

Result<std::vector<std::string>> RevertPins(const std::string& path, SlurmSource* source,
                                            JsonlFile* apply_log) {
  std::ifstream in(path);
  if (!in) return Status::Error(StatusCode::kIo, path + ": cannot read the apply log");
  std::map<std::string, SlurmPin> open;
  std::string line;
  int64_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;  // a last partial line
    internal::JsonLine f(j, path + ":" + std::to_string(n));
    const std::string event = f.Str("event");
    const std::string job = f.Str("job");
    if (event == "pin") {
      SlurmPin p;
      p.job = job;
      p.job_id = f.Int("job_id");
      p.before = f.Str("before");
      p.after = f.Str("after");
      if (f.status().ok() && p.job_id > 0) open[job] = p;
    } else if (event == "pin_ended" || (event == "unpin" && f.Bool("ok"))) {
      open.erase(job);
    }
    if (!f.status().ok()) return f.status();
  }
  std::vector<std::string> out;
  if (open.empty()) {
    out.push_back("no pin to undo in " + path + " (" + std::to_string(n) + " lines)");
    return out;
  }
  auto text = source->Jobs();
  if (!text.ok()) return text.status();
  auto jobs = ParseSlurmJobs(text.value());
  if (!jobs.ok()) return jobs.status().Prefixed("Slurm's jobs: ");
  std::map<int64_t, const SlurmJobInfo*> by_id;
  for (const SlurmJobInfo& j : jobs.value()) by_id[j.job_id] = &j;
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  for (const auto& [job, p] : open) {
    auto it = by_id.find(p.job_id);
    if (it == by_id.end()) {
      out.push_back(job + ": not in Slurm any more (nothing to undo)");
      continue;
    }
    const SlurmJobInfo& j = *it->second;
    if (!j.Pending()) {
      out.push_back(job + ": " + j.state + " on " + traces::CompressHostlist(j.nodes) +
                    " (nothing to undo)");
      continue;
    }
    if (j.required_nodes != p.after) {
      out.push_back(job + ": required nodes are now '" + j.required_nodes +
                    "', not utilsim's pin '" + p.after + "' (left alone)");
      continue;
    }
    const Status s = source->SetRequiredNodes(p.job_id, p.before);
    if (apply_log != nullptr) {
      json l = {{"v", 1},          {"t", now_ms},        {"event", "unpin"},
                {"job", job},      {"job_id", p.job_id}, {"to", p.before},
                {"why", "revert"}, {"ok", s.ok()},       {"error", s.ok() ? "" : s.message()}};
      apply_log->Write(l.dump(-1, ' ', false, json::error_handler_t::replace));
    }
    out.push_back(job + ": " +
                  (s.ok() ? "pin to " + p.after + " removed (required nodes '" + p.before + "')"
                          : "could not remove the pin: " + s.message()));
  }
  return out;
}

}  // namespace utilsim::live
