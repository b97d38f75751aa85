// MIG speed-model fit on the MIGProfiler A100-40GB data (mig_fit.h,
// docs/mig.md "Fit"). The pinned bounds are the ones docs/mig.md states.
#include "utilsim/workloads/mig_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <tuple>

#include "testutil/testutil.h"
#include "utilsim/engine/mig_cluster.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

std::vector<MigSample> ReadOrSkip(bool* skipped) {
  const std::string dir = testutil::TracePath("migprofiler-a100/A100-40g");
  *skipped = dir.empty();
  if (dir.empty()) return {};
  auto r = ReadMigProfiler(dir);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : std::vector<MigSample>{};
}

TEST(MigFit, ReadsTheMeasurements) {
  bool skipped = false;
  const std::vector<MigSample> s = ReadOrSkip(&skipped);
  if (skipped) GTEST_SKIP() << "migprofiler-a100 not found under $UTILSIM_TRACES";
  // 80 configurations x {1g, 2g, 3g}, less the ones that did not run.
  ASSERT_EQ(s.size(), 226u);
  const MigSample* bert = nullptr;
  for (const MigSample& x : s) {
    EXPECT_GT(x.ratio, 0);
    EXPECT_LT(x.ratio, 1.1);
    if (x.experiment == "infer_bsz" && x.model == "bert-base-multilingual-cased" &&
        x.batch_size == 256 && x.profile == "1g.5gb") {
      bert = &x;
    }
  }
  ASSERT_NE(bert, nullptr);
  EXPECT_EQ(bert->seq_length, 64);
  EXPECT_DOUBLE_EQ(bert->ratio, 641.79 / 4834.51);  // bert_base_infer_{05,40}g_bsz.csv row 8
  EXPECT_DOUBLE_EQ(bert->util_full, 0.483);
}

TEST(MigFit, FitAndHoldOutErrorsStayBelowTheDocumentedValues) {
  bool skipped = false;
  const std::vector<MigSample> s = ReadOrSkip(&skipped);
  if (skipped) GTEST_SKIP() << "migprofiler-a100 not found under $UTILSIM_TRACES";
  auto fit = FitMigSpeed(s, DefaultMigHoldoutModels());
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  const MigFitReport& r = fit.value();
  std::cout << "MIG fit: memory_weight=" << r.params.memory_weight
            << " util_at_saturation=" << r.params.util_at_saturation << " fit " << r.fit_samples
            << " samples MAPE " << r.fit_mape << "%, hold-out " << r.holdout_samples
            << " samples MAPE " << r.holdout_mape << "%, baseline c/7 hold-out "
            << r.baseline_holdout_mape << "%, cross-slice " << r.cross_slice_samples
            << " samples MAPE " << r.cross_slice_mape << "%\n";
  for (const char* exp : {"infer_bsz", "infer_seq", "finetune_vit", "finetune_moco"}) {
    std::vector<MigSample> part;
    for (const MigSample& x : s) {
      if (x.experiment == exp) part.push_back(x);
    }
    std::cout << "  " << exp << ": " << part.size() << " samples MAPE " << MigMape(part, r.params)
              << "%\n";
  }
  EXPECT_EQ(r.fit_samples, 134u);
  EXPECT_EQ(r.holdout_samples, 92u);
  EXPECT_NEAR(r.params.memory_weight, 0.411, 0.0005);
  EXPECT_NEAR(r.params.util_at_saturation, 0.438, 0.0005);
  // docs/mig.md: fit 17.18% (< 17.5), hold-out 18.07% (< 18.5), baseline
  // 36.90% (> 35), cross-slice 2.37% (< 2.5).
  EXPECT_LT(r.fit_mape, 17.5);
  EXPECT_LT(r.holdout_mape, 18.5);
  EXPECT_GT(r.baseline_holdout_mape, 35.0);
  EXPECT_EQ(r.cross_slice_samples, 144u);
  EXPECT_LT(r.cross_slice_mape, 2.5);
  // The engine's defaults are the fit, rounded to two decimals.
  const mig::MigSpeedParams defaults;
  EXPECT_NEAR(defaults.memory_weight, r.params.memory_weight, 0.005);
  EXPECT_NEAR(defaults.util_at_saturation, r.params.util_at_saturation, 0.005);
  EXPECT_LT(MigMape(s, defaults), 17.6);  // all 226 samples
}

