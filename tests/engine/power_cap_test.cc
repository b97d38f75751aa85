// Power caps (engine power.h): the default curve against the published Zeus
// trace, the cap list parser, and ApplyPowerCaps on hand-computed figures.
// The budget's cluster-state side (ClusterState::SetPowerBudget) is here
// too; runs under caps and budgets are in tests/policies/power_budget_test.cc.
#include <gtest/gtest.h>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/power.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

// Zeus NSDI'23 artifact, trace/summary_power_v100.csv, imagenet resnet50
// batch 256: power limit (W), time per epoch (s), average power (W).
struct ZeusRow {
  double limit, time, power;
};
constexpr ZeusRow kZeus[] = {{100, 6781.173333, 98.382406},  {125, 5064.97, 121.966019},
                             {150, 4148.66, 144.594749},     {175, 3852.18, 166.372175},
                             {200, 3700.973333, 184.944273}, {225, 3584.303333, 205.438299},
                             {250, 3514.986667, 220.250295}};

TEST(PowerCap, DefaultCurveIsTheZeusTraceRelativeToTheUncappedRow) {
  const std::vector<CapPoint>& c = DefaultCapCurve();
  ASSERT_EQ(c.size(), 7u);
  const ZeusRow& top = kZeus[6];
  for (size_t i = 0; i < 7; ++i) {
    const ZeusRow& r = kZeus[i];
    SCOPED_TRACE(r.limit);
    EXPECT_NEAR(c[i].g, r.limit / top.power, 1e-3);
    EXPECT_NEAR(c[i].time, r.time / top.time, 1e-4);
    EXPECT_NEAR(c[i].energy, r.time * r.power / (top.time * top.power), 1e-4);
  }
  EXPECT_EQ(CheckCapCurve(c), "");
}

TEST(PowerCap, CurveInterpolatesAndClamps) {
  const std::vector<CapPoint> c = {{0.5, 1.2, 0.9}, {1.0, 1.0, 1.0}};
  EXPECT_DOUBLE_EQ(CapAt(c, 0.75).time, 1.1);
  EXPECT_DOUBLE_EQ(CapAt(c, 0.75).energy, 0.95);
  EXPECT_DOUBLE_EQ(CapAt(c, 2.0).time, 1.0);  // above the uncapped draw: no effect
  EXPECT_DOUBLE_EQ(CapAt(c, 0.5).time, 1.2);
  EXPECT_NE(CheckCapCurve({}), "");
  EXPECT_NE(CheckCapCurve({{1.0, 1.0, 1.0}, {0.5, 1.2, 0.9}}), "");  // g must increase
  EXPECT_NE(CheckCapCurve({{0.5, 0.9, 0.9}, {1.0, 1.0, 1.0}}), "");  // faster under a cap
  EXPECT_NE(CheckCapCurve({{0.5, 1.2, 0.9}, {1.0, 1.1, 1.0}}), "");  // last point not 1, 1
}

TEST(PowerCap, ParsesWattsSharesAndModels) {
  auto a = ParsePowerCaps("300");
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a.value().size(), 1u);
  EXPECT_EQ(a.value()[0].model, "");
  EXPECT_DOUBLE_EQ(a.value()[0].watts, 300);
  auto b = ParsePowerCaps("A100=250,V100=60%");
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_EQ(b.value().size(), 2u);
  EXPECT_EQ(b.value()[0].model, "A100");
  EXPECT_DOUBLE_EQ(b.value()[0].watts, 250);
  EXPECT_EQ(b.value()[1].model, "V100");
  EXPECT_DOUBLE_EQ(b.value()[1].tdp_fraction, 0.6);
  for (const char* bad : {"", "abc", "=5", "A=0", "A=120%", "A=-3", "300,", "A=2x"}) {
    SCOPED_TRACE(bad);
    auto r = ParsePowerCaps(bad);
    EXPECT_FALSE(r.ok());
  }
  EXPECT_NE(ParsePowerCaps("A=2x").status().message().find("power cap 'A=2x'"), std::string::npos);
}

