// Deterministic random numbers: named, seeded streams with the project's own
// distribution code, so results never depend on the standard library's
// implementation of <random> distributions.
//
// A stream is identified by (seed, run, name). The same triple yields the same
// sequence on every platform and compiler. Not thread-safe: one stream per
// thread of use.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace utilsim {

// FNV-1a 64-bit: a fixed, documented hash, so names map to the same value on
// every platform (std::hash is implementation-defined).
uint64_t Fnv1a(std::string_view s);

class Rng {
 public:
  Rng(uint64_t seed, uint64_t run, std::string_view stream_name);

  uint64_t NextU64();  // xoshiro256**
  double Uniform01();  // [0, 1), 53 random bits
  double Uniform(double lo, double hi);
  int64_t UniformInt(int64_t lo, int64_t hi);  // inclusive bounds, unbiased
  double Exponential(double mean);
  double Normal(double mean, double stddev);  // Box-Muller, no caching
  double LogNormal(double mu, double sigma);  // parameters of the underlying normal
  // Index i drawn with probability weights[i] / sum(weights). weights must be
  // non-negative with a positive sum.
  size_t Discrete(std::span<const double> weights);

 private:
  uint64_t s_[4];
};

}  // namespace utilsim