TEST(MigFit, ErrorsNameFileLineAndField) {
  const std::string dir = testutil::TempDir();
  EXPECT_EQ(ReadMigProfiler(dir + "/absent").status().message(), dir + "/absent: not a directory");
  EXPECT_EQ(ReadMigProfiler(dir).status().message(),
            dir + ": no MIGProfiler result files (*_infer_XXg_*.csv)");
  std::filesystem::create_directories(dir + "/infer_bsz/m");
  const std::string header =
      ",model_name,total_params,seq_length,batch_size,latency,latency_std,throughput,"
      "start_timestamp,end_timestamp,gract_mean,gract_std,fb_used_mean,fb_used_std\n";
  const std::string f05 = dir + "/infer_bsz/m/m_infer_05g_bsz.csv";
  const std::string f40 = dir + "/infer_bsz/m/m_infer_40g_bsz.csv";
  testutil::WriteFile(f05, header + "0,m,1,64,8,1,0,100,0,0,0.5,0,1,0\n");
  testutil::WriteFile(f40, header + "0,m,1,64,8,1,0,400,0,0,0.25,0,1,0\n");
  auto ok = ReadMigProfiler(dir);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  ASSERT_EQ(ok.value().size(), 1u);
  EXPECT_EQ(ok.value()[0].profile, "1g.5gb");
  EXPECT_DOUBLE_EQ(ok.value()[0].ratio, 0.25);
  EXPECT_DOUBLE_EQ(ok.value()[0].util_full, 0.25);

  testutil::WriteFile(f05, header + "0,m,1,64,8,1,0,fast,0,0,0.5,0,1,0\n");
  EXPECT_EQ(ReadMigProfiler(dir).status().message(),
            f05 + ":2: field 'throughput': expected a number >= 0, got 'fast'");
  testutil::WriteFile(f05, header + "0,m,1,64,8,1,0,100,0,0,1.5,0,1,0\n");
  EXPECT_EQ(ReadMigProfiler(dir).status().message(),
            f05 + ":2: field 'gract_mean': expected a number 0..1, got '1.5'");
  testutil::WriteFile(f05, header + "0,m,1,64,8\n");
  EXPECT_EQ(ReadMigProfiler(dir).status().message(),
            f05 + ":2: expected 14 fields (as in the header), got 5");
  testutil::WriteFile(f05, "model_name,batch_size,throughput\nm,8,100\n");
  EXPECT_EQ(ReadMigProfiler(dir).status().message(), f05 + ":1: missing column 'gract_mean'");
  testutil::WriteFile(
      f05, header + "0,m,1,64,8,1,0,100,0,0,0.5,0,1,0\n0,m,1,64,8,1,0,90,0,0,0.5,0,1,0\n");
  EXPECT_EQ(ReadMigProfiler(dir).status().message(),
            f05 + ":3: duplicate run of m batch 8 seq 64 on 1g.5gb");

  EXPECT_EQ(FitMigSpeed({}, {}).status().message(),
            "MIG fit: need samples on both sides (fit 0, hold-out 0)");
}