// Model X: idle 50, context 80, busy 300 W, TDP 400 W; curve (0.5: 1.2x
// time, 0.9x energy) .. (1: none).
struct Capped {
  ClusterSpec spec;
  PowerModel power;
  Capped() {
    spec.name = "c";
    spec.models = {{"X", 0, 1.0}, {"Y", 0, 2.0}};
    spec.groups = {{"x", 1, "X", 1, 1000, 1LL << 30, 0}, {"y", 1, "Y", 1, 1000, 1LL << 30, 0}};
    power.models = {{"X", GpuPower{50, 80, 300, "test", 400, 0}}};
    power.fallback = GpuPower{10, 20, 100, "fallback", 0, 0};
    power.cap_curve = {{0.5, 1.2, 0.9}, {1.0, 1.0, 1.0}};
  }
};

TEST(PowerCap, AppliesTheCurveToSpeedAndBusyPower) {
  Capped c;
  auto caps = ParsePowerCaps("X=150");
  ASSERT_TRUE(caps.ok());
  ASSERT_TRUE(ApplyPowerCaps(caps.value(), &c.spec, &c.power).ok());
  // g = 150 / 300 = 0.5: busy work 1.2x as long, busy power 300 x 0.9 / 1.2.
  EXPECT_DOUBLE_EQ(c.spec.models[0].speed, 1 / 1.2);
  EXPECT_DOUBLE_EQ(c.spec.models[1].speed, 2.0);  // Y not capped
  const GpuPower& x = PowerOf(c.power, "X");
  EXPECT_DOUBLE_EQ(x.active_w, 225);
  EXPECT_DOUBLE_EQ(x.context_w, 80);
  EXPECT_DOUBLE_EQ(x.cap_w, 150);
  EXPECT_DOUBLE_EQ(BudgetWatts(x), 100);  // cap - idle
}

TEST(PowerCap, ShareOfTdpAndALaterCapReplacesAnEarlierOne) {
  Capped c;
  // 50 % of 400 W = 200 W: g = 2/3, time 1.2 - 0.2/3, energy 0.9 + 0.1/3.
  auto caps = ParsePowerCaps("X=150,X=50%");
  ASSERT_TRUE(caps.ok());
  ASSERT_TRUE(ApplyPowerCaps(caps.value(), &c.spec, &c.power).ok());
  const double t = 1.2 - 0.2 / 3, e = 0.9 + 0.1 / 3;
  EXPECT_NEAR(c.spec.models[0].speed, 1 / t, 1e-12);
  EXPECT_NEAR(PowerOf(c.power, "X").active_w, 300 * e / t, 1e-9);
  EXPECT_DOUBLE_EQ(PowerOf(c.power, "X").cap_w, 200);
}

TEST(PowerCap, ACapAboveTheBusyDrawChangesNothingButTheBudget) {
  Capped c;
  ASSERT_TRUE(ApplyPowerCaps({PowerCap{"X", 350, 0}}, &c.spec, &c.power).ok());
  EXPECT_DOUBLE_EQ(c.spec.models[0].speed, 1.0);
  EXPECT_DOUBLE_EQ(PowerOf(c.power, "X").active_w, 300);
  EXPECT_DOUBLE_EQ(BudgetWatts(PowerOf(c.power, "X")), 300);  // 350 - 50
}

TEST(PowerCap, ErrorsNameTheModelAndTheReason) {
  struct Case {
    const char* caps;
    const char* says;
  } cases[] = {{"Z=100", "'Z' is not in the cluster"},
               {"X=70", "not above its context power 80 W"},
               {"X=100", "below the power-cap curve's first point 0.5"},
               {"Y=50%", "needs the model's tdp_w"}};
  for (const Case& k : cases) {
    SCOPED_TRACE(k.caps);
    Capped c;
    auto caps = ParsePowerCaps(k.caps);
    ASSERT_TRUE(caps.ok());
    Status s = ApplyPowerCaps(caps.value(), &c.spec, &c.power);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find(k.says), std::string::npos) << s.message();
  }
}

