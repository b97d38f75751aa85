// Policy parameters (params.h): parsing, every error form, formatting, and
// the registry's use of them (Make, MakePlacement, profiles, decorators,
// results).
#include "utilsim/policies/params.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "utilsim/engine/rng.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/coresource.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

const ParamSpec kThresholds{.name = "thresholds",
                            .type = ParamType::kSecondsList,
                            .default_value = "3600/36000",
                            .min = 1,
                            .max = 1e10,
                            .min_items = 1,
                            .max_items = 16,
                            .increasing = true,
                            .help = "queue boundaries"};

// One parameter of each type, declared out of alphabetical order.
std::vector<ParamSpec> AllTypes() {
  return {{.name = "depth", .type = ParamType::kInt, .default_value = "8", .min = 0, .max = 100},
          {.name = "base",
           .type = ParamType::kDouble,
           .default_value = "nodes",
           .min = 1.5,
           .max = 10,
           .words = {"nodes"}},
          {.name = "weights",
           .type = ParamType::kDoubleList,
           .default_value = "1/2/3",
           .min = -1,
           .max = 5,
           .min_items = 3,
           .max_items = 3},
          {.name = "mode",
           .type = ParamType::kEnum,
           .default_value = "pack",
           .words = {"pack", "spread"}}};
}

TEST(Params, ParsesEveryTypeAndFillsDefaults) {
  auto v = ParseParams("p", AllTypes(), "mode=spread,base=2.5,depth=0");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v.value().Int("depth"), 0);
  EXPECT_EQ(v.value().Double("base"), 2.5);
  EXPECT_EQ(v.value().Word("base"), "");
  EXPECT_EQ(v.value().List("weights"), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(v.value().Word("mode"), "spread");
  // Declared order, every parameter, whatever order they were given in.
  EXPECT_EQ(v.value().Canonical(), "depth=0,base=2.5,weights=1/2/3,mode=spread");
  auto d = ParseParams("p", AllTypes(), "");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.value().Word("base"), "nodes");
  EXPECT_EQ(d.value().Canonical(), "depth=8,base=nodes,weights=1/2/3,mode=pack");
  // The canonical text reads back as the same values.
  auto again = ParseParams("p", AllTypes(), v.value().Canonical());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value().Canonical(), v.value().Canonical());
  // Lookups of the wrong type or an undeclared name are empty, not a crash.
  EXPECT_EQ(v.value().Int("base"), 0);
  EXPECT_TRUE(v.value().List("depth").empty());
  EXPECT_EQ(v.value().Double("nope"), 0);
  EXPECT_TRUE(ParamValues().Canonical().empty());
}

TEST(Params, ListsAndNumbers) {
  auto v = ParseParams("tiresias", {kThresholds}, "thresholds=3250/7200");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v.value().List("thresholds"), (std::vector<double>{3250, 7200}));
  EXPECT_EQ(v.value().Canonical(), "thresholds=3250/7200");
  v = ParseParams("tiresias", {kThresholds}, "thresholds=1e3/2.5e3/7200.0");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v.value().Canonical(), "thresholds=1000/2500/7200");
  EXPECT_EQ(FormatParamNumber(3600), "3600");
  EXPECT_EQ(FormatParamNumber(0.8), "0.8");
  EXPECT_EQ(FormatParamNumber(-0.0), "0");
  EXPECT_EQ(FormatParamNumber(1e20), "1e+20");
  EXPECT_EQ(FormatParamList({1, 0.5}), "1/0.5");
}

struct Bad {
  std::string text;
  std::string message;  // the whole error
};