// The kind-aware demand (docs/mig.md, "Demand by job kind"), validated by
// leaving whole workload groups out: fitted on the other groups, the error
// on each held-out group beside the c/7 baseline's. Printed; the bounds are
// the ones docs/mig.md states.
TEST(MigFit, LeaveGroupOutByKindAndTokens) {
  bool skipped = false;
  const std::vector<MigSample> s = ReadOrSkip(&skipped);
  if (skipped) GTEST_SKIP() << "migprofiler-a100 not found under $UTILSIM_TRACES";
  const mig::MigSpeedParams all = FitMigDemand(s, mig::MigSpeedParams{});
  std::cout << "all samples: tokens_at_saturation " << all.tokens_at_saturation
            << ", util_at_saturation_train " << all.util_at_saturation_train
            << ", util_at_saturation " << all.util_at_saturation << ", MAPE "
            << MigMapeByKind(s, all) << "% (defaults " << MigMapeByKind(s, mig::MigSpeedParams{})
            << "%)\n";
  EXPECT_NEAR(all.tokens_at_saturation, 3213, 30);
  EXPECT_NEAR(all.util_at_saturation_train, 0.906, 0.005);
  EXPECT_LT(MigMapeByKind(s, mig::MigSpeedParams{}), 6.0);
  std::map<std::string, std::pair<double, double>> got;  // scheme/group -> (model, baseline)
  for (const MigGroupRow& r : MigLeaveGroupOut(s, mig::MigSpeedParams{})) {
    std::cout << r.scheme << " / " << r.group << ": " << r.samples << " samples, model "
              << r.model_mape << "%, c/7 " << r.baseline_mape << "% (tokens_at_saturation "
              << r.params.tokens_at_saturation << ", util_at_saturation_train "
              << r.params.util_at_saturation_train << ")\n";
    got[r.scheme + "/" + r.group] = {r.model_mape, r.baseline_mape};
  }
  // By experiment and by batch regime: better than c/7 on every group, the
  // worst group under 12 %.
  for (const char* g : {"experiment/infer_bsz", "experiment/infer_seq", "experiment/finetune_vit",
                        "experiment/finetune_moco", "batch/small (<= 8)", "batch/medium (16..64)",
                        "batch/large (>= 128)", "kind/training"}) {
    ASSERT_TRUE(got.count(g)) << g;
    EXPECT_LT(got[g].first, got[g].second) << g;
    EXPECT_LT(got[g].first, 12.0) << g;
  }
  // Inference held out: fitted on the 16 training samples only, nothing
  // identifies the inference demand; the model is worse than c/7 there
  // (docs/mig.md says so).
  EXPECT_GT(got["kind/inference"].first, got["kind/inference"].second);
}

// The right-sizing rule on the measurements: per configuration, the first of
// 1g.5gb, 2g.10gb, 3g.20gb whose speed MigDemand predicts at or above the
// tolerance (else 7g). At the default tolerance 0.9 no chosen slice is
// measured below 0.9, and 31 of the 78 configurations with a 7g run get a
// slice (29 with the utilization-only demand). docs/mig.md gives the misses
// at other tolerances.
TEST(MigFit, RightSizingAtTheDefaultToleranceMatchesTheMeasurements) {
  bool skipped = false;
  const std::vector<MigSample> s = ReadOrSkip(&skipped);
  if (skipped) GTEST_SKIP() << "migprofiler-a100 not found under $UTILSIM_TRACES";
  const mig::GpuModel& a100 = *mig::FindGpuModel("A100-40GB");
  const mig::MigSpeedParams p;
  const double tol = RightSizeParams{}.tolerance;
  ASSERT_EQ(tol, 0.9);
  std::map<std::tuple<std::string, std::string, int, int>, std::map<std::string, MigSample>> cfg;
  for (const MigSample& x : s)
    cfg[{x.experiment, x.model, x.seq_length, x.batch_size}][x.profile] = x;
  int sized = 0, sized_by_util = 0, misses = 0;
  for (const auto& [key, by] : cfg) {
    const MigSample& any = by.begin()->second;
    const double d = mig::MigDemand({any.util_full, any.kind, any.tokens_per_step}, p);
    const double d_util = mig::MigDemandFromUtil(any.util_full, p);
    bool util_done = false;
    for (const char* name : {"1g.5gb", "2g.10gb", "3g.20gb"}) {
      const mig::Profile& prof = a100.profiles[static_cast<size_t>(a100.FindProfile(name))];
      if (!util_done && mig::MigSpeed(prof, d_util, p) >= tol) {
        ++sized_by_util;
        util_done = true;
      }
    }
    for (const char* name : {"1g.5gb", "2g.10gb", "3g.20gb"}) {
      const mig::Profile& prof = a100.profiles[static_cast<size_t>(a100.FindProfile(name))];
      if (mig::MigSpeed(prof, d, p) < tol) continue;
      ++sized;
      auto it = by.find(name);
      if (it != by.end() && it->second.ratio < tol) {
        ++misses;
        ADD_FAILURE() << std::get<1>(key) << " batch " << std::get<3>(key) << " on " << name
                      << ": measured " << it->second.ratio;
      }
      break;
    }
  }
  EXPECT_EQ(cfg.size(), 78u);
  EXPECT_EQ(sized, 31);
  EXPECT_EQ(sized_by_util, 29);
  EXPECT_EQ(misses, 0);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
