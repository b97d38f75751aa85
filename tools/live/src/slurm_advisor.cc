// SlurmAdvisor (slurm_advisor.h): polls, advice tracking, the advice log.
#include "utilsim/live/slurm_advisor.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "slurm_advisor_impl.h"

namespace utilsim::live {

using nlohmann::json;

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool SameSet(std::vector<std::string> a, std::vector<std::string> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  return a == b;
}

// What makes an advice worth a new log line.
bool SameAdvice(const SlurmAdvice& a, const SlurmAdvice& b) {
  return a.nodes == b.nodes && a.now == b.now && a.est_start_unix == b.est_start_unix &&
         a.why == b.why && a.slurm_reason == b.slurm_reason && a.placement == b.placement;
}

// "17_[0-2]" -> 17; else 0.
int64_t ArrayOf(const std::string& job) {
  const size_t u = job.find("_[");
  if (u == std::string::npos) return 0;
  return std::strtoll(job.substr(0, u).c_str(), nullptr, 10);
}

}  // namespace

json AdviceJsonOf(const SlurmAdvice& a) {
  return {{"job", a.job},
          {"job_id", a.job_id},
          {"partition", a.partition},
          {"user", a.user},
          {"account", a.account},
          {"priority", a.priority},
          {"tasks", a.tasks},
          {"gpus", a.task.gpus},
          {"cpu_milli", a.task.cpu_milli},
          {"mem_bytes", a.task.mem_bytes},
          {"gpu_model", a.gpu_model},
          {"whole_node_memory", a.whole_node_memory},
          {"held", a.held},
          {"now", a.now},
          {"nodes", a.nodes},
          {"placement", a.placement},
          {"ranked", a.ranked},
          {"stranded_after", a.stranded_after},
          {"est_start", a.est_start_unix},
          {"slurm_start", a.slurm_start_unix},
          {"slurm_reason", a.slurm_reason},
          {"why", a.why}};
}

void SlurmAdvisor::Impl::Log(json j, int64_t now_ms) {
  if (log == nullptr) return;
  json line = {{"v", 1}, {"t", now_ms}};
  line.update(j);
  log->Write(line.dump(-1, ' ', false, json::error_handler_t::replace));
}

void SlurmAdvisor::Impl::ApplyLog(json j, int64_t now_ms) {
  if (apply_log == nullptr) return;
  json line = {{"v", 1}, {"t", now_ms}};
  line.update(j);
  apply_log->Write(line.dump(-1, ' ', false, json::error_handler_t::replace));
}

void SlurmAdvisor::Impl::Failed(const Status& s, int64_t now_ms) {
  {
    std::lock_guard<std::mutex> lock(mu);
    ++failed;
    last_error = s.message();
  }
  if (!in_error_streak) {
    Log({{"event", "poll_error"}, {"error", s.message()}}, now_ms);
    streak_start_ms = now_ms;
    streak_failures = 0;
  }
  ++streak_failures;
  in_error_streak = true;
}

SlurmAdvisor::SlurmAdvisor(SlurmAdvisorOptions options, SlurmSource* source, JsonlFile* advice_log,
                           JsonlFile* apply_log, MeasuredUtil* measured)
    : impl_(std::make_unique<Impl>()) {
  impl_->o = std::move(options);
  impl_->source = source;
  impl_->log = advice_log;
  impl_->apply_log = apply_log;
  impl_->measured = measured;
  impl_->tokens = impl_->o.apply.max_per_minute;
}

SlurmAdvisor::~SlurmAdvisor() = default;

