// `utilsim shadow-report LOG` (docs/live-k8s.md, "Shadow mode"): what the
// extender recommended against what the scheduler did, from a shadow log
// (shadow_log.h).
//
// Figures:
//  - requests per verb: answered with an opinion, without (and why: not
//    synced, unmanaged pod, deadline), shed, malformed (400); latency p50,
//    p99 and max;
//  - bindings seen; of those with a recommendation (a prioritize answer
//    with a top node before the binding), the agreement rate (bound on the
//    recommended node);
//  - for the bindings that disagreed: the chosen and the recommended
//    nodes' measured busy fraction (mean over the pairs where both are
//    known), GPUs left partly used (fragments) and GPUs stranded by
//    exhausted CPU or memory (sums), as the model had them when the
//    binding was seen (the chosen node with the pod, the recommended one
//    without it).
// Reading: a last line cut short is skipped with a warning; any other bad
// line is an error "<file>:<line>: ...". Never throws.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "utilsim/engine/status.h"

namespace utilsim::live {

struct ShadowVerbFigures {
  int64_t total = 0, opinion = 0, no_opinion = 0, shed = 0, bad_request = 0;
  std::map<std::string, int64_t> no_opinion_reasons;
  int64_t latency_p50_us = 0, latency_p99_us = 0, latency_max_us = 0;
};

struct ShadowBinding {
  std::string pod, node, recommended;  // recommended "" = none
  double chosen_busy = -1, recommended_busy = -1;
  int32_t chosen_partial = 0, recommended_partial = 0;
  int32_t chosen_stranded = 0, recommended_stranded = 0;
};

struct ShadowReport {
  std::string path;
  int64_t lines = 0, first_ms = 0, last_ms = 0;
  std::map<std::string, ShadowVerbFigures> verbs;  // filter, prioritize, preempt, bind
  std::vector<ShadowBinding> bindings;
  int64_t with_recommendation = 0, agreed = 0, finished = 0;
  // Over the bindings that disagreed with a recommendation:
  int64_t busy_pairs = 0;  // both nodes' busy known
  double chosen_busy_mean = 0, recommended_busy_mean = 0;
  int64_t chosen_partial = 0, recommended_partial = 0;
  int64_t chosen_stranded = 0, recommended_stranded = 0;
  std::vector<std::string> warnings;
};

Result<ShadowReport> ReadShadowReport(const std::string& path);
// Text for a terminal; `per_pod` adds one row per binding.
std::string FormatShadowReport(const ShadowReport& r, bool per_pod);
// The same figures as one JSON object.
std::string ShadowReportJson(const ShadowReport& r);

}  // namespace utilsim::live
