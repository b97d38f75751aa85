// End to end with a real Prometheus (prometheus_harness.h): Prometheus
// scrapes `utilsim exporter` (the built binary) replaying
// tests/fixtures/live/two_nodes.prom every second, and MeasuredUtil::Poll
// reads it back: first node-a's GPUs at exactly 0.9 and node-b's at 0.1
// (and pod ml/train-a at 0.9), then, once the replay passes the swap in the
// trace, the reverse; and once the exporter has exited, every series
// stale (absent and counted). Prometheus starts first (target port chosen up
// front) and the exporter only once Prometheus has tried to scrape it, so
// the replay's clock starts when scrapes are at most 1 s apart. Takes about
// 15 s (5 of them Prometheus' first target sync). Skips when Prometheus is
// not installed.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "child_process.h"
#include "prometheus_harness.h"
#include "testutil/testutil.h"
#include "utilsim/live/prometheus.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

using Clock = std::chrono::steady_clock;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Polls until `want` holds for a snapshot with all four GPUs, or the deadline.
template <typename Pred>
std::optional<MeasuredSnapshot> PollUntil(const MeasuredUtil& util, Clock::time_point deadline,
                                          Pred want, std::string* last) {
  while (Clock::now() < deadline) {
    auto snap = util.Poll(NowMs());
    if (!snap.ok()) {
      *last = snap.status().message();
    } else {
      const MeasuredSnapshot& s = snap.value();
      *last = "fresh " + std::to_string(s.fresh) + ", stale " + std::to_string(s.stale);
      if (s.gpus.count("node-a") && s.gpus.count("node-b") && s.gpus.at("node-a").size() == 2 &&
          s.gpus.at("node-b").size() == 2 && want(s))
        return s;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return std::nullopt;
}

TEST(PromEndToEndTest, MeasuredUtilReadsTheReplayedTraceThroughPrometheus) {
  std::string why;
  if (testutil::PrometheusHarness::FindBinary(&why).empty()) GTEST_SKIP() << why;
  const int port = testutil::FreeLocalPort();
  ASSERT_GT(port, 0);
  const std::string target = "127.0.0.1:" + std::to_string(port);
  std::string error;
  auto prom = testutil::PrometheusHarness::Start(target, 1, 15000, &error);
  ASSERT_NE(prom, nullptr) << error;
  ASSERT_TRUE(prom->WaitForFirstScrape(10000, &error)) << error;
  // Trace seconds 0..25 (node-a busy) last 5 s of wall time at --speed 6,
  // then node-b is busy until trace second 90 (10 s more).
  auto ex = testutil::ChildProcess::Start(
      {testutil::BinaryPath(), "exporter", "--telemetry", testutil::Fixture("live/two_nodes.prom"),
       "--listen", target, "--speed", "6"},
      testutil::TempDir() + "/exporter.log", &error);
  ASSERT_NE(ex, nullptr) << error;
  std::string addr;
  ASSERT_TRUE(ex->ReadLine(&addr, 10000)) << ex->Log();
  ASSERT_EQ(addr, target);
  const auto t0 = Clock::now();

  MeasuredUtilOptions o;
  o.scrape_interval_s = 1;
  o.extra_selector = "job=\"dcgm\"";
  MeasuredUtil util(PromClient::Create(prom->url()).value(), o);
  std::string last;
  auto first = PollUntil(
      util, t0 + std::chrono::milliseconds(4500), [](const MeasuredSnapshot&) { return true; },
      &last);
  ASSERT_TRUE(first) << "no fresh readings of all four GPUs within 4.5 s (" << last
                     << ")\nprometheus log:\n"
                     << prom->Log() << "\nexporter log:\n"
                     << ex->Log();
  const MeasuredSnapshot& a = *first;
  EXPECT_EQ(a.metric, "DCGM_FI_DEV_GPU_UTIL");
  for (int g : {0, 1}) {
    EXPECT_NEAR(a.gpus.at("node-a").at(g).busy, 0.9, 1e-9) << g;
    EXPECT_NEAR(a.gpus.at("node-b").at(g).busy, 0.1, 1e-9) << g;
    EXPECT_LE(a.taken_unix_ms - a.gpus.at("node-a").at(g).sample_unix_ms, 2000);
  }
  EXPECT_NEAR(a.pods.at("ml/train-a"), 0.9, 1e-9);
  EXPECT_NEAR(a.pods.at("ml/train-b"), 0.1, 1e-9);
  EXPECT_EQ(a.stale, 0u);
  EXPECT_TRUE(a.warnings.empty()) << a.warnings.front();

  // After the swap (trace second 30 = 5 s of wall time).
  auto second = PollUntil(
      util, t0 + std::chrono::seconds(12),
      [](const MeasuredSnapshot& s) { return s.gpus.at("node-a").at(0).busy < 0.5; }, &last);
  ASSERT_TRUE(second) << "no swap within 12 s (" << last << ")";
  const MeasuredSnapshot& b = *second;
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(4500)) << "swapped too early";
  for (int g : {0, 1}) {
    EXPECT_NEAR(b.gpus.at("node-a").at(g).busy, 0.1, 1e-9) << g;
    EXPECT_NEAR(b.gpus.at("node-b").at(g).busy, 0.9, 1e-9) << g;
  }
  EXPECT_NEAR(b.pods.at("ml/train-b"), 0.9, 1e-9);

  // The exporter stops cleanly; once its samples are 2 s old every series
  // is stale: absent and counted.
  const int st = ex->Signal(SIGTERM, 3000);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st << " " << ex->Log();
  const auto deadline = Clock::now() + std::chrono::seconds(6);
  std::optional<MeasuredSnapshot> gone;
  while (Clock::now() < deadline) {
    auto snap = util.Poll(NowMs());
    ASSERT_TRUE(snap.ok()) << snap.status().message();
    if (snap.value().stale == 4 && snap.value().fresh == 0) {
      gone = snap.value();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  ASSERT_TRUE(gone) << "series not stale within 6 s of the exporter's exit";
  EXPECT_TRUE(gone->gpus.empty());
  EXPECT_TRUE(gone->pods.empty());
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
