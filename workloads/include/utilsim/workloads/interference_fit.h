// Calibration of the co-location interference model (engine/interference.h)
// on the Lucid (ASPLOS'23) solo and pair measurements
// ($UTILSIM_TRACES/lucid-colocation-profiles, SOURCE.md there;
// docs/sharing.md for the method and the numbers).
//
// Data. single_data.csv: one row per job configuration run alone
// (model, dataset, batchsize, amp -> gpu_util %, gmem_util %, gmem MiB).
// colocate_info.csv: one row per pair run together on one GPU, with each
// job's speed normalised to its solo speed.
//
// Join. A pair joins when both jobs' (model, dataset, batchsize, amp) have a
// solo row and both ran on one GPU (gpu_num 1). The report counts pairs that
// did not join by reason. A model whose speed is exactly 1 in every pair it
// appears in (at least kMinUnmeasuredAppearances times) is taken as not
// measured (Lucid's PPO and TD3 rows hold the constant 1.0): its speeds are
// left out of fit and error, its partners' speeds are kept.
//
// Split (deterministic). kPairHash: a pair is held out when
// FNV-1a(canonical pair key) mod 1000 < 1000 x holdout_fraction, the key
// being the two jobs' "model/dataset/batchsize/amp" sorted and joined by
// "|". kModelHash: a model is held out when FNV-1a(model) mod 1000 < 1000 x
// holdout_fraction, and a pair is held out when either job's model is.
//
// Estimator. With t = 1/speed - 1, the time-slicing model is linear in its
// parameters: t = alpha u_i U_i + beta u_i M_i + gamma max(0, U - 1). They
// are fitted by least squares (Eigen, column-pivoting QR, no intercept) on
// the fit set; a negative coefficient is dropped (fixed at 0) and the rest
// refitted, until none is negative (a small non-negative least squares).
// Errors are of the predicted normalised speed: MAE and mean |error| / obs.
//
// Errors (Status): unreadable file, missing column, malformed field
// ("<file>:<line>: field '<name>': expected <what>, got '<text>'"), wrong
// field count, duplicate solo configuration, no joined pair, an empty fit
// set.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/engine/interference.h"
#include "utilsim/engine/status.h"

namespace utilsim {

// One job configuration, keyed as "model/dataset/batchsize/amp".
struct LucidConfig {
  std::string model;
  std::string dataset;
  int64_t batch_size = 0;
  int64_t amp = 0;  // 1 = mixed precision
  std::string Key() const;
};

struct LucidSolo {
  LucidConfig config;
  double speed = 0;         // throughput, model-specific units
  double gpu_util_pct = 0;  // 0..100
  double mem_util_pct = 0;  // memory-controller, 0..100
  double gmem_mib = 0;
  int64_t label = 0;  // Lucid sharing-affinity class
  int64_t line = 0;   // in single_data.csv
};

struct LucidPair {
  LucidConfig job1, job2;
  int64_t gpu_num1 = 1, gpu_num2 = 1;
  double speed1 = 0, speed2 = 0;  // normalised to solo (> 0)
  int64_t line = 0;               // in colocate_info.csv
};

struct LucidProfiles {
  std::vector<LucidSolo> solo;
  std::vector<LucidPair> pairs;
  std::string solo_path, pair_path;
};

// Reads one file each. Columns are found by header name (any order; extra
// columns ignored). Percentages must lie in [0, 100], memory and speeds be
// >= 0 (pair speeds > 0), batch size > 0, amp 0 or 1, gpu_num >= 1.
Result<std::vector<LucidSolo>> ReadLucidSolo(const std::string& path);
Result<std::vector<LucidPair>> ReadLucidPairs(const std::string& path);
// dir/single_data.csv and dir/colocate_info.csv.
Result<LucidProfiles> ReadLucidProfiles(const std::string& dir);

// The co-runner a solo row stands for (percentages as fractions).
CoRunner CoRunnerOf(const LucidSolo& s);

// One speed observation: job `self` sharing with `other`.
struct ColocationObs {
  CoRunner self, other;
  double speed = 0;   // measured normalised speed of self
  std::string model;  // self's model
  size_t pair = 0;    // index into LucidProfiles::pairs
};

inline constexpr int64_t kMinUnmeasuredAppearances = 10;

struct LucidJoinReport {
  int64_t pairs = 0;                           // rows of colocate_info.csv
  int64_t joined = 0;                          // pairs with both solo rows, one GPU
  int64_t no_solo_job1 = 0;                    // job 1's configuration has no solo row
  int64_t no_solo_job2 = 0;                    // job 2's (counted when job 1's has one)
  int64_t multi_gpu = 0;                       // joined configurations but gpu_num != 1
  std::vector<std::string> unmeasured_models;  // sorted
  int64_t unmeasured_speeds = 0;               // speeds left out for that
  int64_t observations = 0;                    // speeds kept (<= 2 x joined)
  std::vector<std::string> examples;           // first few "<file>:<line>: <reason>"
};

struct LucidJoined {
  std::vector<ColocationObs> obs;
  LucidJoinReport report;
};

// Joins pairs to solo rows. Error: duplicate solo configuration (naming both
// lines).
Result<LucidJoined> JoinLucid(const LucidProfiles& data);

enum class ColocationSplit { kPairHash, kModelHash };

struct InterferenceFitOptions {
  ColocationSplit split = ColocationSplit::kPairHash;
  double holdout_fraction = 0.3;  // in [0, 1)
};

struct ColocationErrors {
  int64_t n = 0;
  double mae = 0;   // mean |predicted - measured|
  double mape = 0;  // mean |predicted - measured| / measured
  double bias = 0;  // mean (predicted - measured)
};

// Errors of one observation set under the model and the naive rules.
struct ColocationSetErrors {
  ColocationErrors model;
  ColocationErrors speed_one;   // predict 1 (no interference)
  ColocationErrors speed_half;  // predict 0.5 each (an even time split)
  // For reference: predict the fit set's mean measured speed for everyone
  // (what the features add beyond the average slowdown).
  ColocationErrors speed_mean;
  int64_t pairs = 0;  // distinct pairs behind the observations
};

struct InterferenceFit {
  InterferenceParams params;  // fitted alpha, beta, gamma; scale default
  ColocationSetErrors fit, holdout;
  LucidJoinReport join;
  std::vector<std::string> holdout_models;  // kModelHash only, sorted
};

// Mean errors of `params` (time-slicing, pairs) on the observations.
ColocationErrors EvaluateSpeeds(const std::vector<ColocationObs>& obs,
                                const InterferenceParams& params);

// Joins, splits, fits on the fit set and reports both sets. Errors: those of
// JoinLucid, holdout_fraction outside [0, 1), an empty fit set.
Result<InterferenceFit> FitInterference(const LucidProfiles& data,
                                        const InterferenceFitOptions& options = {});

// A few lines stating the fit, for logs and docs.
std::string FormatInterferenceFit(const InterferenceFit& fit);

}  // namespace utilsim
