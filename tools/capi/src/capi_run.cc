// The C ABI's runs: inputs, results and the SQLite store (the run spec's
// setters are in capi_spec.cc).
#include <algorithm>
#include <filesystem>
#include <string>

#include "capi_internal.h"
#include "utilsim/engine/wait.h"
#include "utilsim/policies/registry.h"
#include "utilsim/results/result_store.h"

namespace utilsim::capi {

namespace {

// A file or folder the inputs name that is not there.
Status Missing(const std::string& what, const std::string& path) {
  std::error_code ec;
  if (path.empty() || std::filesystem::exists(path, ec)) return Status::Ok();
  return Status::Error(StatusCode::kNotFound, what + ": " + path + ": no such file or folder");
}

Status Load(const char* trace, const char* format, const char* cluster, uint64_t seed, int64_t jobs,
            utilsim_inputs** out) {
  if (!trace) return Null("utilsim_inputs_load", "trace");
  if (!out) return Null("utilsim_inputs_load", "out");
  InputOptions opt;
  opt.trace = trace;
  opt.format = Str(format);
  opt.cluster = Str(cluster);
  opt.seed = seed;
  const bool builtin = opt.trace.rfind("builtin:", 0) == 0;
  if (jobs > 0) {
    if (!builtin)
      return Status::Error(StatusCode::kInvalidArgument,
                           "jobs: only for built-in workloads (builtin:demo, builtin:bench); " +
                               opt.trace + " has the jobs it has");
    opt.jobs = jobs;
  }
  if (!builtin) {
    size_t pos = 0;
    while (pos <= opt.trace.size()) {
      size_t end = opt.trace.find(',', pos);
      if (end == std::string::npos) end = opt.trace.size();
      if (Status s = Missing("trace", opt.trace.substr(pos, end - pos)); !s.ok()) return s;
      pos = end + 1;
    }
  }
  if (Status s = Missing("cluster", opt.cluster); !s.ok()) return s;
  auto in = utilsim::LoadInputs(opt);
  if (!in.ok()) return Recode(in.status(), StatusCode::kInvalidArgument);
  *out = new utilsim_inputs{std::move(in).value()};
  return Status::Ok();
}

Status Run(const utilsim_inputs* inputs, const utilsim_spec* spec, const char* policy,
           utilsim_result** out) {
  if (!inputs) return Null("utilsim_run", "inputs");
  if (!policy) return Null("utilsim_run", "policy");
  if (!out) return Null("utilsim_run", "out");
  const RunSpec defaults;
  const RunSpec& rs = spec ? spec->spec : defaults;
  PolicyRegistry reg = BuiltinPolicies();
  if (spec && !spec->profiles.empty())
    if (Status s = LoadProfiles(spec->profiles, &reg); !s.ok())
      return Recode(s, StatusCode::kInvalidArgument);
  if (auto made = reg.Make(policy, rs.seed); !made.ok())
    return Recode(made.status(), StatusCode::kNotFound);
  auto prepared = BuildRun(rs, inputs->in, inputs->in.cluster, reg);
  if (!prepared.ok()) return Recode(prepared.status(), StatusCode::kInvalidArgument);
  auto run = prepared.value()->Simulate(policy);
  if (!run.ok())
    return Status::Error(run.status().code(),
                         "policy '" + std::string(policy) + "': " + run.status().message());
  auto r = std::make_unique<utilsim_result>();
  r->run = std::move(run).value();
  r->policy = policy;
  const Workload& w = prepared.value()->workload();
  for (const JobRecord& j : r->run.jobs) {
    const bool known = j.job < w.jobs.size();
    r->gpus.push_back(known ? w.jobs[j.job].tasks * w.jobs[j.job].task.gpus : 0);
    r->nodes.push_back(NodesOf(j.placement));
  }
  *out = r.release();
  return Status::Ok();
}

void Fill(const Summary& s, utilsim_summary* o) {
  *o = utilsim_summary{};
  o->jobs = s.jobs;
  o->finished = s.finished;
  o->rejected = s.rejected;
  o->unfinished = s.unfinished;
  o->killed = s.killed;
  o->capacity_gpus = s.capacity_gpus;
  o->window_start_s = s.window_start.seconds();
  o->window_end_s = s.window_end.seconds();
  o->allocation_pct = s.allocation_pct;
  o->effective_util_pct = s.effective_util_pct;
  o->alloc_gpu_h = s.alloc_gpu_h;
  o->useful_gpu_h = s.useful_gpu_h;
  o->idle_alloc_gpu_h = s.idle_alloc_gpu_h;
  o->price_per_gpu_h = s.price_per_gpu_h;
  o->idle_cost = s.idle_cost;
  o->stranded_gpu_h = s.stranded_gpu_h;
  o->cpu_alloc_pct = s.cpu_alloc_pct;
  o->mem_alloc_pct = s.mem_alloc_pct;
  o->wait_mean_s = s.wait_mean_s;
  o->wait_p50_s = s.wait_p50_s;
  o->wait_p95_s = s.wait_p95_s;
  o->wait_p99_s = s.wait_p99_s;
  o->wait_max_s = s.wait_max_s;
  o->queued_mean_s = s.queued_mean_s;
  o->queued_p95_s = s.queued_p95_s;
  o->jct_mean_s = s.jct_mean_s;
  o->jct_p50_s = s.jct_p50_s;
  o->jct_p95_s = s.jct_p95_s;
  o->slowdown_mean = s.slowdown_mean;
  o->slowdown_p95 = s.slowdown_p95;
  o->makespan_s = s.makespan_s;
  o->tenant_fairness = s.tenant_fairness;
  o->events = s.events;
}

Status Row(const utilsim_result* r, size_t i, utilsim_job_row* o) {
  if (!r) return Null("utilsim_result_job", "result");
  if (!o) return Null("utilsim_result_job", "out");
  if (i >= r->run.jobs.size())
    return Status::Error(StatusCode::kNotFound, "utilsim_result_job: row " + std::to_string(i) +
                                                    " of " + std::to_string(r->run.jobs.size()));
  const JobRecord& j = r->run.jobs[i];
  *o = utilsim_job_row{};
  o->name = j.name.c_str();
  o->outcome = JobOutcomeName(j.outcome);
  o->submit_s = j.submit.seconds();
  o->start_s = j.start.us < 0 ? -1 : j.start.seconds();
  o->finish_s = j.finish.us < 0 ? -1 : j.finish.seconds();
  o->wait_s = j.wait_s();
  o->tasks = j.tasks;
  o->gpus = r->gpus[i];
  o->gpu_milli = j.gpu_milli;
  o->nodes = r->nodes[i].c_str();
  o->placement = j.placement.c_str();
  o->preemptions = j.preemptions;
  o->alloc_gpu_s = j.alloc_gpu_s;
  o->useful_gpu_s = j.useful_gpu_s;
  return Status::Ok();
}

Status Write(const utilsim_result* const* results, size_t count, const char* path) {
  if (!results && count > 0) return Null("utilsim_results_write", "results");
  if (!path) return Null("utilsim_results_write", "path");
  if (count == 0)
    return Status::Error(StatusCode::kInvalidArgument, "utilsim_results_write: no results");
  std::vector<RunResult> runs;
  for (size_t i = 0; i < count; ++i) {
    if (!results[i])
      return Status::Error(StatusCode::kInvalidArgument,
                           "utilsim_results_write: results[" + std::to_string(i) + "] is NULL");
    runs.push_back(results[i]->run);
  }
  return Recode(WriteResults(runs, path), StatusCode::kIo);
}

}  // namespace

}  // namespace utilsim::capi

