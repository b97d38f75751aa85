#include "../../engine/src/event_queue.h"

#include <gtest/gtest.h>

namespace utilsim {
namespace UTILSIM_UNITY_ID {

TEST(EventQueue, OrdersByTimeThenPhaseThenSequence) {
  EventQueue q;
  // Pushed deliberately out of order. Same time 10 s: sample, pass, arrival,
  // finish, cluster change must come out cluster, finish, arrival, pass,
  // sample; equal (time, phase) keep push order (jobs 7 then 8).
  q.Push({Seconds(10), Phase::kSample, 0, 1});
  q.Push({Seconds(10), Phase::kPass, 0, 2});
  q.Push({Seconds(10), Phase::kArrival, 0, 7});
  q.Push({Seconds(5), Phase::kSample, 0, 3});
  q.Push({Seconds(10), Phase::kFinish, 0, 4});
  q.Push({Seconds(10), Phase::kArrival, 0, 8});
  q.Push({Seconds(10), Phase::kClusterChange, 0, 5});
  std::vector<uint32_t> jobs;
  while (!q.empty()) jobs.push_back(q.Pop().job);
  EXPECT_EQ(jobs, (std::vector<uint32_t>{3, 5, 4, 7, 8, 2, 1}));
}

TEST(EventQueue, ManyEqualKeysKeepInsertionOrder) {
  EventQueue q;
  for (uint32_t i = 0; i < 1000; ++i) q.Push({Seconds(1), Phase::kArrival, 0, i});
  for (uint32_t i = 0; i < 1000; ++i) ASSERT_EQ(q.Pop().job, i);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
