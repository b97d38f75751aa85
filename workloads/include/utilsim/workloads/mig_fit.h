// Fit of the MIG speed model (engine/mig.h, docs/mig.md) on the MIGProfiler
// A100-40GB measurements ($UTILSIM_TRACES/migprofiler-a100/A100-40g, see its
// SOURCE.md): throughput of one model configuration (model, batch size,
// sequence length) on 1g.5gb, 2g.10gb and 3g.20gb relative to 7g.40gb, and
// the DCGM GRACT utilization of the 7g.40gb run.
//
// Observed ratio r = throughput(slice) / throughput(7g.40gb); predicted
// r^ = MigSpeed(slice, MigDemandFromUtil(gract_7g, p), p). Error: mean
// absolute percentage error, 100 x mean |r^ - r| / r.
//
// FitMigSpeed chooses (memory_weight, util_at_saturation) minimizing the
// error on the samples whose model is not held out: a grid (weight 0..1 step
// 0.01, saturation 0.05..1.50 step 0.01) then a step-0.001 grid within one
// coarse step of the best; ties keep the first point (lowest weight, then
// lowest saturation), so the fit is deterministic.
//
// Thread-safety: pure functions (ReadMigProfiler reads files only).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "utilsim/engine/mig.h"
#include "utilsim/engine/status.h"

namespace utilsim {

struct MigSample {
  std::string experiment;  // top folder: infer_bsz, infer_seq, finetune_vit, finetune_moco
  std::string model;       // model_name column
  int seq_length = 0;      // 0 when the experiment has no sequence length
  int batch_size = 0;
  std::string profile;   // "1g.5gb", "2g.10gb" or "3g.20gb"
  double ratio = 0;      // throughput on the profile / on 7g.40gb, > 0
  double util_full = 0;  // gract_mean of the 7g.40gb run, 0..1
  // What MigDemand may use: the kind (finetune_*: training, infer_*:
  // inference) and, for inference, batch_size x seq_length.
  JobKind kind = JobKind::kUnknown;
  double tokens_per_step = 0;
};

// Reads the per-slice result files under `dir` (the A100-40g folder):
// <exp>/<model>/*_infer_{05,10,20,40}g_{bsz,seq}.csv and
// finetune_*/*_{05,10,20,40}g_finetune_bsz.csv. Configurations that did not
// run (throughput 0) or lack a 7g.40gb run are left out. Samples are sorted
// by (experiment, model, seq_length, batch_size, profile). Errors name the
// file, line and column.
Result<std::vector<MigSample>> ReadMigProfiler(const std::string& dir);

// Predicted ratio of one sample under params (A100-40GB profiles).
double PredictMigRatio(const MigSample& sample, const mig::MigSpeedParams& params);
// 100 x mean |predicted - observed| / observed; 0 for no samples.
double MigMape(const std::vector<MigSample>& samples, const mig::MigSpeedParams& params);

// The models held out by default: one of each near-duplicate inference pair
// and one training model (docs/mig.md).
std::vector<std::string> DefaultMigHoldoutModels();

struct MigFitReport {
  mig::MigSpeedParams params;  // fitted
  size_t fit_samples = 0;
  size_t holdout_samples = 0;
  double fit_mape = 0;      // on the fitted samples
  double holdout_mape = 0;  // on the held-out samples
  // Held-out error of the parameter-free "compute share" baseline r^ = c/7.
  double baseline_holdout_mape = 0;
  // Structure check on all samples: a configuration's demand taken from its
  // own 1g.5gb sample, d = min(1, s(1g)/r(1g)), predicts its 2g and 3g
  // samples; isolates the speed law from the utilization-to-demand estimate.
  double cross_slice_mape = 0;
  size_t cross_slice_samples = 0;
};

// The kind-aware model (docs/mig.md, "Demand by job kind"): the ratio
// predicted with MigDemand from the sample's kind, tokens and utilization.
double PredictMigRatioByKind(const MigSample& sample, const mig::MigSpeedParams& params);
double MigMapeByKind(const std::vector<MigSample>& samples, const mig::MigSpeedParams& params);
// 100 x mean |c/7 - observed| / observed: the parameter-free compute-share
// baseline.
double MigBaselineMape(const std::vector<MigSample>& samples);

// Fits the kind-aware model on `fit`, memory weight fixed at
// prior.memory_weight: tokens_at_saturation on the samples with tokens
// (log grid 256..65536, then refined), util_at_saturation_train on the
// training samples and util_at_saturation on the inference samples without
// tokens (grid 0.05..1.5 step 0.01, then 0.001), each minimizing its own
// samples' MAPE (the three act on disjoint samples). A parameter with no
// samples to fit is not identified: tokens_at_saturation becomes 0 (those
// jobs fall back to utilization), util_at_saturation_train becomes 1 (d =
// the utilization itself), and util_at_saturation takes the fitted training
// value, else 1. Only prior.memory_weight is taken from `prior`.
mig::MigSpeedParams FitMigDemand(const std::vector<MigSample>& fit,
                                 const mig::MigSpeedParams& prior);

// Leave-one-group-out validation of the kind-aware model: for each group of
// a scheme, FitMigDemand on every other group, then MAPE on the group beside
// the c/7 baseline's. Schemes: "experiment" (infer_bsz, infer_seq,
// finetune_vit, finetune_moco), "kind" (training, inference; here also CV vs
// NLP), "batch" (small <= 8, medium 16..64, large >= 128).
struct MigGroupRow {
  std::string scheme, group;
  size_t samples = 0;
  double baseline_mape = 0, model_mape = 0;
  mig::MigSpeedParams params;  // fitted on the other groups
};
std::vector<MigGroupRow> MigLeaveGroupOut(const std::vector<MigSample>& samples,
                                          const mig::MigSpeedParams& prior);

// Fits on samples whose model is not in holdout_models. Fails when either
// side has no samples.
Result<MigFitReport> FitMigSpeed(const std::vector<MigSample>& samples,
                                 const std::vector<std::string>& holdout_models);

}  // namespace utilsim
