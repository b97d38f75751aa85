// `utilsim serve k8s-extender --config FILE`: the YAML configuration
// (docs/live-k8s.md, "Configuration"). Every key is optional; unknown keys
// are errors (a misspelt safety setting must not pass silently).
//
//   listen: 127.0.0.1:8888          # host:port; port 0 = any free port
//   policy: least-loaded            # placement policy or profile
//   rank_depth: 5
//   fallback_util: 1.0              # a pod's utilization when none is measured
//   managed_resources: [nvidia.com/gpu]   # [] = every pod
//   resources:
//     whole: [nvidia.com/gpu]
//     share: [{name: nvidia.com/gpucores, unit: percent}, ...]  # percent | mib | gib
//     node_count: [nvidia.com/gpu, aliyun.com/gpu-count]
//   kubernetes:                     # where nodes and pods come from
//     kubeconfig: ~/.kube/config    # or in_cluster: true
//     context: ""
//     resync_s: 600
//   prometheus:                     # measured utilization (optional)
//     url: http://127.0.0.1:9090
//     metric: DCGM_FI_DEV_GPU_UTIL
//     scrape_interval_s: 30
//     poll_s: 15
//   safety:
//     threads: 16
//     max_in_flight: 8
//     deadline_ms: 50
//     max_body_bytes: 16777216
//   tls: {cert_file: F, key_file: F}
//   bind: {enabled: false}
//   shadow_log: FILE                # JSONL of every request and binding
#pragma once

#include <string>

#include "utilsim/engine/status.h"
#include "utilsim/live/extender.h"
#include "utilsim/live/extender_server.h"
#include "utilsim/live/live_state.h"

namespace utilsim::live {

struct ExtenderConfig {
  ServerOptions server;
  LiveStateOptions state;
  ExtenderOptions extender;
  // Kubernetes source: a kubeconfig path, or in-cluster.
  std::string kubeconfig, context;
  bool in_cluster = false;
  int32_t resync_s = 600;
  // Prometheus ("" = no measurements: every pod gets fallback_util).
  std::string prometheus_url, metric = "DCGM_FI_DEV_GPU_UTIL";
  int32_t scrape_interval_s = 30, poll_s = 15;
  std::string shadow_log;
};

// Reads and checks the file. Errors: "<file>:<line>: key '<path>': expected
// <what>, got '<text>'", unknown keys, a listen address that is not
// host:port.
Result<ExtenderConfig> LoadExtenderConfig(const std::string& path);
// "host:port" -> server.host, server.port. Error names the text.
Status ParseListen(const std::string& text, ServerOptions* out);

}  // namespace utilsim::live
