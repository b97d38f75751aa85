// The kube-scheduler extender verbs over JSON (domain.md §4.1; the upstream
// types k8s.io/kube-scheduler/extender/v1): request bodies in, response
// bodies out, decided by a LiveState. No HTTP here (extender_server.h).
//
// Shapes (Go field names, which the scheduler sends as they are; keys are
// matched case-insensitively, as Go's decoder does):
//   filter     ExtenderArgs {Pod, Nodes (a v1.NodeList, nodeCacheCapable
//              false) | NodeNames (true)} -> ExtenderFilterResult {Nodes,
//              NodeNames, FailedNodes, FailedAndUnresolvableNodes, Error};
//              the reply uses the form the request used.
//   prioritize ExtenderArgs -> HostPriorityList [{Host, Score 0..10}]
//   preempt    ExtenderPreemptionArgs {Pod, NodeNameToVictims |
//              NodeNameToMetaVictims} -> ExtenderPreemptionResult
//              {NodeNameToMetaVictims}
//   bind       ExtenderBindingArgs {PodName, PodNamespace, PodUID, Node}
//              -> ExtenderBindingResult {Error}
// "No opinion": filter keeps every node, prioritize scores every node 0,
// preempt returns the victims as given. Given when the pod requests none of
// the managed resources, the state is not synced, the pod cannot be
// modelled, or the deadline passed. Malformed bodies (not JSON, truncated,
// wrong types, no Pod) give status 400 with {"Error": "<reason>"}.
// Thread-safety: as LiveState (every method may be called concurrently).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "utilsim/live/live_state.h"

namespace utilsim::live {

struct ExtenderOptions {
  // managedResources: a pod requesting none of them gets no opinion; empty
  // = every pod.
  std::vector<std::string> managed_resources;
  // Prioritize's reply lists every asked node (false: only nodes scored
  // above 0, which the scheduler treats the same; smaller replies).
  bool score_every_node = true;
};

struct HttpReply {
  int status = 200;
  std::string body;
};

// What one request did, for the shadow log and the metrics.
struct VerbRecord {
  std::string verb;  // filter, prioritize, preempt, bind
  std::string pod, uid;
  bool opinion = false;
  std::string reason;                                 // why no opinion, or the 400's reason
  size_t nodes = 0;                                   // nodes asked about
  size_t failed = 0;                                  // filter: nodes failed
  std::string top;                                    // prioritize: the policy's choice
  std::vector<std::pair<std::string, int64_t>> best;  // prioritize: nodes scored above 1
  TaskDemand demand;
  float pod_util = -1;
  bool node_cache_capable = true;  // the request's form
};

class Extender {
 public:
  using Deadline = LiveState::Deadline;
  // `state` must outlive the extender.
  Extender(LiveState* state, ExtenderOptions options);

  HttpReply Filter(std::string_view body, Deadline deadline, VerbRecord* rec) const;
  HttpReply Prioritize(std::string_view body, Deadline deadline, VerbRecord* rec) const;
  HttpReply Preempt(std::string_view body, Deadline deadline, VerbRecord* rec) const;
  // `bind(namespace, name, uid, node)` performs the binding (the API
  // server's pods/binding) and returns its error text ("" = bound).
  using Binder = std::function<std::string(const std::string&, const std::string&,
                                           const std::string&, const std::string&)>;
  HttpReply Bind(std::string_view body, const Binder& bind, VerbRecord* rec) const;

  // The no-opinion answer to a request, without looking at the state (for
  // shedding under overload). 400 for a malformed body, as above.
  HttpReply NoOpinion(const std::string& verb, std::string_view body, const std::string& reason,
                      VerbRecord* rec) const;

 private:
  LiveState* state_;
  ExtenderOptions options_;
};

}  // namespace utilsim::live
