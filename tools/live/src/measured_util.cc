// MeasuredUtil (prometheus.h): one range-selector query per poll,
//   <metric>{<extra_selector>}[<5 x scrape interval>s]  at time now,
// so each series' newest sample time is known; samples older than 2 x the
// scrape interval are stale (measured_snapshot.h has the rest). The window
// is 5 x so that a series that went stale is still seen, and counted, for a
// while; one gone for longer is simply absent. Start() polls on a thread
// every poll_s; Stop() wakes it at once (a request in flight still runs to
// the client's timeout).
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "measured_snapshot.h"
#include "utilsim/live/prometheus.h"
#include "utilsim/traces/dcgm_series.h"

namespace utilsim::live {

struct MeasuredUtil::Impl {
  Impl(PromClient c, MeasuredUtilOptions o) : client(std::move(c)), options(std::move(o)) {}
  PromClient client;
  MeasuredUtilOptions options;
  mutable std::mutex mu;
  std::condition_variable cv;
  std::shared_ptr<const MeasuredSnapshot> current;
  std::string last_error;
  bool stop = false;
  std::thread thread;
  std::atomic<uint64_t> polls{0}, errors{0};
};

MeasuredUtil::MeasuredUtil(PromClient client, MeasuredUtilOptions options)
    : impl_(std::make_unique<Impl>(std::move(client), std::move(options))) {}

MeasuredUtil::~MeasuredUtil() { Stop(); }

Result<MeasuredSnapshot> MeasuredUtil::Poll(int64_t now_unix_ms) const {
  const MeasuredUtilOptions& o = impl_->options;
  const std::optional<UtilSignal> signal = traces::DcgmUtilSignal(o.metric);
  if (!signal) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "measured utilization: metric '" + o.metric +
                             "' is not DCGM_FI_DEV_GPU_UTIL, DCGM_FI_PROF_GR_ENGINE_ACTIVE or "
                             "DCGM_FI_PROF_SM_ACTIVE");
  }
  if (o.scrape_interval_s <= 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "measured utilization: scrape interval must be > 0 s, got " +
                             std::to_string(o.scrape_interval_s));
  }
  const int64_t window_s = 5 * static_cast<int64_t>(o.scrape_interval_s);
  std::string expr = o.metric;
  if (!o.extra_selector.empty()) expr += "{" + o.extra_selector + "}";
  expr += "[" + std::to_string(window_s) + "s]";
  auto data = impl_->client.Query(expr, static_cast<double>(now_unix_ms) / 1000.0);
  if (!data.ok()) return data.status();
  try {
    auto snap = internal::SnapshotFromResult(data.value(), o.metric, *signal, now_unix_ms,
                                             2000 * static_cast<int64_t>(o.scrape_interval_s));
    if (!snap.ok()) return snap.status().Prefixed(impl_->client.url() + " " + expr + ": ");
    return snap;
  } catch (const std::exception& e) {  // defensive: nlohmann type errors
    return Status::Error(impl_->client.url() + " " + expr + ": unexpected result (" + e.what() +
                         ")");
  }
}

void MeasuredUtil::Start() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->thread.joinable()) return;
  impl_->stop = false;
  impl_->thread = std::thread([this] {
    Impl& m = *impl_;
    std::unique_lock<std::mutex> lk(m.mu);
    while (!m.stop) {
      lk.unlock();
      const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
      auto snap = Poll(now);
      lk.lock();
      ++m.polls;
      if (snap.ok()) {
        m.current = std::make_shared<const MeasuredSnapshot>(std::move(snap).value());
      } else {
        ++m.errors;
        m.last_error = snap.status().message();
      }
      m.cv.wait_for(lk, std::chrono::seconds(std::max(1, m.options.poll_s)),
                    [&m] { return m.stop; });
    }
  });
}

void MeasuredUtil::Stop() {
  std::thread t;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stop = true;
    t = std::move(impl_->thread);
  }
  impl_->cv.notify_all();
  if (t.joinable()) t.join();
}

std::shared_ptr<const MeasuredSnapshot> MeasuredUtil::Current() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->current;
}

std::string MeasuredUtil::last_error() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->last_error;
}

uint64_t MeasuredUtil::polls() const { return impl_->polls.load(); }
uint64_t MeasuredUtil::errors() const { return impl_->errors.load(); }

}  // namespace utilsim::live
