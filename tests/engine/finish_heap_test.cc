// The engine's indexed heap of finish times (engine/src/finish_heap.h).
#include "../../engine/src/finish_heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "utilsim/engine/rng.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

// Entries are found by slot; the jobs here are 1000 + slot, so that a mix-up
// of the two shows.
constexpr uint32_t kJob = 1000;
void Set(FinishHeap& h, uint32_t slot, Micros t) { h.Set(slot, kJob + slot, t); }

// The slots in the order their jobs come off the top.
std::vector<uint32_t> Drain(FinishHeap& h) {
  std::vector<uint32_t> out;
  while (!h.empty()) {
    const uint32_t slot = h.top_job() - kJob;
    out.push_back(slot);
    h.Remove(slot);
  }
  return out;
}

TEST(FinishHeap, OrdersByTimeThenLastSet) {
  FinishHeap h;
  h.Reset();
  Set(h, 0, Seconds(30));
  Set(h, 1, Seconds(10));
  Set(h, 2, Seconds(20));
  Set(h, 3, Seconds(10));  // ties with slot 1, set later: after it
  Set(h, 1, Seconds(10));  // re-set: now after slot 3
  Set(h, 0, Seconds(5));   // moved earlier
  Set(h, 2, Seconds(40));  // moved later
  EXPECT_EQ(h.top_time(), Seconds(5));
  EXPECT_EQ(Drain(h), (std::vector<uint32_t>{0, 3, 1, 2}));
}

TEST(FinishHeap, RemoveAnywhere) {
  FinishHeap h;
  h.Reset();
  for (uint32_t j = 0; j < 4; ++j) Set(h, j, Seconds(10 + j));
  h.Remove(1);
  h.Remove(1);  // absent: no-op
  h.Remove(9);  // never set: no-op
  h.Remove(3);
  EXPECT_EQ(h.size(), 2u);
  EXPECT_EQ(Drain(h), (std::vector<uint32_t>{0, 2}));
}

// Against a sorted reference under random sets and removals.
TEST(FinishHeap, MatchesReferenceOrder) {
  const uint32_t n = 200;
  FinishHeap h;
  h.Reset();
  std::vector<std::tuple<int64_t, uint64_t, bool>> ref(n, {0, 0, false});  // time, seq, present
  Rng rng(7, 0, "finish-heap");
  uint64_t seq = 0;
  for (int step = 0; step < 5000; ++step) {
    const uint32_t j = static_cast<uint32_t>(rng.NextU64() % n);
    if (rng.NextU64() % 4 == 0) {
      h.Remove(j);
      std::get<2>(ref[j]) = false;
    } else {
      const int64_t t = static_cast<int64_t>(rng.NextU64() % 50);
      Set(h, j, Micros(t));
      ref[j] = {t, seq++, true};
    }
  }
  std::vector<std::pair<std::pair<int64_t, uint64_t>, uint32_t>> want;
  for (uint32_t j = 0; j < n; ++j)
    if (std::get<2>(ref[j])) want.push_back({{std::get<0>(ref[j]), std::get<1>(ref[j])}, j});
  std::sort(want.begin(), want.end());
  std::vector<uint32_t> expect;
  for (const auto& w : want) expect.push_back(w.second);
  EXPECT_EQ(Drain(h), expect);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
