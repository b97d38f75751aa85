// The summary's sort of its figures (engine/src/summary.h, SortFigures): a
// radix sort on the bit patterns of non-negative doubles must give exactly
// the vector std::sort gives, since the percentiles and the means (summed in
// sorted order) are read from it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "../../engine/src/summary.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

bool SameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(SortFigures, GivesWhatStdSortGives) {
  std::mt19937_64 rng(3);
  std::vector<double> v;
  // Waits in seconds from microseconds, many equal (zero waits), a few huge,
  // subnormal, infinite: every byte of the bit pattern varies.
  for (int i = 0; i < 200000; ++i) {
    switch (rng() % 5) {
      case 0:
        v.push_back(0.0);
        break;
      case 1:
        v.push_back(static_cast<double>(rng() % 100000000) / 1e6);
        break;
      case 2:
        v.push_back(
            std::ldexp(static_cast<double>(rng() % 1000), static_cast<int>(rng() % 600) - 300));
        break;
      case 3:
        v.push_back(std::numeric_limits<double>::denorm_min() * static_cast<double>(rng() % 50));
        break;
      default:
        v.push_back(i % 1000 == 0 ? std::numeric_limits<double>::infinity() : 1.5);
    }
  }
  std::vector<double> want = v;
  std::sort(want.begin(), want.end());
  internal::SortFigures(v);
  EXPECT_TRUE(SameBits(v, want));
}

TEST(SortFigures, NegativeZeroAndNegativesFallBackToStdSort) {
  // -0 equals 0 for std::sort but not as bits; negatives order backwards as
  // bits: either sends the vector to std::sort, whose order it must keep.
  std::mt19937_64 rng(5);
  for (double odd : {-0.0, -2.5}) {
    std::vector<double> v;
    for (int i = 0; i < 10000; ++i) v.push_back(static_cast<double>(rng() % 1000));
    v[4321] = odd;
    std::vector<double> want = v;
    std::sort(want.begin(), want.end());
    internal::SortFigures(v);
    EXPECT_TRUE(SameBits(v, want)) << odd;
  }
}

TEST(SortFigures, ShortVectorsAndOneDigitSort) {
  std::vector<double> small = {3, 1, 2};
  internal::SortFigures(small);
  EXPECT_EQ(small, (std::vector<double>{1, 2, 3}));
  // 5,000 values that differ only in their top 16 bits: three of the four
  // passes find a single digit and move nothing.
  std::vector<double> v;
  for (int i = 5000; i > 0; --i) v.push_back(static_cast<double>(i % 7 + 1));
  std::vector<double> want = v;
  std::sort(want.begin(), want.end());
  internal::SortFigures(v);
  EXPECT_TRUE(SameBits(v, want));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
