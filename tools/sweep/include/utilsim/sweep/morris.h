// Morris elementary effects (Morris 1991; the radial-free trajectory design
// with Campolongo et al. 2007's mu*): a screening design over k numeric
// factors that ranks them by how much they move an output, at r x (k + 1)
// evaluations. Each trajectory starts at a random point of a p-level grid
// over the unit hypercube and moves one factor at a time by
// delta = p / (2 (p - 1)), in a random order and direction; the elementary
// effect of factor i on a trajectory is
//   EE_i = (y(after) - y(before)) / d_i,
// d_i the step of factor i in unit terms, computed from the factor values
// actually used (after rounding an integer factor), so effects of factors
// with different units compare. Ranking: mu* = mean |EE_i| (overall
// influence), sigma = standard deviation of EE_i (non-linearity or
// interaction), mu = mean EE_i (sign).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/engine/status.h"

namespace utilsim::sweep {

struct MorrisFactor {
  std::string name;
  double lo = 0, hi = 1;  // lo < hi, both finite
  // Values rounded to the nearest integer (halves away from zero, std::round),
  // then clamped to the integers within [lo, hi] (ceil(lo)..floor(hi)).
  bool integer = false;
};

struct MorrisDesign {
  std::vector<MorrisFactor> factors;  // k factors, as given
  int levels = 4;                     // p
  int trajectories = 0;               // r
  // r x (k + 1) points in evaluation order, trajectory after trajectory; each
  // point holds k factor values in the factors' units (integers rounded).
  std::vector<std::vector<double>> points;
  // For each trajectory t and step j (0..k-1): the factor that changes from
  // point t*(k+1)+j to point t*(k+1)+j+1.
  std::vector<std::vector<int>> moved;
};

// A design of `trajectories` (>= 2) trajectories on a `levels`-level grid
// (even, >= 2) over `factors` (>= 1; names unique and non-empty; lo < hi;
// an integer factor needs hi - lo >= 1). Deterministic in `seed`. Errors
// (kInvalidArgument) name the factor or the field.
Result<MorrisDesign> MorrisTrajectories(const std::vector<MorrisFactor>& factors, int trajectories,
                                        int levels, uint64_t seed);

struct MorrisEffect {
  std::string factor;
  double mu = 0;       // mean EE
  double mu_star = 0;  // mean |EE|
  double sigma = 0;    // standard deviation of EE (n - 1 in the denominator; 0 when n < 2)
  int n = 0;           // elementary effects used (trajectories whose step moved the value)
};

// The effects of every factor, in the design's factor order, from
// `outputs[i]` = the output at design.points[i] (sizes must match; outputs
// must be finite, else an error naming the point by its 0-based index). A
// step whose rounded integer values did not change is skipped (n counts the
// others).
Result<std::vector<MorrisEffect>> MorrisEffects(const MorrisDesign& design,
                                                const std::vector<double>& outputs);

// Factor indices ordered by mu* descending, ties by name.
std::vector<int> MorrisRanking(const std::vector<MorrisEffect>& effects);

}  // namespace utilsim::sweep