TEST(Params, EveryBadFormNamesPolicyKeyAndRange) {
  const std::string list =
      "a list of 1 to 16 values in seconds separated by '/', each in [1, 10000000000], "
      "strictly increasing";
  const std::string accepted = "; accepted: thresholds (" + list + "; default 3600/36000)";
  const std::string expected = "policy 'tiresias': parameter 'thresholds': expected " + list;
  const std::vector<Bad> cases = {
      {"threshold=3250/7200", "policy 'tiresias': unknown parameter 'threshold'" + accepted},
      {"x", "policy 'tiresias': expected key=value, got 'x'" + accepted},
      {"=5", "policy 'tiresias': expected key=value, got '=5'" + accepted},
      {"thresholds=1/2,", "policy 'tiresias': expected key=value, got ''" + accepted},
      {"thresholds=1/2,thresholds=3/4", "policy 'tiresias': parameter 'thresholds' is given twice"},
      {"thresholds=", expected + ", got ''"},
      {"thresholds=7200/3250", expected + ", got '7200/3250'"},
      {"thresholds=100/100", expected + ", got '100/100'"},
      {"thresholds=0/5", expected + ", got '0/5'"},
      {"thresholds=1e11", expected + ", got '1e11'"},
      {"thresholds=a/b", expected + ", got 'a/b'"},
      {"thresholds=1//2", expected + ", got '1//2'"},
      {"thresholds=nan", expected + ", got 'nan'"},
      {"thresholds=inf", expected + ", got 'inf'"},
      {"thresholds= 5", expected + ", got ' 5'"},
      {"thresholds=1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17",
       expected + ", got '1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17'"},
  };
  for (const Bad& c : cases) {
    auto v = ParseParams("tiresias", {kThresholds}, c.text);
    ASSERT_FALSE(v.ok()) << c.text;
    EXPECT_EQ(v.status().message(), c.message) << c.text;
  }
  const std::vector<Bad> typed = {
      {"depth=1.5", "policy 'p': parameter 'depth': expected an integer in [0, 100], got '1.5'"},
      {"depth=1e2", "policy 'p': parameter 'depth': expected an integer in [0, 100], got '1e2'"},
      {"depth=-1", "policy 'p': parameter 'depth': expected an integer in [0, 100], got '-1'"},
      {"depth=101", "policy 'p': parameter 'depth': expected an integer in [0, 100], got '101'"},
      {"depth=99999999999999999999",
       "policy 'p': parameter 'depth': expected an integer in [0, 100], got "
       "'99999999999999999999'"},
      {"base=1",
       "policy 'p': parameter 'base': expected a number in [1.5, 10] or 'nodes', got '1'"},
      {"base=auto",
       "policy 'p': parameter 'base': expected a number in [1.5, 10] or 'nodes', got 'auto'"},
      {"weights=1/2",
       "policy 'p': parameter 'weights': expected a list of 3 numbers separated by '/', each in "
       "[-1, 5], got '1/2'"},
      {"mode=tight",
       "policy 'p': parameter 'mode': expected one of 'pack' or 'spread', got 'tight'"},
  };
  for (const Bad& c : typed) {
    auto v = ParseParams("p", AllTypes(), c.text);
    ASSERT_FALSE(v.ok()) << c.text;
    EXPECT_EQ(v.status().message(), c.message) << c.text;
  }
  EXPECT_EQ(ParseParams("fifo", {}, "x=1").status().message(),
            "policy 'fifo': takes no parameters, got 'x=1'");
}

TEST(Params, DescribesEachParameterOnOneLine) {
  EXPECT_EQ(DescribeParams({kThresholds}, "  "),
            "  thresholds: a list of 1 to 16 values in seconds separated by '/', each in [1, "
            "10000000000], strictly increasing; default 3600/36000. queue boundaries\n");
  EXPECT_EQ(DescribeParams({}), "");
  EXPECT_EQ(DescribeParamType(AllTypes()[1]), "a number in [1.5, 10] or 'nodes'");
}

