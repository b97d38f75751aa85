// KubeCache (utilsim/live/kube_client.h): an informer per kind (nodes,
// pods), each on its own thread with its own API connection, like
// client-go's reflector:
//
//   list (pages of options.page_size; a 410 on a later page restarts the
//   list once) -> report the differences to the cache as events (ADDED for
//   new keys, MODIFIED for a new resourceVersion, DELETED for keys gone),
//   then OnSynced, once both kinds have been listed (so: after the first
//   complete lists, then after every relist of either kind) -> watch from
//   the list's resourceVersion -> on each event update the cache, tell the
//   listener, remember its resourceVersion (bookmarks: only that) -> when
//   the watch ends (timeoutSeconds, the server closing or breaking the
//   stream) watch again from there; on 410 Gone (ERROR event or HTTP
//   status) and every options.resync_s, list again.
//
// Errors (connection, HTTP status, ERROR events other than 410) back off:
// options.backoff_initial_ms doubling up to backoff_max_ms, reset by a list
// or a watch that got 200; the third failed watch in a row lists again. An
// object that does not parse is skipped and counted as an error (the rest
// of its list or watch goes on; last_error() names it).
//
// stats: lists = complete lists, watches = watch requests, events = watch
// events of objects (not the differences a list reports), bookmarks, gone =
// 410s, errors. One mutex (Shared::mu) serializes every listener call; a
// listener must not call Stop() (it would wait for its own thread).
// Stop() sets the stop flag, wakes backoff sleeps and cancels the
// connections' requests until both threads have returned.
#include <chrono>
#include <thread>

#include "kube_informer.h"
#include "utilsim/live/kube_client.h"

namespace utilsim::live {

using internal::Informer;
using internal::NodeKind;
using internal::PodKind;
using internal::Shared;

struct KubeCache::Impl {
  Shared sh;
  Informer<NodeKind> nodes{&sh};
  Informer<PodKind> pods{&sh};
  std::mutex lifecycle_mu;  // Start/Stop
  std::vector<std::thread> threads;
  std::atomic<int> running{0};
};

KubeCache::KubeCache(KubeConfig config, KubeCacheOptions options, KubeListener* listener)
    : impl_(std::make_unique<Impl>()) {
  impl_->sh.config = std::move(config);
  impl_->sh.options = std::move(options);
  impl_->sh.listener = listener;
}

KubeCache::~KubeCache() { Stop(); }

void KubeCache::Start() {
  std::lock_guard<std::mutex> l(impl_->lifecycle_mu);
  if (!impl_->threads.empty()) return;
  impl_->sh.stop = false;
  impl_->running = 2;
  Impl* impl = impl_.get();
  impl_->threads.emplace_back([impl] {
    impl->nodes.Run();
    impl->running--;
  });
  impl_->threads.emplace_back([impl] {
    impl->pods.Run();
    impl->running--;
  });
}

void KubeCache::Stop() {
  std::lock_guard<std::mutex> l(impl_->lifecycle_mu);
  if (impl_->threads.empty()) return;
  {
    std::lock_guard<std::mutex> s(impl_->sh.state_mu);
    impl_->sh.stop = true;
  }
  impl_->sh.wake.notify_all();
  // A request can start between a thread's last look at the flag and the
  // cancel: cancel again until both threads are out.
  while (impl_->running > 0) {
    {
      std::lock_guard<std::mutex> s(impl_->sh.state_mu);
      for (internal::ApiConnection* c : impl_->sh.conns) c->Cancel();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (std::thread& t : impl_->threads) t.join();
  impl_->threads.clear();
}

bool KubeCache::synced() const { return impl_->sh.synced; }

const KubeCacheStats& KubeCache::stats() const { return impl_->sh.stats; }

std::string KubeCache::last_error() const {
  std::lock_guard<std::mutex> l(impl_->sh.state_mu);
  return impl_->sh.last_error;
}

}  // namespace utilsim::live