Status SlurmAdvisor::Poll(int64_t now_ms) {
  Impl& m = *impl_;
  auto fail = [&](const Status& s) {
    m.Failed(s, now_ms);
    return s;
  };
  auto jobs_text = m.source->Jobs();
  if (!jobs_text.ok()) return fail(jobs_text.status());
  auto nodes_text = m.source->Nodes();
  if (!nodes_text.ok()) return fail(nodes_text.status());
  SlurmMeta meta;
  auto jobs = ParseSlurmJobs(jobs_text.value(), &meta);
  if (!jobs.ok()) return fail(jobs.status().Prefixed("Slurm's jobs: "));
  auto nodes = ParseSlurmNodes(nodes_text.value());
  if (!nodes.ok()) return fail(nodes.status().Prefixed("Slurm's nodes: "));
  auto model = SlurmModel::Build(nodes.value(), jobs.value(), m.o.advice);
  if (!model.ok()) return fail(model.status());
  std::shared_ptr<const MeasuredSnapshot> snap;
  if (m.measured != nullptr) snap = m.measured->Current();
  model.value()->SetMeasured(snap.get());
  const int64_t now_s = now_ms / 1000;
  std::vector<SlurmAdvice> advice = model.value()->Advise(now_s);
  SlurmUsage usage = model.value()->Usage(snap.get());

  if (!m.start_logged) {
    m.Log({{"event", "start"},
           {"policy", m.o.advice.policy},
           {"source", m.source->Describe()},
           {"slurm", meta.release},
           {"data_parser", meta.data_parser},
           {"apply", m.o.apply.enabled}},
          now_ms);
    m.start_logged = true;
  }
  if (m.in_error_streak)
    m.Log({{"event", "recovered"},
           {"failed_polls", m.streak_failures},
           {"down_s", static_cast<double>(now_ms - m.streak_start_ms) / 1000.0},
           {"last_error", m.last_error}},
          now_ms);
  m.in_error_streak = false;

  std::map<std::string, const SlurmJobInfo*> by_id;
  for (const SlurmJobInfo& j : jobs.value()) by_id[j.display_id] = &j;
  std::map<std::string, uint64_t> agreement;
  std::set<std::string> attributed;
  std::map<std::string, int32_t> stranded_on;
  for (const auto& n : usage.nodes) stranded_on[n.name] = n.stranded;
  for (auto it = m.tracked.begin(); it != m.tracked.end();) {
    const std::string& key = it->first;
    const SlurmJobInfo* j = nullptr;
    if (auto f = by_id.find(key); f != by_id.end()) j = f->second;
    if (const int64_t array = ArrayOf(key); array > 0) {
      // An array's pending tasks: the advice was for the next task to start.
      for (const SlurmJobInfo& t : jobs.value())
        if (t.array_job_id == array && t.array_task_id >= 0 && !t.Pending() && !t.nodes.empty() &&
            !attributed.count(t.display_id) && !m.tracked.count(t.display_id)) {
          j = &t;
          break;
        }
    }
    if (j != nullptr && j->Pending()) {
      ++it;
      continue;
    }
    const SlurmAdvice& a = it->second;
    if (j != nullptr && !j->nodes.empty()) {
      attributed.insert(j->display_id);
      const bool agree = SameSet(j->nodes, a.nodes);
      bool in_ranked = agree;
      for (const auto& r : a.ranked) in_ranked = in_ranked || SameSet(j->nodes, r);
      int32_t stranded = 0;
      std::vector<std::string> uniq = j->nodes;
      std::sort(uniq.begin(), uniq.end());
      uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
      for (const auto& n : uniq) stranded += stranded_on.count(n) ? stranded_on[n] : 0;
      const bool applied = m.pins.count(key) > 0;
      m.Log({{"event", "started"},
             {"job", j->display_id},
             {"advised_as", key},
             {"job_id", j->job_id},
             {"slurm_nodes", j->nodes},
             {"advised", a.nodes},
             {"agree", agree},
             {"in_ranked", in_ranked},
             {"applied", applied},
             {"start", j->start_time},
             {"stranded_slurm", stranded},
             {"advised_stranded", a.stranded_after}},
            now_ms);
      ++agreement[agree ? "same_nodes" : in_ranked ? "in_ranked" : "other"];
      if (applied) m.PinEnded(key, "started", j->nodes, now_ms);
    } else {
      m.Log({{"event", "gone"}, {"job", key}, {"state", j ? j->state : "not listed"}}, now_ms);
      if (m.pins.count(key)) m.PinEnded(key, "gone", {}, now_ms);
    }
    it = m.tracked.erase(it);
  }
  for (const SlurmAdvice& a : advice) {
    auto it = m.tracked.find(a.job);
    if (it != m.tracked.end() && SameAdvice(it->second, a)) continue;
    json line = AdviceJsonOf(a);
    line["event"] = "advice";
    m.Log(line, now_ms);
    m.tracked[a.job] = a;
  }
  if (m.o.apply.enabled) m.Apply(advice, by_id, now_ms);

  std::lock_guard<std::mutex> lock(m.mu);
  size_t pending = 0;
  for (const SlurmJobInfo& j : jobs.value()) pending += j.Pending() && j.TotalGpus() > 0;
  m.pending_gpu_jobs = pending;
  m.latest = std::move(advice);
  m.usage = std::move(usage);
  m.has_measured = snap != nullptr;
  m.unmodelled = model.value()->unmodelled();
  m.release = meta.release;
  m.data_parser = meta.data_parser;
  m.ready = true;
  m.last_ok_ms = now_ms;
  ++m.ok;
  for (const auto& [k, v] : agreement) m.agreement[k] += v;
  return Status::Ok();
}

void SlurmAdvisor::Run(const std::atomic<bool>& stop, int64_t max_polls) {
  int failures = 0;
  for (int64_t n = 0; !stop && (max_polls <= 0 || n < max_polls); ++n) {
    const bool ok = Poll(NowMs()).ok();
    failures = ok ? 0 : std::min(failures + 1, 30);
    if (max_polls > 0 && n + 1 >= max_polls) break;
    int64_t wait_ms = int64_t{impl_->o.poll_s} * 1000;
    if (!ok)
      wait_ms = std::min<int64_t>(wait_ms << std::min(failures - 1, 20),
                                  int64_t{impl_->o.max_backoff_s} * 1000);
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
    while (!stop && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

bool SlurmAdvisor::ready() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->ready;
}
uint64_t SlurmAdvisor::polls_ok() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->ok;
}
uint64_t SlurmAdvisor::polls_failed() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->failed;
}
std::vector<SlurmAdvice> SlurmAdvisor::advice() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->latest;
}
std::string SlurmAdvisor::last_error() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->last_error;
}

}  // namespace utilsim::live