TEST(Params, BadDeclarationsAreRefusedAtRegistration) {
  auto with = [](ParamSpec s) {
    PolicyRegistry r;
    return r.AddPlacement({"p", "", "", "d", {s}},
                          [](const ParamValues&, uint64_t) { return MakeFirstFit(); });
  };
  EXPECT_EQ(with({.name = "k", .default_value = "7", .min = 0, .max = 5}).message(),
            "policy 'p': parameter 'k': default '7' is not an integer in [0, 5]");
  EXPECT_EQ(with({.name = "K", .default_value = "1", .max = 5}).message(),
            "policy 'p': parameter 'K': a name is a lower-case letter, then letters, digits, '-', "
            "'_'");
  EXPECT_EQ(with({.name = "k", .default_value = "1", .min = 5, .max = 1}).message(),
            "policy 'p': parameter 'k': min must not exceed max");
  EXPECT_EQ(with({.name = "k", .type = ParamType::kEnum, .default_value = "a"}).message(),
            "policy 'p': parameter 'k': an enum needs its words");
  PolicyRegistry r;
  const ParamSpec k{.name = "k", .default_value = "1", .max = 5};
  EXPECT_EQ(r.AddPlacement({"p", "", "", "d", {k, k}},
                           [](const ParamValues&, uint64_t) { return MakeFirstFit(); })
                .message(),
            "policy 'p': parameter 'k': declared twice");
  // Parameters need a factory that receives them.
  EXPECT_EQ(r.AddPlacement({"p", "", "", "d", {k}}, [] { return MakeFirstFit(); }).message(),
            "policy 'p' declares parameters, but its factory takes no ParamValues");
}

TEST(Params, RegistryErrorsOnEverySideOfAName) {
  const PolicyRegistry reg = BuiltinPolicies();
  const std::string tiresias_accepted =
      "; accepted: thresholds (a list of 1 to 16 values in seconds separated by '/', each in [1, "
      "10000000000], strictly increasing; default 3600/36000)";
  const std::vector<Bad> cases = {
      {"tiresias:", "policy 'tiresias': expected key=value after ':'" + tiresias_accepted},
      {"tiresias:x", "policy 'tiresias': expected key=value, got 'x'" + tiresias_accepted},
      {"tiresias:threshold=3250/7200",
       "policy 'tiresias': unknown parameter 'threshold'" + tiresias_accepted},
      {"tiresias:thresholds=3250/7200+epvm:base=1",
       "policy 'epvm': parameter 'base': expected a number in [1.01, 1000000] or 'nodes', got "
       "'1'"},
      {"tiresias:thresholds=9/3+epvm",
       "policy 'tiresias': parameter 'thresholds': expected a list of 1 to 16 values in seconds "
       "separated by '/', each in [1, 10000000000], strictly increasing, got '9/3'"},
      {"fifo:x=1+best-fit", "policy 'fifo': takes no parameters, got 'x=1'"},
      {"fifo+best-fit:",
       "policy 'best-fit': takes no parameters (nothing may follow the name, "
       "got 'best-fit:')"},
      {"best-fit:x=1", "policy 'best-fit': takes no parameters, got 'x=1'"},
      {"colocate:threshold=-0.5",
       "policy 'colocate': parameter 'threshold': expected a number in [0, 100], got '-0.5'"},
      {"conservative-backfill:depth=many",
       "policy 'conservative-backfill': parameter 'depth': expected an integer in [0, 1000000], "
       "got 'many'"},
      {"as-recorded:x=1", "policy 'as-recorded': takes no parameters, got 'x=1'"},
  };
  for (const Bad& c : cases) {
    auto s = reg.Make(c.text);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.status().message(), c.message) << c.text;
  }
  EXPECT_EQ(reg.MakePlacement("epvm:base=").status().message(),
            "policy 'epvm': parameter 'base': expected a number in [1.01, 1000000] or 'nodes', "
            "got ''");
  EXPECT_EQ(reg.Make("tightest:x=1").status().message().rfind("unknown policy 'tightest' (", 0),
            0u);
  EXPECT_EQ(reg.Params("nope:x=1").status().message().rfind("unknown policy 'nope' (", 0), 0u);
}

