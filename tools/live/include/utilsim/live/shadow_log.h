// The shadow log (docs/live-k8s.md, "Shadow mode"): one JSON object per
// line, appended, for every extender request and answer and for every
// binding and ending the Kubernetes watch saw. `utilsim shadow-report`
// reads it back (shadow_report.h); `utilsim convert --format k8s-shadow`
// turns it into a trace.
//
// Lines (version "v": 1; times "t" in ms since the UNIX epoch):
//   {"v":1,"t":..,"event":"filter"|"prioritize"|"preempt"|"bind","pod":"ns/name",
//    "uid":..,"status":200,"opinion":true,"reason":"","nodes":N,"failed":F,
//    "top":"node","best":[["node",10],..],"gpus":..,"gpu_milli":..,
//    "cpu_milli":..,"mem_bytes":..,"gpu_mem_bytes":..,"latency_us":..}
//   {"v":1,"t":..,"event":"bound","pod":..,"uid":..,"node":"chosen",
//    "recommended":"node"|"","gpus":..,"gpu_milli":..,"cpu_milli":..,"mem_bytes":..,
//    "gpu_mem_bytes":..,"chosen":{facts},"recommended_facts":{facts}|null}
//      facts = {"busy":0.42|-1,"free_gpus":..,"partial_gpus":..,"stranded_gpus":..}
//      (LiveState::NodeFacts when the binding is seen: the chosen node with
//      the pod on it, the recommended node as it is, without it)
//   {"v":1,"t":..,"event":"finished","pod":..,"uid":..,"node":..}
//   {"v":1,"t":..,"event":"cluster","models":[{"name":..,"memory_bytes":..}],
//    "nodes":[{"name":..,"gpu_model":..,"gpus":..,"cpu_milli":..,"mem_bytes":..}]}
//      (the cluster as modelled, logged before the first line that follows a
//      change of it, so a log replays on the cluster it was decided on)
// Writes are whole lines under a mutex and flushed, so a killed process
// leaves complete lines (a last partial line, if any, is skipped by the
// reader with a warning). Thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/status.h"
#include "utilsim/live/extender.h"
#include "utilsim/live/jsonl_file.h"
#include "utilsim/live/live_state.h"

namespace utilsim::live {

class ShadowLog {
 public:
  // Opens `path` for appending (created when missing). Refused: "-", a
  // symbolic link, a FIFO, device or folder, a path that cannot be opened
  // (missing or read-only folder); the file is opened without following
  // links and checked again once open. Errors name the path. (The command
  // line also checks it against its inputs first: utilsim/io/output_path.h.)
  static Result<std::unique_ptr<ShadowLog>> Open(const std::string& path);
  ~ShadowLog();

  void Verb(const VerbRecord& r, int status, int64_t unix_ms, int64_t latency_us);
  void Bound(const BindingSeen& b, const std::string& recommended,
             const std::optional<LiveState::NodeFacts>& chosen,
             const std::optional<LiveState::NodeFacts>& recommended_facts);
  void Finished(const BindingSeen& b);
  void Cluster(const ClusterSpec& spec, int64_t unix_ms);
  uint64_t lines() const;

 private:
  explicit ShadowLog(std::unique_ptr<JsonlFile> f) : file_(std::move(f)) {}
  void Write(const std::string& line);
  std::unique_ptr<JsonlFile> file_;
};

}  // namespace utilsim::live
