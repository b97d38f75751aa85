// `utilsim exporter`'s model: recorded GPU telemetry (any telemetry reader's
// traces::TelemetryData) placed on nodes, GPUs and pods, and served again in
// dcgm-exporter's Prometheus text format (domain.md §3.2) as of a replay
// time, so a real Prometheus can scrape a recorded trace as if it were live.
//
//   auto replay = Replay::Build(data, placement, serve, &notes);
//   ReplayClock clock = replay.value().Clock(start, speed, loop);
//   auto server = ExporterServer::Start("127.0.0.1", 0, [&] {
//     return replay.value().Render(clock.At(elapsed_wall_s)); });
//
// Placement (PlacementOptions): a recorded series is one entity, named by
// EntityId (its pod, container, host, gpu and MIG instance, as far as the
// source gives them). With a map file, each row "entity,node,gpu[,pod,
// namespace]" places that entity (a blank pod/namespace keeps the series'
// own) and entities the map leaves out are not served. Else with nodes > 0,
// entity k (in EntityId order) goes round-robin to node
// "<node_prefix>-<k mod nodes>", GPU (k div nodes) mod gpus_per_node. Else
// every series must carry its own host and gpu. Two series that would be
// served with the same labels are an error.
//
// Served (Render): per series its latest sample at or before the replay time
// t, if no older than hold_s (0 = any age); the busy signal as its metric
// (DCGM_FI_DEV_GPU_UTIL in percent, DCGM_FI_PROF_* as ratios) and memory as
// DCGM_FI_DEV_FB_USED (MiB). Labels: gpu, UUID (made up from node and gpu,
// stable), device="nvidia<gpu>", modelName, GPU_I_ID for MIG series, the
// host label (`hostname_label`: "Hostname" as released dcgm-exporters
// write it, or "hostname"), container, namespace, pod when known (a pod
// without namespace gets `pod_namespace`, as Kubernetes would). No sample
// timestamps, as dcgm-exporter. Replay and Render are thread-safe (const).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"
#include "utilsim/traces/trace.h"

namespace utilsim::live {

// "pod=NS/POD" (or "pod=POD"), "container=C", "host=H", "gpu=N",
// "instance=I": the parts the series has, in that order, joined by ';'
// (e.g. "host=node-1;gpu=0", "pod=aaa111", "instance=3"; "series" if none).
std::string EntityId(const traces::UtilTrack& t);
// A map file of every utilization entity of `data` as the source places it
// (node, gpu, pod, namespace; blank where the source has none): a skeleton
// to complete for --map.
std::string EntitySkeletonCsv(const traces::TelemetryData& data);

struct PlacementOptions {
  std::string map_path;  // CSV: entity,node,gpu[,pod][,namespace]; "" = none
  int32_t nodes = 0;     // > 0: round-robin onto this many nodes
  int32_t gpus_per_node = 8;
  std::string node_prefix = "node";
};

struct ServeOptions {
  std::string hostname_label = "Hostname";  // or "hostname"
  std::string model_name = "unknown";       // the modelName label
  double hold_s = 300;                      // trace seconds a sample is served; 0 = forever
  std::string pod_namespace = "default";    // of pods the source gives no namespace
};

// Trace time at a wall-clock offset: start + elapsed x speed; with loop,
// wrapped into [start, start + period).
struct ReplayClock {
  Micros start{0};
  double speed = 1;
  bool loop = false;
  Micros period{0};
  Micros At(double elapsed_wall_s) const;
};

class Replay {
 public:
  // Errors: no utilization series in `data`, a bad map file
  // ("<file>:<line>: field '<name>': ..."), series without host/gpu and no
  // placement, clashing labels. `notes` (may be null) gets what was placed
  // and what was left out.
  static Result<Replay> Build(const traces::TelemetryData& data, const PlacementOptions& placement,
                              const ServeOptions& serve, std::vector<std::string>* notes);
  std::string Render(Micros t) const;
  // The placement as a map file (entity,node,gpu,pod,namespace), one row
  // per served entity in entity order: what --list-entities prints.
  std::string MapCsv() const;
  size_t size() const { return series_.size(); }  // series served
  Micros first() const { return first_; }         // earliest sample
  Micros last() const { return last_; }           // latest sample
  // A clock from `start` (the first sample when null); with loop the period
  // is start .. the last sample plus one sample spacing (the smallest gap
  // between consecutive samples of a series, 1 s if none). Error: a start
  // after the last sample, speed not > 0.
  Result<ReplayClock> Clock(std::optional<Micros> start, double speed, bool loop) const;

  struct Target {
    std::string entity, node;
    int32_t gpu = -1;
    std::string gpu_instance, pod, namespace_name, container;
  };
  struct Series {
    Target target;
    std::string uuid;
    UtilSignal signal = UtilSignal::kUnknown;
    std::vector<Micros> time;
    std::vector<float> busy;
    std::vector<int64_t> mem_bytes;  // empty or as long as time; -1 = none
    std::string labels;              // "{gpu=...}" as served
  };

 private:
  std::vector<Series> series_;  // sorted by metric, then labels
  ServeOptions serve_;
  Micros first_{0}, last_{0}, spacing_{0};
};

// A small HTTP server of GET routes on its own threads: the exporter's
// /metrics, and the Slurm advisor's /metrics, /advice, /healthz and /readyz.
// Handlers are called per request, possibly concurrently; other paths get
// 404 (GET / a one-line index).
class ExporterServer {
 public:
  struct Reply {
    int status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
  };
  using Routes = std::map<std::string, std::function<Reply()>>;
  // Binds host:port (port 0: a free port) and serves `routes`; GET / lists
  // them after `title`. Error: cannot bind.
  static Result<std::unique_ptr<ExporterServer>> Start(const std::string& host, int port,
                                                       Routes routes, const std::string& title);
  // GET /metrics (text/plain; version=0.0.4) from `render`.
  static Result<std::unique_ptr<ExporterServer>> Start(const std::string& host, int port,
                                                       std::function<std::string()> render);
  ~ExporterServer();  // Stop()
  void Stop();
  int port() const;
  std::string address() const;  // "127.0.0.1:9400", "[::1]:9400"
  bool running() const;         // false once the listener ended

  struct Impl;

 private:
  explicit ExporterServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// "HOST:PORT" or "[V6]:PORT", port 0..65535. Error names the text.
Result<std::pair<std::string, int>> ParseListen(const std::string& text);

}  // namespace utilsim::live
