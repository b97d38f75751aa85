#include "utilsim/engine/parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace utilsim {
namespace UTILSIM_UNITY_ID {

TEST(ParallelFor, CallsEveryIndexOnce) {
  for (size_t threads : {0, 1, 2, 3, 8, 100}) {
    std::vector<int> hits(37, 0);
    ParallelFor(hits.size(), threads, [&](size_t i) { ++hits[i]; });
    for (size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i], 1) << "threads " << threads;
  }
}

TEST(ParallelFor, NothingToDoCallsNothing) {
  bool called = false;
  ParallelFor(0, 4, [&](size_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(ParallelFor, OneThreadRunsInOrderOnTheCaller) {
  std::vector<size_t> order;
  const auto caller = std::this_thread::get_id();
  bool elsewhere = false;
  ParallelFor(5, 1, [&](size_t i) {
    order.push_back(i);
    elsewhere |= std::this_thread::get_id() != caller;
  });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(elsewhere);
}

TEST(ParallelFor, UsesAtMostTheThreadsAskedForAndNoMoreThanTasks) {
  std::mutex mu;
  std::set<std::thread::id> seen;
  std::atomic<int> running{0}, peak{0};
  ParallelFor(64, 3, [&](size_t) {
    const int now = ++running;
    for (int p = peak; now > p && !peak.compare_exchange_weak(p, now);) {
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      seen.insert(std::this_thread::get_id());
    }
    std::this_thread::yield();
    --running;
  });
  EXPECT_LE(seen.size(), 3u);
  EXPECT_LE(peak.load(), 3);

  // Two tasks with eight threads requested: both run at once (each waits for
  // the other), so two threads exist and the call still returns.
  std::atomic<int> arrived{0};
  ParallelFor(2, 8, [&](size_t) {
    ++arrived;
    while (arrived.load() < 2) std::this_thread::yield();
  });
  EXPECT_EQ(arrived.load(), 2);
}

TEST(ParallelFor, JoinsBeforeReturning) {
  std::vector<int> out(1000, 0);
  ParallelFor(out.size(), 4, [&](size_t i) { out[i] = static_cast<int>(i) * 2; });
  // Read without synchronisation: valid only because every thread was joined.
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], static_cast<int>(i) * 2);
}

TEST(ResolveThreads, ZeroMeansHardwareConcurrency) {
  EXPECT_EQ(ResolveThreads(5), 5u);
  EXPECT_GE(ResolveThreads(0), 1u);
  EXPECT_EQ(ResolveThreads(0), std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
