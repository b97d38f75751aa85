// Hand-built clusters and jobs for the engine tests that write their
// scenarios out by hand (simulator_test, engine_test, result_sink_test,
// change_points_test).
#pragma once

#include <cstdint>
#include <string>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/time.h"

namespace utilsim::testing {

// `count` nodes of `gpus` GPUs of model "G" (speed 1), 16 cores, 64 GiB.
inline ClusterSpec OneNode(int gpus, int count = 1) {
  ClusterSpec s;
  s.name = "one";
  s.models = {{"G", 16LL << 30, 1.0}};
  s.groups = {{"n", count, "G", gpus, 16000, 64LL << 30, 0}};
  return s;
}

// A job of `tasks` tasks of `gpus` whole GPUs, busy `util` of its time.
inline Job MakeJob(const std::string& name, int64_t submit_s, int64_t runtime_s, int gpus,
                   float util = 1.0f, int tasks = 1) {
  Job j;
  j.name = name;
  j.submit = Seconds(submit_s);
  j.runtime = Seconds(runtime_s);
  j.task.gpus = gpus;
  j.util = util;
  j.tasks = tasks;
  return j;
}

}  // namespace utilsim::testing