TEST(PowerCap, BudgetWattsUsesCapThenTdpThenBusyPower) {
  EXPECT_DOUBLE_EQ(BudgetWatts(GpuPower{50, 80, 300, "", 400, 0}), 350);
  EXPECT_DOUBLE_EQ(BudgetWatts(GpuPower{50, 80, 300, "", 400, 250}), 200);
  EXPECT_DOUBLE_EQ(BudgetWatts(GpuPower{50, 80, 300, "", 0, 0}), 250);
  EXPECT_DOUBLE_EQ(BudgetWatts(GpuPower{50, 80, 300, "", 400, 500}), 350);  // cap above TDP
}

// Two 2-GPU nodes in two racks; each whole GPU counts 100 W.
TEST(PowerBudgetState, CanHostFindFirstAndAllocateRespectTheHeadroom) {
  ClusterSpec spec;
  spec.name = "b";
  spec.models = {{"X", 0, 1.0}};
  spec.groups = {{"n", 2, "X", 2, 8000, 8LL << 30, 0}};
  spec.topology.nodes_per_rack = 1;
  auto st = ClusterState::Build(spec);
  ASSERT_TRUE(st.ok()) << st.status().message();
  ClusterState c = std::move(st).value();
  ClusterState::PowerBudget b;
  b.cluster_mw = 250'000;  // two and a half GPUs
  b.rack_mw = {150'000, -1};
  b.model_mw = {100'000};
  ASSERT_TRUE(c.SetPowerBudget(b).ok());
  TaskDemand one;
  one.gpus = 1;
  TaskDemand half = one;
  half.gpu_milli = 500;
  EXPECT_EQ(c.TaskPowerMw(0, one), 100'000);
  EXPECT_EQ(c.TaskPowerMw(0, half), 50'000);
  ASSERT_TRUE(c.Allocate({0, 0b01}, one).ok());
  // Rack 0 has 50 W left: a whole GPU no longer fits there, half of one does.
  EXPECT_FALSE(c.CanHost(0, one, kAnyModel));
  EXPECT_TRUE(c.HostsResources(0, one, kAnyModel));
  EXPECT_TRUE(c.CanHost(0, half, kAnyModel));
  EXPECT_EQ(c.FindFirst(0, one, kAnyModel), 1);
  EXPECT_EQ(c.FindFirst(0, one, kAnyModel, /*budget=*/false), 0);
  // Allocate does not refuse (tentative states may pass above the budget);
  // CheckPowerBudget, the engine's check of each start, does.
  ASSERT_TRUE(c.Allocate({0, 0b10}, one).ok());
  const Status over = c.CheckPowerBudget({{0, 0b10}});
  EXPECT_NE(over.message().find("over the power budget of rack"), std::string::npos)
      << over.message();
  c.Release({0, 0b10}, one);
  EXPECT_TRUE(c.CheckPowerBudget({{0, 0b01}}).ok());
  ASSERT_TRUE(c.Allocate({1, 0b01}, one).ok());
  EXPECT_EQ(c.power_used_mw(), 200'000);
  // 50 W left in the cluster: no whole GPU anywhere.
  EXPECT_EQ(c.FindFirst(0, one, kAnyModel), -1);
  EXPECT_EQ(c.FindFirst(0, half, kAnyModel), 0);
  c.Release({0, 0b01}, one);
  EXPECT_EQ(c.power_used_mw(), 100'000);
  EXPECT_TRUE(c.CanHost(0, one, kAnyModel));
  // A copy (backfill's scratch state) carries the budget and its use.
  ClusterState copy = c;
  EXPECT_EQ(copy.power_used_mw(), 100'000);
  EXPECT_FALSE(copy.SetPowerBudget({-1, {}, {1, 2}}).ok());  // wrong model count
  EXPECT_EQ(copy.SetPowerBudget(b).message(), "power budget: set it before any GPU is allocated");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
