#include "utilsim/engine/node_set.h"

#include <gtest/gtest.h>

#include <set>

#include "utilsim/engine/rng.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

TEST(NodeSet, MatchesStdSetUnderRandomOperations) {
  // Capacity spans several summary blocks (4096 nodes each).
  const uint32_t cap = 10000;
  NodeSet a(cap);
  std::set<uint32_t> b;
  Rng r(5, 0, "nodeset");
  for (int i = 0; i < 200000; ++i) {
    // Cluster members in a few ranges so long empty stretches occur.
    const uint32_t n = static_cast<uint32_t>(r.UniformInt(0, 3) * 3000 + r.UniformInt(0, 99));
    if (r.Uniform01() < 0.5) {
      a.insert(n);
      b.insert(n);
    } else {
      a.erase(n);
      b.erase(n);
    }
    if (i % 5000 == 0) {
      ASSERT_EQ(a.size(), b.size());
      std::vector<uint32_t> va(a.begin(), a.end()), vb(b.begin(), b.end());
      ASSERT_EQ(va, vb);
      const uint32_t from = static_cast<uint32_t>(r.UniformInt(0, cap - 1));
      auto it = b.lower_bound(from);
      ASSERT_EQ(a.Next(from), it == b.end() ? NodeSet::kEnd : *it);
    }
  }
}

TEST(NodeSet, EdgesOfWordsAndBlocks) {
  NodeSet s(8193);
  for (uint32_t n : {0u, 63u, 64u, 4095u, 4096u, 8192u}) s.insert(n);
  std::vector<uint32_t> v(s.begin(), s.end());
  EXPECT_EQ(v, (std::vector<uint32_t>{0, 63, 64, 4095, 4096, 8192}));
  EXPECT_EQ(s.Next(65), 4095u);
  EXPECT_EQ(s.Next(4097), 8192u);
  s.erase(8192);
  EXPECT_EQ(s.Next(4097), NodeSet::kEnd);
  EXPECT_EQ(s.count(63), 1u);
  EXPECT_EQ(s.count(62), 0u);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
