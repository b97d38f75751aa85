// The C ABI's decisions: utilsim_placer over a DecisionSession, so the
// struct calls and utilsim_decide (the JSON protocol) share one state.
#include <cstring>

#include "capi_internal.h"
#include "utilsim/policies/registry.h"

namespace utilsim::capi {

namespace {

Status BadField(const std::string& field, const std::string& what, int64_t got) {
  return Status::Error(StatusCode::kInvalidArgument,
                       "job." + field + ": expected " + what + ", got " + std::to_string(got));
}

// The C demand as an engine Job (zero tasks and gpu_milli mean the
// defaults), with the ranges of the JSON protocol.
Result<Job> ToJob(const utilsim_job_demand& d) {
  Job j;
  j.name = d.id && *d.id ? d.id : "job";
  j.tasks = d.tasks == 0 ? 1 : d.tasks;
  if (j.tasks < 1 || j.tasks > 1'000'000) return BadField("tasks", "1..1000000", d.tasks);
  if (d.gpus < 0 || d.gpus > 64) return BadField("gpus", "0..64", d.gpus);
  const int32_t milli = d.gpu_milli == 0 ? 1000 : d.gpu_milli;
  if (milli < 1 || milli > 1000) return BadField("gpu_milli", "1..1000", d.gpu_milli);
  if (milli < 1000 && d.gpus != 1)
    return BadField("gpu_milli", "1000 unless gpus is 1 (a share of one GPU)", milli);
  if (d.cpu_milli < 0) return BadField("cpu_milli", "milli-cores >= 0", d.cpu_milli);
  if (d.mem_bytes < 0) return BadField("mem_bytes", "bytes >= 0", d.mem_bytes);
  if (d.gpu_mem_bytes < 0) return BadField("gpu_mem_bytes", "bytes >= 0", d.gpu_mem_bytes);
  j.task.gpus = d.gpus;
  j.task.gpu_milli = milli;
  j.task.cpu_milli = d.cpu_milli;
  j.task.mem_bytes = d.mem_bytes;
  j.task.gpu_mem_bytes = d.gpu_mem_bytes;
  if (d.gpu_model && *d.gpu_model) j.gpu_models = {d.gpu_model};
  return j;
}

utilsim_placement FromPlacement(const DecisionSession& s, const Placement& p) {
  utilsim_placement out;
  for (const TaskPlacement& t : p)
    out.tasks.emplace_back(s.placer().state().node(t.node).name, t.gpu_mask);
  out.text = s.placer().Describe(p);
  return out;
}

Status Create(const char* cluster, const char* policy, const char* profiles, uint64_t seed,
              utilsim_placer** out) {
  if (!cluster) return Null("utilsim_placer_create", "cluster_yaml");
  if (!policy) return Null("utilsim_placer_create", "policy");
  if (!out) return Null("utilsim_placer_create", "out");
  PolicyRegistry reg = BuiltinPolicies();
  if (profiles && *profiles)
    if (Status s = LoadProfiles(profiles, &reg); !s.ok())
      return Recode(s, StatusCode::kInvalidArgument);
  auto session = DecisionSession::Open(cluster, policy, reg, seed);
  if (!session.ok()) return session.status();
  *out = new utilsim_placer{std::move(session).value()};
  return Status::Ok();
}

Status Place(utilsim_placer* placer, const utilsim_job_demand* job, utilsim_placement** out) {
  if (!placer) return Null("utilsim_placer_place", "placer");
  if (!job) return Null("utilsim_placer_place", "job");
  if (!out) return Null("utilsim_placer_place", "out");
  auto j = ToJob(*job);
  if (!j.ok()) return j.status();
  auto p = placer->session->Place(j.value());
  *out = p ? new utilsim_placement(FromPlacement(*placer->session, *p)) : nullptr;
  return Status::Ok();
}

Status Rank(utilsim_placer* placer, const utilsim_job_demand* job, size_t k,
            utilsim_placement_list** out) {
  if (!placer) return Null("utilsim_placer_rank", "placer");
  if (!job) return Null("utilsim_placer_rank", "job");
  if (!out) return Null("utilsim_placer_rank", "out");
  auto j = ToJob(*job);
  if (!j.ok()) return j.status();
  auto list = std::make_unique<utilsim_placement_list>();
  for (const Placement& p : placer->session->Rank(j.value(), k))
    list->items.push_back(FromPlacement(*placer->session, p));
  *out = list.release();
  return Status::Ok();
}

Status Started(utilsim_placer* placer, const utilsim_job_demand* job,
               const utilsim_placement* where) {
  if (!placer) return Null("utilsim_placer_started", "placer");
  if (!job) return Null("utilsim_placer_started", "job");
  if (!where) return Null("utilsim_placer_started", "where");
  if (!job->id || !*job->id)
    return Status::Error(StatusCode::kInvalidArgument,
                         "utilsim_placer_started: job.id: required (the job's id)");
  auto j = ToJob(*job);
  if (!j.ok()) return j.status();
  Placement p;
  for (size_t i = 0; i < where->tasks.size(); ++i) {
    const int64_t n = placer->session->NodeIndexOf(where->tasks[i].first);
    if (n < 0)
      return Status::Error(StatusCode::kNotFound, "where: task " + std::to_string(i) +
                                                      ": no node '" + where->tasks[i].first +
                                                      "' in the cluster");
    p.push_back({static_cast<NodeIndex>(n), where->tasks[i].second});
  }
  return placer->session->Started(job->id, j.value(), p);
}

Status Decide(utilsim_placer* placer, const char* request, char** response) {
  if (!placer) return Null("utilsim_decide", "placer");
  if (!request) return Null("utilsim_decide", "request");
  if (!response) return Null("utilsim_decide", "response");
  Status outcome;
  const std::string r = placer->session->Handle(request, &outcome);
  char* copy = new char[r.size() + 1];
  std::memcpy(copy, r.c_str(), r.size() + 1);
  *response = copy;
  return outcome;
}

Status AddTask(utilsim_placement* p, const char* node, uint64_t mask) {
  if (!p) return Null("utilsim_placement_add_task", "placement");
  if (!node || !*node)
    return Status::Error(StatusCode::kInvalidArgument,
                         "utilsim_placement_add_task: node: expected a node name");
  p->tasks.emplace_back(node, mask);
  p->text = PlacementText(*p);
  return Status::Ok();
}

}  // namespace

}  // namespace utilsim::capi

