// Decisions for a scheduler in another process or language: a Placer
// (utilsim/policies/placer.h) with the bookkeeping a remote caller needs
// (jobs by id, drained nodes, free resources per node) and the JSON decision
// protocol over it, one request object in, one response object out
// (docs/embedding.md, "Decisions from another process"; `utilsim decide`
// speaks it over standard input and output, the C ABI through
// utilsim_decide).
//
//   auto s = DecisionSession::Open("cluster.yaml", "best-fit");
//   s.value()->Handle(R"({"op":"place","job":{"gpus":4}})");
//   // -> {"ok":true,"placement":{"nodes":["gpu-0"],"gpus":[[0,1,2,3]],...}}
//
// The typed methods and Handle act on one state: a job started through one
// is finished through the other. Errors carry a StatusCode: kInvalidArgument
// (a malformed request, a value out of range, a placement that does not fit,
// a job id already running), kNotFound (an unknown node, job id or policy).
// Thread-safety: none; one thread at a time per session.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/placement.h"
#include "utilsim/engine/status.h"
#include "utilsim/policies/placer.h"
#include "utilsim/policies/registry.h"

namespace utilsim {

// The version of the JSON messages ({"op":"version"} reports it). A field or
// op added keeps it; a changed meaning raises it.
inline constexpr int kDecisionProtocolVersion = 1;

// Free resources of one node, as the caller's cluster has them (a drained
// node's free resources included: draining holds them from the policy only).
struct NodeFree {
  std::string name;
  std::string gpu_model;  // "" for a CPU-only node
  int32_t gpus = 0;
  int32_t free_gpus = 0;                // GPUs with nothing allocated
  std::vector<int32_t> gpu_free_milli;  // per GPU, 0..1000
  int64_t free_cpu_milli = 0;
  int64_t free_mem_bytes = 0;
  int32_t tasks = 0;  // tasks of running jobs on the node
  bool drained = false;
};

class DecisionSession {
 public:
  // `placement`: a placement policy or profile of `registry` (parameters
  // NAME:key=value allowed); `seed` for the policies that draw (random).
  // Errors: an invalid cluster (kInvalidArgument), an unknown policy
  // (kNotFound).
  static Result<std::unique_ptr<DecisionSession>> Create(
      const ClusterSpec& cluster, const std::string& placement,
      const PolicyRegistry& registry = BuiltinPolicies(), uint64_t seed = 1);
  // The cluster read from a YAML spec (docs/trace-format.md); errors of the
  // file as ReadClusterYaml gives them (kNotFound for a missing file).
  static Result<std::unique_ptr<DecisionSession>> Open(
      const std::string& cluster_yaml, const std::string& placement,
      const PolicyRegistry& registry = BuiltinPolicies(), uint64_t seed = 1);

  // One JSON request in, one JSON response out (a single line, no newline).
  // Never throws: malformed JSON, wrong types, unknown ops and fields,
  // unknown nodes and jobs give {"ok":false,"error":{"code":..,
  // "message":..}} and leave the state as it was.
  std::string Handle(const std::string& request_json) { return Handle(request_json, nullptr); }
  // The same, and *outcome (when not null) = the response's error as a
  // Status (OK when the response says "ok": true).
  std::string Handle(const std::string& request_json, Status* outcome);

  // Typed forms of the ops (the same state as Handle).
  std::optional<Placement> Place(const Job& job) { return placer_->Place(job); }
  std::vector<Placement> Rank(const Job& job, size_t k) { return placer_->Rank(job, k); }
  // Why Place(job) gave nothing: no GPU model allowed by the job exists, no
  // node could host a task even when empty, or the free resources do not
  // fit now.
  std::string WhyNot(const Job& job) const;
  // Errors: id empty or running (kInvalidArgument), a task on a node index
  // out of range (kNotFound), a placement that does not fit the free
  // resources or has the wrong number of tasks (kInvalidArgument).
  Status Started(const std::string& id, const Job& job, const Placement& p);
  Status Finished(const std::string& id);                    // kNotFound: not running
  Status SetDrained(const std::string& node, bool drained);  // kNotFound: no such node
  bool drained(NodeIndex n) const { return drained_.count(n) > 0; }

  // Node index by name, or -1 (O(1)).
  int64_t NodeIndexOf(const std::string& node) const;
  NodeFree Free(NodeIndex n) const;
  size_t num_nodes() const { return placer_->state().num_nodes(); }
  size_t running() const { return running_.size(); }
  const Placer& placer() const { return *placer_; }
  const std::string& policy() const { return policy_; }
  const std::string& cluster_name() const { return cluster_name_; }

 private:
  DecisionSession(std::unique_ptr<Placer> placer, std::string policy, std::string cluster);

  std::unique_ptr<Placer> placer_;
  std::string policy_, cluster_name_;
  std::unordered_map<std::string, NodeIndex> index_;
  struct Running {
    TaskDemand task;
    Placement where;
  };
  std::map<std::string, Running> running_;
  std::set<NodeIndex> drained_;
};

}  // namespace utilsim
