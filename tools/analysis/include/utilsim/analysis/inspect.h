// `utilsim inspect`: what a trace contains and what is wrong with it, before
// anyone trusts a figure computed from it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/traces/trace.h"

namespace utilsim {

struct Finding {
  std::string what;                // short description
  int64_t count = 0;               // how many jobs/rows
  std::vector<std::string> first;  // first offending jobs or lines (<= 5)
  bool fatal = false;              // makes `inspect` exit non-zero
};

struct InspectResult {
  std::string text;  // the report
  std::vector<Finding> findings;
  bool fatal() const;
};

// Builds the report for a trace read by a reader; `cluster` is the cluster to
// check against (the trace's own or --cluster), if any.
InspectResult Inspect(const traces::TraceData& trace, const std::optional<ClusterSpec>& cluster,
                      const std::string& format);

}  // namespace utilsim