// Random texts built from the syntax's characters never crash the registry:
// each is a scheduler or an error with a message.
TEST(Params, RandomTextsAreSchedulersOrErrors) {
  const PolicyRegistry reg = BuiltinPolicies();
  const std::vector<std::string> heads = {
      "tiresias", "epvm", "colocate", "conservative-backfill", "fifo", "best-fit", "random"};
  const std::string alphabet = "thresholdsbaepvm=:,/+.-e019";
  Rng rng(11, 0, "params-fuzz");
  for (int i = 0; i < 3000; ++i) {
    std::string text = heads[static_cast<size_t>(rng.UniformInt(0, 6))];
    const int64_t n = rng.UniformInt(0, 24);
    for (int64_t k = 0; k < n; ++k)
      text += alphabet[static_cast<size_t>(rng.UniformInt(0, alphabet.size() - 1))];
    auto s = reg.Make(text);
    if (!s.ok()) {
      EXPECT_FALSE(s.status().message().empty()) << text;
    }
    auto p = reg.MakePlacement(text);
    if (!p.ok()) {
      EXPECT_FALSE(p.status().message().empty()) << text;
    }
  }
}

TEST(Params, BuiltinsDeclareTheirParametersAndReportThemInTheirIds) {
  const PolicyRegistry reg = BuiltinPolicies();
  std::vector<std::string> declared;
  for (const PolicyInfo& p : reg.List())
    for (const ParamSpec& s : p.params) declared.push_back(p.name + ":" + s.name);
  EXPECT_EQ(declared,
            (std::vector<std::string>{"colocate:threshold", "epvm:base",
                                      "conservative-backfill:depth", "tiresias:thresholds"}));
  // Each policy's id reports exactly the canonical form of what it was
  // given: defaults and another value.
  for (const char* placement :
       {"epvm", "epvm:base=16", "colocate", "colocate:threshold=0.7", "best-fit"}) {
    auto p = reg.MakePlacement(placement);
    ASSERT_TRUE(p.ok()) << placement;
    EXPECT_EQ(p.value()->id().params, reg.Params(placement).value().Canonical()) << placement;
  }
  for (const char* queue : {"tiresias", "tiresias:thresholds=60/600/6000", "conservative-backfill",
                            "conservative-backfill:depth=3", "fifo", "drf"}) {
    auto s = reg.Make(queue);
    ASSERT_TRUE(s.ok()) << queue;
    EXPECT_EQ(s.value()->queue_policy().params, reg.Params(queue).value().Canonical()) << queue;
  }
  EXPECT_EQ(reg.Params("tiresias").value().Canonical(), "thresholds=3600/36000");
  EXPECT_EQ(reg.Params("epvm").value().Canonical(), "base=nodes");
  EXPECT_EQ(reg.Params("colocate").value().Canonical(), "threshold=1");
  EXPECT_EQ(reg.Params("conservative-backfill").value().Canonical(), "depth=256");
  EXPECT_EQ(reg.Params("best-fit").value().Canonical(), "");
}

ClusterSpec TwoNodes() {
  ClusterSpec s;
  s.name = "two";
  s.models = {{"G", 0, 1.0}};
  s.groups = {{"n", 2, "G", 4, 32000, 256LL << 30, 0}};
  return s;
}

Workload TwoJobs() {
  Workload w;
  for (int i = 0; i < 2; ++i) {
    Job j;
    j.name = "j" + std::to_string(i);
    j.submit = Seconds(i);
    j.task.gpus = 2;
    j.runtime = Seconds(100);
    w.jobs.push_back(j);
  }
  w.Finalize();
  return w;
}