using utilsim::Status;
using utilsim::capi::Call;
using utilsim::capi::Null;

extern "C" {

int utilsim_inputs_load(const char* trace, const char* format, const char* cluster, uint64_t seed,
                        int64_t jobs, utilsim_inputs** out, utilsim_error** error) {
  return Call(error, [&] { return utilsim::capi::Load(trace, format, cluster, seed, jobs, out); });
}

void utilsim_inputs_free(utilsim_inputs* inputs) { delete inputs; }

int utilsim_inputs_info_get(const utilsim_inputs* inputs, utilsim_inputs_info* out,
                            utilsim_error** error) {
  return Call(error, [&] {
    if (!inputs) return Null("utilsim_inputs_info_get", "inputs");
    if (!out) return Null("utilsim_inputs_info_get", "out");
    const utilsim::Inputs& in = inputs->in;
    out->jobs = static_cast<int64_t>(in.workload.jobs.size());
    out->nodes = in.cluster.total_nodes();
    out->gpus = in.cluster.total_gpus();
    out->source = in.workload.source.c_str();
    out->cluster = in.cluster.name.c_str();
    out->digest = in.digest.c_str();
    return Status::Ok();
  });
}

int utilsim_run(const utilsim_inputs* inputs, const utilsim_spec* spec, const char* policy,
                utilsim_result** out, utilsim_error** error) {
  return Call(error, [&] { return utilsim::capi::Run(inputs, spec, policy, out); });
}

void utilsim_result_free(utilsim_result* result) { delete result; }

int utilsim_result_summary(const utilsim_result* result, utilsim_summary* out,
                           utilsim_error** error) {
  return Call(error, [&] {
    if (!result) return Null("utilsim_result_summary", "result");
    if (!out) return Null("utilsim_result_summary", "out");
    utilsim::capi::Fill(result->run.summary, out);
    return Status::Ok();
  });
}

int utilsim_result_energy(const utilsim_result* result, utilsim_energy* out,
                          utilsim_error** error) {
  return Call(error, [&] {
    if (!result) return Null("utilsim_result_energy", "result");
    if (!out) return Null("utilsim_result_energy", "out");
    const utilsim::Summary& s = result->run.summary;
    *out = utilsim_energy{s.energy_it_kwh,
                          s.energy_busy_kwh,
                          s.energy_alloc_idle_kwh,
                          s.energy_free_kwh,
                          s.energy_stranded_kwh,
                          s.energy_node_kwh,
                          s.pue,
                          s.energy_facility_kwh,
                          s.energy_price_per_kwh,
                          s.energy_cost,
                          s.idle_alloc_energy_cost,
                          s.off_gpu_h,
                          s.wakeups};
    return Status::Ok();
  });
}

size_t utilsim_wait_cause_count(void) { return utilsim::kWaitCauses; }

const char* utilsim_wait_cause_name(size_t i) {
  return i < utilsim::kWaitCauses ? utilsim::WaitCauseName(static_cast<utilsim::WaitCause>(i))
                                  : nullptr;
}

int utilsim_result_wait_hours(const utilsim_result* result, double* hours, size_t n,
                              utilsim_error** error) {
  return Call(error, [&] {
    if (!result) return Null("utilsim_result_wait_hours", "result");
    if (!hours) return Null("utilsim_result_wait_hours", "hours");
    if (n < utilsim::kWaitCauses)
      return Status::Error(utilsim::StatusCode::kInvalidArgument,
                           "utilsim_result_wait_hours: n is " + std::to_string(n) +
                               ", expected at least " + std::to_string(utilsim::kWaitCauses) +
                               " (utilsim_wait_cause_count())");
    const auto& h = result->run.summary.wait_cause_h;
    std::copy(h.begin(), h.end(), hours);
    return Status::Ok();
  });
}

int utilsim_result_policy(const utilsim_result* result, const char** out, utilsim_error** error) {
  return Call(error, [&] {
    if (!result) return Null("utilsim_result_policy", "result");
    if (!out) return Null("utilsim_result_policy", "out");
    *out = result->policy.c_str();
    return Status::Ok();
  });
}

int utilsim_result_job_count(const utilsim_result* result, size_t* out, utilsim_error** error) {
  return Call(error, [&] {
    if (!result) return Null("utilsim_result_job_count", "result");
    if (!out) return Null("utilsim_result_job_count", "out");
    *out = result->run.jobs.size();
    return Status::Ok();
  });
}

int utilsim_result_job(const utilsim_result* result, size_t i, utilsim_job_row* out,
                       utilsim_error** error) {
  return Call(error, [&] { return utilsim::capi::Row(result, i, out); });
}

int utilsim_results_write(const utilsim_result* const* results, size_t count, const char* path,
                          utilsim_error** error) {
  return Call(error, [&] { return utilsim::capi::Write(results, count, path); });
}

}  // extern "C"
