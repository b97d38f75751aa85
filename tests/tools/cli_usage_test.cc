// The command line's usage errors (exit 2): every option value out of range
// in one table, options that do not apply to a subcommand, did-you-mean for
// subcommands, options and policies, and per-subcommand help.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "suggest.h"
#include "testutil/testutil.h"

namespace utilsim::cli {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::RunCli;

using testutil::Has;

std::string FileArgs() {
  return "--trace " + Fixture("cli/jobs.csv") + " --cluster " + Fixture("cli/cluster.yaml");
}

struct UsageCase {
  std::string args;
  std::string option;  // named in the message
  std::string range;   // the accepted range (or why the option is refused)
};

TEST(CliUsage, NonsenseValuesAreUsageErrorsNamingOptionAndRange) {
  const std::string plan = "plan --target 'p95-wait<=1h' ";
  const std::vector<UsageCase> cases = {
      // Runs: time, price, sampling.
      {"run --horizon -1", "--horizon", "expected seconds >= 0, got '-1'"},
      {"run --horizon nan", "--horizon", "expected seconds >= 0, got 'nan'"},
      {"run --horizon inf", "--horizon", "expected seconds >= 0"},
      {"run --sample-interval 0", "--sample-interval", "expected seconds > 0, got '0'"},
      {"run --sample-interval -5", "--sample-interval", "expected seconds > 0"},
      {"run --sample-interval nan", "--sample-interval", "expected seconds > 0"},
      {"run --warmup -1", "--warmup", "expected seconds >= 0"},
      {"run --restart-cost -0.5", "--restart-cost", "expected seconds >= 0"},
      {"run --price -2", "--price", "expected USD per GPU-hour >= 0, got '-2'"},
      {"run --comm-fraction 1.5", "--comm-fraction", "expected a fraction in 0..1"},
      {"run --comm-fraction -0.1", "--comm-fraction", "expected a fraction in 0..1"},
      {"run --mps-thread-pct 0", "--mps-thread-pct", "expected a percentage in (0, 100]"},
      {"run --mps-thread-pct 101", "--mps-thread-pct", "expected a percentage in (0, 100]"},
      {"run --window fulll", "--window", "expected arrivals or full, got 'fulll'"},
      {"run --model quantum", "--model", "expected whole-gpu, stall-serial or stall-overlapped"},
      {"run --sharing shared", "--sharing", "expected fractional, exclusive, timeslice or mps"},
      {"run --progress sometimes", "--progress", "expected auto, always or never"},
      // Energy what-ifs (docs/energy.md).
      {"run --power-cap abc", "--power-cap", "power cap 'abc': expected watts (\"250\")"},
      {"run --power-cap 120%", "--power-cap", "a share of TDP must be at most 100%"},
      {"compare --policies best-fit --power-cap A100=", "--power-cap",
       "power cap 'A100=': expected watts"},
      {"run --power-budget -5", "--power-budget", "expected watts >= 0, got '-5'"},
      {"run --rack-power-budget nan", "--rack-power-budget", "expected watts >= 0"},
      {"run --max-memory 12X", "--max-memory", "expected a size >= 0 such as 16G"},
      {"run --max-memory -1G", "--max-memory", "expected a size >= 0 such as 16G"},
      {"run --mig whole", "--mig", "expected right-size[:TOL] or dynamic[:TOL]"},
      {"run --mig right-size:2", "--mig", "tolerance must be a number in (0, 1]"},
      {"run --mig-reconfig 2,x", "--mig-reconfig",
       "expected CREATE[,DESTROY[,FIXED]] seconds >= 0"},
      {"run --gpu-reserve four", "--gpu-reserve", "expected CORES_PER_GPU[,MEM_GIB_PER_GPU]"},
      {"run --cpu-alloc greedy", "--cpu-alloc", "known: request, proportional, measured"},
      {"run --scale-host-requests 0", "--scale-host-requests", "expected CPU[,MEM] factors > 0"},
      // Inputs.
      {"run --jobs -5", "--jobs", "expected an integer >= 1, got '-5'"},
      {"run --jobs 0", "--jobs", "expected an integer >= 1, got '0'"},
      {"run --jobs 1e3", "--jobs", "expected an integer >= 1"},
      {"run --jobs 99999999999999999999", "--jobs", "expected an integer >= 1"},
      {"run " + FileArgs() + " --jobs 5", "--jobs", "only for built-in workloads"},
      {"demo --jobs 0", "--jobs", "expected an integer >= 1"},
      {"run --seed -1", "--seed", "expected an integer in 0..18446744073709551615"},
      {"run --seed 99999999999999999999", "--seed",
       "expected an integer in 0..18446744073709551615"},
      {"run --seed 0x10", "--seed", "(plain decimal digits)"},
      {"demo --seed -1", "--seed", "expected an integer in 0..18446744073709551615"},
      {"run --format swf-ish", "--format", "expected builtin, canonical, openb"},
      {"run --telemetry-format prom", "--telemetry-format", "expected dcgm-exporter, prom-json"},
      {"run --telemetry-offset nan", "--telemetry-offset", "expected a finite number of seconds"},
      {"run --attach shape", "--attach", "expected series or mean"},
      {"run --pending later", "--pending", "expected run or skip"},
      {"run --swf-unit node", "--swf-unit", "expected gpu or cpu"},
      {"run --sacct-tenant group", "--sacct-tenant", "expected account or user"},
      {"run --sacct-submit start", "--sacct-submit", "expected eligible or submit"},
      // Cluster.
      {"run --nodes 0", "--nodes", "expected an integer in 1..1000000, got '0'"},
      {"run --nodes -3", "--nodes", "expected an integer in 1..1000000, got '-3'"},
      {"run --gpus-per-node 0", "--gpus-per-node", "expected an integer in 1..64"},
      {"validate --nodes-list 0,-3", "--nodes-list", "expected an integer in 1..1000000, got '0'"},
      {"validate --nodes-list 32,-3", "--nodes-list",
       "expected an integer in 1..1000000, got '-3'"},
      // Policies.
      {"compare --policies best-fit,,worst-fit", "--policies",
       "expected comma-separated policy names without empty entries"},
      {"compare --policies best-fit,", "--policies", "without empty entries"},
      {"compare --policies best-fit,worst-fit,best-fit", "--policies",
       "'best-fit' is listed twice (expected each policy once)"},
      {"compare --policies best-fit --baseline worst-fit", "--baseline",
       "'worst-fit' is not one of --policies"},
      {"compare --policies best-fit --threads 0", "--threads", "expected an integer in 1..4096"},
      {"run --policy tightest", "--policy", "unknown policy 'tightest'"},
      {"fgd-experiment --policies best-fit,best-fit", "--policies", "listed twice"},
      {"fgd-experiment --policies fifo", "--policies", "unknown placement policy 'fifo'"},
      {"fgd-experiment --seeds 0", "--seeds", "expected an integer in 1..100000"},
      {"fgd-experiment --max-arrived 0", "--max-arrived", "expected a share of capacity in"},
      {"fgd-experiment --arrivals bogus", "--arrivals", "simulator"},
      {"fgd-experiment --node-order name", "--node-order", "random"},
      {"fgd-experiment --popularity 0", "--popularity", "1..100"},
      {plan + "--policies best-fit,,fgd", "--policies", "without empty entries"},
      {plan + "--policies fgd,fgd", "--policies", "listed twice"},
      {plan + "--threads 0", "--threads", "expected an integer in 1..4096"},
      {plan + "--ladder 0", "--ladder", "expected an integer in 1..10000"},
      {plan + "--refine 0", "--refine", "expected an integer in 1..10000"},
      {plan + "--max-scale 0", "--max-scale", "expected a multiple of the node count in"},
      {plan + "--step 1.5", "--step", "expected N nodes (an integer >= 1), a fraction 0 < F < 1"},
      {"plan --target 'p95<=1h'", "--target", "expected METRIC<=LIMIT"},
      {"diagnose --idle-share 101", "--idle-share", "expected a percentage in 0..100"},
      {"diagnose --high-allocation -1", "--high-allocation", "expected a percentage in 0..100"},
      // Options that do not apply to the subcommand (they wrote or changed
      // nothing there).
      {"inspect --out x.db", "--out", "does not apply to 'utilsim inspect'"},
      {"inspect --sharing mps", "--sharing", "does not apply to 'utilsim inspect'"},
      {"convert --model stall-serial --out x.csv", "--model",
       "does not apply to 'utilsim convert'"},
      {"fgd-experiment --out x.db", "--out", "does not apply to 'utilsim fgd-experiment'"},
      {"validate --csv dir", "--csv", "does not apply to 'utilsim validate'"},
  };
  for (const auto& c : cases) {
    std::string out;
    EXPECT_EQ(RunCli(c.args, &out), 2) << c.args << "\n" << out;
    EXPECT_EQ(out.rfind("utilsim: error: ", 0), 0u) << c.args << "\n" << out;
    EXPECT_TRUE(Has(out, c.option)) << c.args << "\n" << out;
    EXPECT_TRUE(Has(out, c.range)) << c.args << "\n" << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << c.args << "\n" << out;
  }
}

TEST(CliUsage, SeedsAreAnyPlainDecimalUint64) {
  std::string out;
  ASSERT_EQ(RunCli("run --jobs 30 --seed 18446744073709551615", &out), 0) << out;
  EXPECT_TRUE(Has(out, "seed 18446744073709551615")) << out;
  ASSERT_EQ(RunCli("run --jobs 30 --seed 0", &out), 0) << out;
  EXPECT_TRUE(Has(out, "seed 0\n")) << out;
  // Leading zeros are decimal, not octal.
  ASSERT_EQ(RunCli("run --jobs 30 --seed 010", &out), 0) << out;
  EXPECT_TRUE(Has(out, "seed 10\n")) << out;
}

TEST(CliUsage, HelpListsOnlyTheSubcommandsOptionsInGroups) {
  std::string out;
  ASSERT_EQ(RunCli("inspect --help", &out), 0) << out;
  for (const char* run_only : {"--sharing", "--price", "--mig-reconfig", "--out", "--policy",
                               "--sample-interval", "--max-memory"})
    EXPECT_FALSE(Has(out, run_only)) << run_only << "\n" << out;
  for (const char* own : {"--trace", "--format", "--cluster", "--telemetry", "--util-library",
                          "--nodes", "Input:", "Cluster:"})
    EXPECT_TRUE(Has(out, own)) << own << "\n" << out;
  ASSERT_EQ(RunCli("run --help", &out), 0) << out;
  for (const char* group : {"Input:", "Cluster:", "Policy:", "Model:", "Run:", "Output:",
                            "--progress", "--max-memory", "--horizon FLOAT:>=0"})
    EXPECT_TRUE(Has(out, group)) << group << "\n" << out;
  ASSERT_EQ(RunCli("convert --help", &out), 0) << out;
  EXPECT_FALSE(Has(out, "--model")) << out;
  EXPECT_TRUE(Has(out, "--cluster-out")) << out;
  ASSERT_EQ(RunCli("fgd-experiment --help", &out), 0) << out;
  EXPECT_FALSE(Has(out, "--out")) << out;
  EXPECT_TRUE(Has(out, "--csv")) << out;
  EXPECT_TRUE(Has(out, "--compare-with")) << out;
  EXPECT_TRUE(Has(out, "--progress")) << out;
  ASSERT_EQ(RunCli("validate --help", &out), 0) << out;
  EXPECT_FALSE(Has(out, "--csv")) << out;
  EXPECT_TRUE(Has(out, "--nodes-list")) << out;
}

TEST(CliUsage, DidYouMean) {
  std::string out;
  EXPECT_EQ(RunCli("compar --policies best-fit", &out), 2);
  EXPECT_EQ(out, "utilsim: error: unknown subcommand 'compar'; did you mean 'compare'?\n");
  EXPECT_EQ(RunCli("run --polcy best-fit", &out), 2);
  EXPECT_EQ(out,
            "utilsim: error: unknown option '--polcy' for 'utilsim run'; did you mean "
            "--policy?\n");
  EXPECT_EQ(RunCli("run --policy bestfit", &out), 2);
  EXPECT_TRUE(Has(out, "--policy: unknown policy 'bestfit'; did you mean 'best-fit'?")) << out;
  EXPECT_EQ(RunCli("compare --policies fifo-skp+best-fit,worst-fit", &out), 2);
  EXPECT_TRUE(Has(out, "did you mean 'fifo-skip+best-fit'?")) << out;
  // Nothing close: the list instead.
  EXPECT_EQ(RunCli("frobnicate", &out), 2);
  EXPECT_TRUE(Has(out, "unknown subcommand 'frobnicate' (subcommands: run, compare")) << out;
  EXPECT_EQ(RunCli("", &out), 2);
  EXPECT_TRUE(Has(out, "a subcommand is required")) << out;
}

TEST(Suggest, EditDistanceAndThreshold) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("compar", "compare"), 1u);
  EXPECT_EQ(EditDistance("polcy", "policy"), 1u);
  const std::vector<std::string> cmds = {"run", "compare", "convert", "plan"};
  EXPECT_EQ(Suggest("compar", cmds), "compare");
  EXPECT_EQ(Suggest("rnu", cmds), "");  // two edits: too many for three letters
  EXPECT_EQ(Suggest("ru", cmds), "run");
  EXPECT_EQ(Suggest("compre", cmds), "compare");  // ties go to the first candidate
  EXPECT_EQ(Suggest("compare", cmds), "");        // already right
  EXPECT_EQ(Suggest("frobnicate", cmds), "");
  const PolicyRegistry reg = BuiltinPolicies();
  EXPECT_EQ(SuggestPolicy("bestfit", reg), "best-fit");
  EXPECT_EQ(SuggestPolicy("fifo-skp+wrst-fit", reg), "fifo-skip+worst-fit");
  EXPECT_EQ(SuggestPolicy("fifo-skip+bestfit", reg), "fifo-skip+best-fit");
  EXPECT_EQ(SuggestPolicy("tightest", reg), "");
  EXPECT_EQ(SuggestPolicy("as-recordd", reg), "as-recorded");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::cli