using utilsim::Status;
using utilsim::capi::Call;
using utilsim::capi::Null;

extern "C" {

int utilsim_placer_create(const char* cluster_yaml, const char* policy, const char* profiles,
                          uint64_t seed, utilsim_placer** out, utilsim_error** error) {
  return Call(error,
              [&] { return utilsim::capi::Create(cluster_yaml, policy, profiles, seed, out); });
}

void utilsim_placer_free(utilsim_placer* placer) { delete placer; }

int utilsim_placer_place(utilsim_placer* placer, const utilsim_job_demand* job,
                         utilsim_placement** out, utilsim_error** error) {
  return Call(error, [&] { return utilsim::capi::Place(placer, job, out); });
}

int utilsim_placer_rank(utilsim_placer* placer, const utilsim_job_demand* job, size_t k,
                        utilsim_placement_list** out, utilsim_error** error) {
  return Call(error, [&] { return utilsim::capi::Rank(placer, job, k, out); });
}

int utilsim_placer_started(utilsim_placer* placer, const utilsim_job_demand* job,
                           const utilsim_placement* where, utilsim_error** error) {
  return Call(error, [&] { return utilsim::capi::Started(placer, job, where); });
}

int utilsim_placer_finished(utilsim_placer* placer, const char* id, utilsim_error** error) {
  return Call(error, [&] {
    if (!placer) return Null("utilsim_placer_finished", "placer");
    if (!id) return Null("utilsim_placer_finished", "id");
    return placer->session->Finished(id);
  });
}

int utilsim_placer_drain(utilsim_placer* placer, const char* node, int drained,
                         utilsim_error** error) {
  return Call(error, [&] {
    if (!placer) return Null("utilsim_placer_drain", "placer");
    if (!node) return Null("utilsim_placer_drain", "node");
    return placer->session->SetDrained(node, drained != 0);
  });
}

int utilsim_decide(utilsim_placer* placer, const char* request, char** response,
                   utilsim_error** error) {
  return Call(error, [&] { return utilsim::capi::Decide(placer, request, response); });
}

int utilsim_placement_create(utilsim_placement** out, utilsim_error** error) {
  return Call(error, [&] {
    if (!out) return Null("utilsim_placement_create", "out");
    *out = new utilsim_placement{};
    return Status::Ok();
  });
}

int utilsim_placement_add_task(utilsim_placement* placement, const char* node, uint64_t gpu_mask,
                               utilsim_error** error) {
  return Call(error, [&] { return utilsim::capi::AddTask(placement, node, gpu_mask); });
}

void utilsim_placement_free(utilsim_placement* placement) { delete placement; }

int utilsim_placement_task_count(const utilsim_placement* placement, size_t* out,
                                 utilsim_error** error) {
  return Call(error, [&] {
    if (!placement) return Null("utilsim_placement_task_count", "placement");
    if (!out) return Null("utilsim_placement_task_count", "out");
    *out = placement->tasks.size();
    return Status::Ok();
  });
}

int utilsim_placement_task(const utilsim_placement* placement, size_t i, const char** node,
                           uint64_t* gpu_mask, utilsim_error** error) {
  return Call(error, [&] {
    if (!placement) return Null("utilsim_placement_task", "placement");
    if (!node) return Null("utilsim_placement_task", "node");
    if (!gpu_mask) return Null("utilsim_placement_task", "gpu_mask");
    if (i >= placement->tasks.size())
      return Status::Error(utilsim::StatusCode::kNotFound,
                           "utilsim_placement_task: task " + std::to_string(i) + " of " +
                               std::to_string(placement->tasks.size()));
    *node = placement->tasks[i].first.c_str();
    *gpu_mask = placement->tasks[i].second;
    return Status::Ok();
  });
}

int utilsim_placement_text(const utilsim_placement* placement, const char** out,
                           utilsim_error** error) {
  return Call(error, [&] {
    if (!placement) return Null("utilsim_placement_text", "placement");
    if (!out) return Null("utilsim_placement_text", "out");
    *out = placement->text.c_str();
    return Status::Ok();
  });
}

void utilsim_placement_list_free(utilsim_placement_list* list) { delete list; }

int utilsim_placement_list_count(const utilsim_placement_list* list, size_t* out,
                                 utilsim_error** error) {
  return Call(error, [&] {
    if (!list) return Null("utilsim_placement_list_count", "list");
    if (!out) return Null("utilsim_placement_list_count", "out");
    *out = list->items.size();
    return Status::Ok();
  });
}

int utilsim_placement_list_get(const utilsim_placement_list* list, size_t i,
                               const utilsim_placement** out, utilsim_error** error) {
  return Call(error, [&] {
    if (!list) return Null("utilsim_placement_list_get", "list");
    if (!out) return Null("utilsim_placement_list_get", "out");
    if (i >= list->items.size())
      return Status::Error(utilsim::StatusCode::kNotFound, "utilsim_placement_list_get: entry " +
                                                               std::to_string(i) + " of " +
                                                               std::to_string(list->items.size()));
    *out = &list->items[i];
    return Status::Ok();
  });
}

}  // extern "C"