RunMeta MetaOf(const PolicyRegistry& reg, const std::string& name) {
  auto s = reg.Make(name);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return {};
  auto r = Simulate(TwoNodes(), TwoJobs(), *s.value(), SimConfig{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value().meta : RunMeta{};
}

TEST(Params, CanonicalParametersAreRecordedInRunMeta) {
  const PolicyRegistry reg = BuiltinPolicies();
  RunMeta m = MetaOf(reg, "tiresias:thresholds=3250/7200+epvm:base=2");
  EXPECT_EQ(m.label, "tiresias:thresholds=3250/7200+epvm:base=2");
  EXPECT_EQ(m.queue_policy, "tiresias");
  EXPECT_EQ(m.queue_policy_params, "thresholds=3250/7200");
  EXPECT_EQ(m.placement_policy, "epvm");
  EXPECT_EQ(m.placement_policy_params, "base=2");
  m = MetaOf(reg, "conservative-backfill+colocate");
  EXPECT_EQ(m.queue_policy_params, "depth=256");
  EXPECT_EQ(m.placement_policy_params, "threshold=1");
  m = MetaOf(reg, "tiresias:thresholds=1e+03/2e+03+epvm:base=1e+02");
  EXPECT_EQ(m.queue_policy_params, "thresholds=1000/2000");
  EXPECT_EQ(m.placement_policy_params, "base=100");
  m = MetaOf(reg, "epvm:base=3.5");  // a placement alone: the fifo queue
  EXPECT_EQ(m.queue_policy, "fifo");
  EXPECT_EQ(m.queue_policy_params, "");
  EXPECT_EQ(m.placement_policy_params, "base=3.5");
  m = MetaOf(reg, "tiresias:thresholds=100");  // a queue alone: first-fit
  EXPECT_EQ(m.placement_policy, "first-fit");
  EXPECT_EQ(m.queue_policy_params, "thresholds=100");
  m = MetaOf(reg, "best-fit");
  EXPECT_EQ(m.queue_policy_params, "");
  EXPECT_EQ(m.placement_policy_params, "");
}

TEST(Params, DecoratedRegistriesPassParametersThrough) {
  auto deco = DecoratePlacements(BuiltinPolicies(), [](std::unique_ptr<PlacementPolicy> p) {
    return MakeGpuReservation(std::move(p), 1000, 0);
  });
  ASSERT_TRUE(deco.ok()) << deco.status().message();
  RunMeta m = MetaOf(deco.value(), "tiresias:thresholds=50/500+epvm:base=4");
  EXPECT_EQ(m.placement_policy, "epvm+gpu-reserve(1000m,0B)");
  EXPECT_EQ(m.placement_policy_params, "base=4");
  EXPECT_EQ(m.queue_policy_params, "thresholds=50/500");
  EXPECT_FALSE(deco.value().Make("fifo+epvm:base=0").ok());
}

TEST(Params, ProfileQueuesTakeParameters) {
  PolicyRegistry r = BuiltinPolicies();
  Status s = LoadProfilesFromString(R"(profiles:
  - name: tight
    queue: tiresias:thresholds=600/6000
    filters: [resources-fit]
    scores: [{plugin: gpu-least-leftover}]
)",
                                    "p.yaml", &r);
  ASSERT_TRUE(s.ok()) << s.message();
  RunMeta m = MetaOf(r, "tight");
  EXPECT_EQ(m.queue_policy, "tiresias");
  EXPECT_EQ(m.queue_policy_params, "thresholds=600/6000");
  EXPECT_EQ(m.placement_policy, "tight");
  EXPECT_EQ(r.Make("tight:x=1").status().message(),
            "policy 'tight': takes no parameters, got 'x=1'");
  // The profile's queue keeps its parameters in a decorated copy.
  auto deco = DecoratePlacements(r, [](std::unique_ptr<PlacementPolicy> p) { return p; });
  ASSERT_TRUE(deco.ok()) << deco.status().message();
  EXPECT_EQ(MetaOf(deco.value(), "tight").queue_policy_params, "thresholds=600/6000");

  PolicyRegistry bad = BuiltinPolicies();
  s = LoadProfilesFromString(
      "profiles:\n  - name: x\n    queue: tiresias:x=1\n    filters: [resources-fit]\n", "p.yaml",
      &bad);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("p.yaml:3: queue: policy 'tiresias': unknown parameter 'x'; "
                              "accepted: thresholds (",
                              0),
            0u)
      << s.message();
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
