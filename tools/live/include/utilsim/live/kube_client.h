// The Kubernetes API as the live modes read it: a connection (kubeconfig
// or in-cluster service account) and an informer-style cache of nodes and
// pods kept current by list + watch (docs/live-k8s.md, "Cluster state").
//
//   auto cfg = LoadKubeconfig("~/.kube/config", "");
//   KubeCache cache(cfg.value(), options, &listener);
//   cache.Start();           // lists, then watches, on its own threads
//   ... cache.synced() ...   // true once the first lists are in
//   cache.Stop();            // joins the threads (also in the destructor)
//
// List: GET /api/v1/nodes and /api/v1/pods with limit= and continue= pages;
// watch: ?watch=1&allowWatchBookmarks=true&resourceVersion=<rv>&
// timeoutSeconds=<n>, one JSON WatchEvent per line (chunked). A watch that
// ends (timeout, disconnect) resumes from the last resourceVersion seen
// (objects' and bookmarks'); an ERROR event with code 410 (Gone) or an HTTP
// 410 relists. Errors back off exponentially (options.backoff_*), and every
// resync_s the cache relists anyway (an informer's resync) and reports the
// differences as events. Listener calls come from the cache's threads, one
// at a time (never concurrently), in the order the changes were seen.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "utilsim/engine/status.h"
#include "utilsim/live/k8s_objects.h"

namespace utilsim::live {

struct KubeConfig {
  std::string server;   // "https://host:port" or "http://host:port"
  std::string token;    // bearer token ("" = none)
  std::string ca_file;  // PEM bundle to verify the server ("" = system default)
  std::string client_cert_file, client_key_file;  // client TLS auth ("" = none)
  bool insecure_skip_tls_verify = false;
};
// Reads a kubeconfig (YAML): the context `context` ("" = current-context),
// its cluster's server, certificate-authority(-data), insecure-skip-tls-verify
// and its user's token, tokenFile, client-certificate(-data),
// client-key(-data). *-data fields are base64 and are written to private
// temporary files (removed at exit). Errors name the file and the key.
Result<KubeConfig> LoadKubeconfig(const std::string& path, const std::string& context);
// The pod's service account: KUBERNETES_SERVICE_HOST/PORT, the token and CA
// under /var/run/secrets/kubernetes.io/serviceaccount/ (`dir` overrides it,
// for tests). Error: not in a cluster (variables or files missing).
Result<KubeConfig> InClusterConfig(
    const std::string& dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// Binds a pod to a node through the API server, as a binding extender must
// (POST /api/v1/namespaces/<ns>/pods/<name>/binding with a v1 Binding whose
// metadata.uid guards against binding a newer pod of the same name).
// Errors: transport, or the API's status and message ("HTTP 409: ...").
Status BindPod(const KubeConfig& config, const std::string& namespace_name, const std::string& name,
               const std::string& uid, const std::string& node, int32_t timeout_ms = 5000);

// What the cache tells its user. Events for an object come in the order the
// API server produced them; after a relist the differences are reported as
// events, then OnSynced.
class KubeListener {
 public:
  virtual ~KubeListener() = default;
  virtual void OnNode(WatchEvent::Type type, const K8sNode& node) = 0;  // added/modified/deleted
  virtual void OnPod(WatchEvent::Type type, const K8sPod& pod) = 0;
  // Called after each complete list of both kinds (the first one: synced).
  virtual void OnSynced() {}
};

struct KubeCacheOptions {
  int32_t page_size = 500;        // list limit=
  int32_t watch_timeout_s = 300;  // timeoutSeconds= of a watch
  int32_t resync_s = 600;         // relist period (0 = never)
  int32_t request_timeout_ms = 10000;
  int32_t backoff_initial_ms = 200;  // after an error, doubling ...
  int32_t backoff_max_ms = 30000;    // ... up to this
  std::string pod_field_selector;    // e.g. "status.phase!=Succeeded" ("" = all pods)
};

// Counters for the extender's own metrics and for tests.
struct KubeCacheStats {
  std::atomic<uint64_t> lists{0}, watches{0}, events{0}, bookmarks{0}, gone{0}, errors{0};
  std::atomic<int64_t> last_event_unix_ms{0};  // when the last event or list arrived
};

class KubeCache {
 public:
  // `listener` must outlive the cache.
  KubeCache(KubeConfig config, KubeCacheOptions options, KubeListener* listener);
  ~KubeCache();  // Stop()
  KubeCache(const KubeCache&) = delete;
  KubeCache& operator=(const KubeCache&) = delete;

  // Starts the list/watch threads (idempotent).
  void Start();
  // Stops them and waits (a watch in progress is cut).
  void Stop();
  // True once the first lists of nodes and pods are complete.
  bool synced() const;
  const KubeCacheStats& stats() const;
  // The last error seen ("" = none since the last successful list).
  std::string last_error() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace utilsim::live
