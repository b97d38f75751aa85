// Sweep files: parsing (values kept as written, every error with its file,
// line and field), the expansion (grid odometer, zip, exclusion, Morris
// crossed innermost) and the canonical text of a run's options.
#include "utilsim/sweep/sweep_spec.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "testutil/testutil.h"

namespace utilsim::sweep {
namespace UTILSIM_UNITY_ID {

namespace fs = std::filesystem;

const char kAllowed[] = "name, base, axes, zip, exclude, metrics, limits, morris";

Result<SweepSpec> Parse(const std::string& text) { return ParseSweepSpec(text, "s.yaml"); }

// The message of the error parsing `text` must give.
std::string ErrorOf(const std::string& text) {
  const Result<SweepSpec> r = Parse(text);
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << text;
  return r.status().message();
}

std::vector<SweepRun> Expand(const std::string& text, MorrisDesign* design = nullptr) {
  const Result<SweepSpec> spec = Parse(text);
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  if (!spec.ok()) return {};
  Result<std::vector<SweepRun>> runs = ExpandSweep(spec.value(), design);
  EXPECT_TRUE(runs.ok()) << runs.status().message();
  return runs.ok() ? std::move(runs).value() : std::vector<SweepRun>{};
}

// "key=value" of each param, in order.
std::vector<std::string> Texts(const std::vector<Param>& params) {
  std::vector<std::string> out;
  for (const Param& p : params) out.push_back(p.key + "=" + p.value);
  return out;
}

std::vector<int> Lines(const std::vector<Param>& params) {
  std::vector<int> out;
  for (const Param& p : params) out.push_back(p.line);
  return out;
}

using Strings = std::vector<std::string>;

TEST(SweepSpecTest, GridIsExpandedFirstAxisSlowest) {
  const std::string text =
      "name: sizes\n"                                         // 1
      "base:\n"                                               // 2
      "  trace: builtin:demo\n"                               // 3
      "  telemetry: [a, b]\n"                                 // 4
      "axes:\n"                                               // 5
      "  policy: [best-fit, \"tiresias:thresholds=3600\"]\n"  // 6
      "  cluster-scale: [0.5, 1, \"1.50\"]\n";                // 7
  const Result<SweepSpec> spec = Parse(text);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec.value().name, "sizes");
  EXPECT_EQ(spec.value().path, "s.yaml");
  EXPECT_EQ(Texts(spec.value().base), (Strings{"trace=builtin:demo", "telemetry=a,b"}));
  EXPECT_EQ(Lines(spec.value().base), (std::vector<int>{3, 4}));
  ASSERT_EQ(spec.value().axes.size(), 2u);
  EXPECT_EQ(spec.value().axes[1].keys, (Strings{"cluster-scale"}));
  EXPECT_EQ(spec.value().axes[1].settings,
            (std::vector<Strings>{{"0.5"}, {"1"}, {"1.50"}}));  // as written
  EXPECT_EQ(spec.value().axes[1].line, 7);
  EXPECT_FALSE(spec.value().morris.has_value());

  const std::vector<SweepRun> runs = Expand(text);
  ASSERT_EQ(runs.size(), 6u);
  const std::vector<Strings> want = {
      {"policy=best-fit", "cluster-scale=0.5"},
      {"policy=best-fit", "cluster-scale=1"},
      {"policy=best-fit", "cluster-scale=1.50"},
      {"policy=tiresias:thresholds=3600", "cluster-scale=0.5"},
      {"policy=tiresias:thresholds=3600", "cluster-scale=1"},
      {"policy=tiresias:thresholds=3600", "cluster-scale=1.50"},
  };
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].index, static_cast<int>(i));
    EXPECT_EQ(Texts(runs[i].swept), want[i]) << i;
    EXPECT_EQ(Lines(runs[i].swept), (std::vector<int>{6, 7}));
    Strings options = {"trace=builtin:demo", "telemetry=a,b"};
    options.insert(options.end(), want[i].begin(), want[i].end());
    EXPECT_EQ(Texts(runs[i].options), options) << i;
    EXPECT_EQ(runs[i].morris_point, -1);
    EXPECT_EQ(runs[i].morris_group, -1);
  }
}

TEST(SweepSpecTest, NameDefaultsToTheFileStem) {
  const Result<SweepSpec> spec = ParseSweepSpec("axes: {seed: [1]}\n", "/tmp/dir/my-sweep.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec.value().name, "my-sweep");
  EXPECT_EQ(spec.value().path, "/tmp/dir/my-sweep.yaml");
}

TEST(SweepSpecTest, BaseAloneIsOneRun) {
  const std::vector<SweepRun> runs = Expand("base:\n  trace: t.csv\n  seed: 3\n");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].index, 0);
  EXPECT_TRUE(runs[0].swept.empty());
  EXPECT_EQ(Texts(runs[0].options), (Strings{"trace=t.csv", "seed=3"}));
  EXPECT_EQ(Lines(runs[0].options), (std::vector<int>{2, 3}));
}

TEST(SweepSpecTest, ZipListsAdvanceTogether) {
  const std::string text =
      "axes:\n"                           // 1
      "  policy: [fifo, srtf]\n"          // 2
      "zip:\n"                            // 3
      "  - trace: [a.csv, b.csv]\n"       // 4
      "    cluster: [a.yaml, b.yaml]\n";  // 5
  const Result<SweepSpec> spec = Parse(text);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  ASSERT_EQ(spec.value().axes.size(), 2u);
  const Axis& zip = spec.value().axes[1];
  EXPECT_EQ(zip.keys, (Strings{"trace", "cluster"}));
  EXPECT_EQ(zip.settings, (std::vector<Strings>{{"a.csv", "a.yaml"}, {"b.csv", "b.yaml"}}));
  EXPECT_EQ(zip.line, 4);
  EXPECT_EQ(zip.lines, (std::vector<int>{4, 5}));

  const std::vector<SweepRun> runs = Expand(text);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(Texts(runs[0].swept), (Strings{"policy=fifo", "trace=a.csv", "cluster=a.yaml"}));
  EXPECT_EQ(Texts(runs[1].swept), (Strings{"policy=fifo", "trace=b.csv", "cluster=b.yaml"}));
  EXPECT_EQ(Texts(runs[2].swept), (Strings{"policy=srtf", "trace=a.csv", "cluster=a.yaml"}));
  EXPECT_EQ(Texts(runs[3].swept), (Strings{"policy=srtf", "trace=b.csv", "cluster=b.yaml"}));
  EXPECT_EQ(Lines(runs[3].swept), (std::vector<int>{2, 4, 5}));
  EXPECT_EQ(runs[3].index, 3);
}

TEST(SweepSpecTest, ExclusionComparesNumbersAsNumbers) {
  const std::string text =
      "axes:\n"
      "  seed: [1, 2]\n"
      "  policy: [fifo, srtf]\n"
      "  scale: [\"1.50\", 3]\n"
      "exclude:\n"
      "  - {seed: 1.0, policy: fifo}\n"  // "1" matches "1.0"
      "  - {policy: FIFO}\n"             // texts differ: matches nothing
      "  - {seed: 2, scale: 1.5}\n"      // "1.50" matches "1.5"
      "  - {scale: 3x}\n";               // not a number: matches nothing
  const Result<SweepSpec> spec = Parse(text);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  ASSERT_EQ(spec.value().exclude.size(), 4u);
  EXPECT_EQ(Texts(spec.value().exclude[0]), (Strings{"seed=1.0", "policy=fifo"}));
  EXPECT_EQ(Lines(spec.value().exclude[0]), (std::vector<int>{6, 6}));

  const std::vector<SweepRun> runs = Expand(text);
  const std::vector<Strings> want = {
      {"seed=1", "policy=srtf", "scale=1.50"},
      {"seed=1", "policy=srtf", "scale=3"},
      {"seed=2", "policy=fifo", "scale=3"},
      {"seed=2", "policy=srtf", "scale=3"},
  };
  ASSERT_EQ(runs.size(), want.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].index, static_cast<int>(i));
    EXPECT_EQ(Texts(runs[i].swept), want[i]) << i;
  }
}

std::string Format12(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

TEST(SweepSpecTest, MorrisIsCrossedInnermostWithTheGrid) {
  const std::string text =
      "axes:\n"                                        // 1
      "  policy: [fifo, srtf]\n"                       // 2
      "morris:\n"                                      // 3
      "  trajectories: 3\n"                            // 4
      "  levels: 4\n"                                  // 5
      "  seed: 7\n"                                    // 6
      "  factors:\n"                                   // 7
      "    arrival-scale: [0.5, 2]\n"                  // 8
      "    seed: {range: [1, 100], integer: true}\n";  // 9
  const Result<SweepSpec> spec = Parse(text);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  ASSERT_TRUE(spec.value().morris.has_value());
  const MorrisSpec& m = *spec.value().morris;
  EXPECT_EQ(m.trajectories, 3);
  EXPECT_EQ(m.levels, 4);
  EXPECT_EQ(m.seed, 7u);
  EXPECT_EQ(m.line, 3);
  EXPECT_EQ(m.factor_lines, (std::vector<int>{8, 9}));
  ASSERT_EQ(m.factors.size(), 2u);
  EXPECT_EQ(m.factors[0].name, "arrival-scale");
  EXPECT_EQ(m.factors[0].lo, 0.5);
  EXPECT_EQ(m.factors[0].hi, 2);
  EXPECT_FALSE(m.factors[0].integer);
  EXPECT_EQ(m.factors[1].name, "seed");
  EXPECT_TRUE(m.factors[1].integer);

  MorrisDesign design;
  const std::vector<SweepRun> runs = Expand(text, &design);
  ASSERT_EQ(design.points.size(), 9u);  // 3 trajectories x (2 + 1)
  EXPECT_EQ(design.trajectories, 3);
  ASSERT_EQ(runs.size(), 18u);
  for (size_t i = 0; i < runs.size(); ++i) {
    const SweepRun& run = runs[i];
    const size_t point = i % 9;
    EXPECT_EQ(run.index, static_cast<int>(i));
    EXPECT_EQ(run.morris_group, static_cast<int>(i / 9));
    EXPECT_EQ(run.morris_point, static_cast<int>(point));
    ASSERT_EQ(run.swept.size(), 3u);
    EXPECT_EQ(Texts(run.swept)[0], i < 9 ? "policy=fifo" : "policy=srtf");
    EXPECT_EQ(run.swept[1].key, "arrival-scale");
    EXPECT_EQ(run.swept[1].value, Format12(design.points[point][0]));
    const double scale = std::stod(run.swept[1].value);
    EXPECT_GE(scale, 0.5);
    EXPECT_LE(scale, 2);
    EXPECT_EQ(run.swept[2].key, "seed");
    EXPECT_EQ(run.swept[2].value.find_first_not_of("0123456789"), std::string::npos)
        << run.swept[2].value;
    const int seed = std::stoi(run.swept[2].value);
    EXPECT_GE(seed, 1);
    EXPECT_LE(seed, 100);
    EXPECT_EQ(seed, design.points[point][1]);
    EXPECT_EQ(Lines(run.swept), (std::vector<int>{2, 8, 9}));
    EXPECT_EQ(run.options.size(), 3u);
    if (i >= 9) {  // the same design in every group
      EXPECT_EQ(Texts(run.swept).back(), Texts(runs[i - 9].swept).back());
    }
  }
  // Deterministic in the seed.
  const std::vector<SweepRun> again = Expand(text);
  ASSERT_EQ(again.size(), runs.size());
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(Texts(again[i].swept), Texts(runs[i].swept));
}

TEST(SweepSpecTest, MorrisAloneIsOneGroupWithDefaults) {
  const std::vector<SweepRun> runs = Expand("morris:\n  factors:\n    cluster-scale: [0.5, 1.5]\n");
  ASSERT_EQ(runs.size(), 20u);  // 10 trajectories x (1 + 1)
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].morris_group, 0);
    EXPECT_EQ(runs[i].morris_point, static_cast<int>(i));
    ASSERT_EQ(runs[i].swept.size(), 1u);
    EXPECT_EQ(runs[i].swept[0].line, 3);
  }
}

TEST(SweepSpecTest, CanonicalOptionsAreSortedLines) {
  EXPECT_EQ(
      CanonicalOptions({{"seed", "3", 4}, {"policy", "fifo", 2}, {"cluster-scale", "0.5", 3}}),
      "cluster-scale=0.5\npolicy=fifo\nseed=3\n");
  EXPECT_EQ(CanonicalOptions({}), "");
  const std::vector<SweepRun> runs =
      Expand("base: {trace: t.csv}\naxes: {seed: [2], policy: [\"tiresias:a=1\"]}\n");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(CanonicalOptions(runs[0].options), "policy=tiresias:a=1\nseed=2\ntrace=t.csv\n");
}

TEST(SweepSpecTest, MetricsAndLimits) {
  struct Case {
    std::string limits;
    double time_s;
    int64_t memory_bytes;
  };
  const Case cases[] = {
      {"{time: 10m, memory: 2GiB}", 600, int64_t{2} << 30}, {"{time: 90}", 90, 0},
      {"{time: 1.5h, memory: 1.5KB}", 5400, 1500},          {"{time: 30s, memory: 4096}", 30, 4096},
      {"{time: 2d, memory: 1TB}", 172800, 1000000000000},   {"{memory: 3MiB}", 0, 3 << 20},
  };
  for (const Case& c : cases) {
    const Result<SweepSpec> spec = Parse("metrics: [mean_wait_s, alloc_frac]\nlimits: " + c.limits);
    ASSERT_TRUE(spec.ok()) << spec.status().message();
    EXPECT_EQ(spec.value().metrics, (Strings{"mean_wait_s", "alloc_frac"}));
    EXPECT_EQ(spec.value().limits.time_s, c.time_s) << c.limits;
    EXPECT_EQ(spec.value().limits.memory_bytes, c.memory_bytes) << c.limits;
  }
}

TEST(SweepSpecTest, TopLevelErrors) {
  EXPECT_EQ(ErrorOf("name: x\nfoo: 1\n"),
            std::string("s.yaml:2: field 'foo': expected one of ") + kAllowed + ", got 'foo'");
  EXPECT_EQ(ErrorOf("axes: {a: [1]}\naxes: {b: [2]}\n"),
            "s.yaml:2: field 'axes': expected each key once (also at line 1), got 'axes'");
  EXPECT_EQ(ErrorOf("- 1\n"),
            std::string("s.yaml:1: expected a mapping of ") + kAllowed + ", got '[1]'");
  EXPECT_EQ(ErrorOf(""), std::string("s.yaml:1: expected a mapping of ") + kAllowed + ", got ''");
  EXPECT_EQ(ErrorOf("name: ''\n"), "s.yaml:1: field 'name': expected a value, got ''");
  EXPECT_EQ(ErrorOf("axes: {a: [1]}\n---\naxes: {b: [2]}\n"),
            "s.yaml:2: expected one YAML document, got a second one ('---')");
  EXPECT_EQ(ErrorOf("# c\n---\naxes: {a: [1]}\n--- \n"),
            "s.yaml:4: expected one YAML document, got a second one ('---')");
}

TEST(SweepSpecTest, YamlSyntaxErrorsNameTheLine) {
  EXPECT_EQ(ErrorOf("axes:\n  seed: [1, 2\nbase: {}\n"),
            "s.yaml:3: end of sequence flow not found");
  EXPECT_EQ(ErrorOf("base:\n  trace: *t\n"), "s.yaml:2: the referenced anchor is not defined");
}

TEST(SweepSpecTest, ValueErrors) {
  EXPECT_EQ(ErrorOf("base:\n  trace: {a: 1}\n"),
            "s.yaml:2: field 'base.trace': expected a value or a list of values, got '{a: 1}'");
  EXPECT_EQ(ErrorOf("base:\n  telemetry: [a, [b]]\n"),
            "s.yaml:2: field 'base.telemetry[1]': expected a value, got '[b]'");
  EXPECT_EQ(ErrorOf("base:\n  trace: \"\"\n"),
            "s.yaml:2: field 'base.trace': expected a value or a list of values, got ''");
  EXPECT_EQ(ErrorOf("base:\n  trace:\n  seed: 1\n"),
            "s.yaml:2: field 'base.trace': expected a value or a list of values, got ''");
  EXPECT_EQ(ErrorOf("base:\n  telemetry: []\n"),
            "s.yaml:2: field 'base.telemetry': expected a value or a list of values, got '[]'");
  EXPECT_EQ(ErrorOf("base:\n  trace: |\n    a\n    b\n"),
            "s.yaml:2: field 'base.trace': expected a value or a list of values without line "
            "breaks, got 'a b '");
  EXPECT_EQ(ErrorOf("axes:\n  policy: fifo\n"),
            "s.yaml:2: field 'axes.policy': expected a list of values, got 'fifo'");
  EXPECT_EQ(ErrorOf("axes:\n  policy: []\n"),
            "s.yaml:2: field 'axes.policy': expected a list of at least one value, got '[]'");
  EXPECT_EQ(ErrorOf("axes:\n  policy: [fifo, '']\n"),
            "s.yaml:2: field 'axes.policy[1]': expected a value, got ''");
  EXPECT_EQ(ErrorOf("axes:\n  seed: [1, 2, 1]\n"),
            "s.yaml:2: field 'axes.seed[2]': expected a value not already in the list, got '1'");
  EXPECT_EQ(ErrorOf("axes: [policy]\n"),
            "s.yaml:1: field 'axes': expected a mapping of options to lists of values, got "
            "'[policy]'");
  const std::string long_value(150, 'x');
  EXPECT_EQ(ErrorOf("axes:\n  policy: " + long_value + "\n"),
            "s.yaml:2: field 'axes.policy': expected a list of values, got '" +
                std::string(100, 'x') + "...'");
}

TEST(SweepSpecTest, KeyErrors) {
  EXPECT_EQ(ErrorOf("axes:\n  --policy: [fifo]\n"),
            "s.yaml:2: field 'axes.--policy': expected an option name of a-z, 0-9 and '-' "
            "(write the option without --), got '--policy'");
  EXPECT_EQ(ErrorOf("base:\n  Trace: x\n"),
            "s.yaml:2: field 'base.Trace': expected an option name of a-z, 0-9 and '-', got "
            "'Trace'");
  EXPECT_EQ(ErrorOf("base:\n  seed: 1\naxes:\n  seed: [1, 2]\n"),
            "s.yaml:4: field 'axes.seed': expected an option set once (also set by 'base.seed' "
            "at line 2), got 'seed'");
  // Reported at the later line whatever the order the sections are read in.
  EXPECT_EQ(ErrorOf("morris:\n"
                    "  factors:\n"
                    "    seed: [1, 9]\n"
                    "axes:\n"
                    "  seed: [1, 2]\n"),
            "s.yaml:5: field 'axes.seed': expected an option set once (also set by "
            "'morris.factors.seed' at line 3), got 'seed'");
  EXPECT_EQ(ErrorOf("axes:\n  seed: [1, 2]\nmorris:\n  factors:\n    seed: [1, 9]\n"),
            "s.yaml:5: field 'morris.factors.seed': expected an option set once (also set by "
            "'axes.seed' at line 2), got 'seed'");
  EXPECT_EQ(ErrorOf("base:\n  seed: 1\n  seed: 2\n"),
            "s.yaml:3: field 'base.seed': expected an option set once (also set by 'base.seed' "
            "at line 2), got 'seed'");
}

TEST(SweepSpecTest, ZipErrors) {
  EXPECT_EQ(ErrorOf("zip:\n"
                    "  - trace: [a, b]\n"
                    "    cluster: [x, y]\n"
                    "  - cluster: [z]\n"),
            "s.yaml:4: field 'zip[1].cluster': expected an option set once (also set by "
            "'zip[0].cluster' at line 3), got 'cluster'");
  EXPECT_EQ(ErrorOf("zip:\n  - trace: [a, b]\n    cluster: [x, y, z]\n"),
            "s.yaml:3: field 'zip[0].cluster': expected 2 values, as many as 'zip[0].trace', "
            "got '[x, y, z]'");
  EXPECT_EQ(ErrorOf("zip:\n  trace: [a]\n"),
            "s.yaml:2: field 'zip': expected a list of mappings of options to lists of values, "
            "got '{trace: [a]}'");
  EXPECT_EQ(ErrorOf("zip:\n  - trace: a\n"),
            "s.yaml:2: field 'zip[0].trace': expected a list of values, got 'a'");
}

TEST(SweepSpecTest, ExcludeErrors) {
  EXPECT_EQ(ErrorOf("base: {seed: 1}\n"
                    "axes: {policy: [a, b]}\n"
                    "exclude:\n"
                    "  - {policy: a}\n"
                    "  - {seed: 1}\n"),
            "s.yaml:5: field 'exclude[1].seed': expected an option swept by axes or zip, got "
            "'seed'");
  EXPECT_EQ(ErrorOf("axes: {policy: [a, b]}\n"
                    "morris: {factors: {seed: [1, 9]}}\n"
                    "exclude:\n"
                    "  - {seed: 1}\n"),
            "s.yaml:4: field 'exclude[0].seed': expected an option swept by axes or zip, got "
            "'seed'");
  EXPECT_EQ(ErrorOf("axes: {policy: [a, b]}\nexclude:\n  - {policy: [a]}\n"),
            "s.yaml:3: field 'exclude[0].policy': expected a value, got '[a]'");
  EXPECT_EQ(ErrorOf("axes: {policy: [a, b]}\nexclude: [a]\n"),
            "s.yaml:2: field 'exclude[0]': expected a mapping of swept options to values, got "
            "'a'");
  EXPECT_EQ(ErrorOf("axes: {policy: [a, b]}\nexclude:\n  - {policy: a, policy: b}\n"),
            "s.yaml:3: field 'exclude[0].policy': expected each key once (also at line 3), got "
            "'policy'");
  EXPECT_EQ(ErrorOf("axes: {policy: [a, b]}\nexclude:\n  - {policy: a}\n  - {policy: b}\n"),
            "s.yaml: every run is excluded");
}

TEST(SweepSpecTest, MetricsAndLimitsErrors) {
  EXPECT_EQ(ErrorOf("metrics: [mean_wait_s, Alloc]\n"),
            "s.yaml:1: field 'metrics[1]': expected a metric name of a-z, 0-9 and '_', got "
            "'Alloc'");
  EXPECT_EQ(ErrorOf("metrics:\n  - a\n  - b\n  - a\n"),
            "s.yaml:4: field 'metrics[2]': expected each metric once (also at line 2), got 'a'");
  const std::string time = "expected a time > 0: seconds, or a number with s, m, h or d";
  EXPECT_EQ(ErrorOf("limits:\n  time: 10x\n"),
            "s.yaml:2: field 'limits.time': " + time + ", got '10x'");
  EXPECT_EQ(ErrorOf("limits:\n  time: 0\n"),
            "s.yaml:2: field 'limits.time': " + time + ", got '0'");
  EXPECT_EQ(ErrorOf("limits:\n  time: -5m\n"),
            "s.yaml:2: field 'limits.time': " + time + ", got '-5m'");
  const std::string memory =
      "expected a size > 0: bytes, or a number with KiB, MiB, GiB, TiB, KB, MB, GB or TB";
  EXPECT_EQ(ErrorOf("limits: {memory: 2G}\n"),
            "s.yaml:1: field 'limits.memory': " + memory + ", got '2G'");
  EXPECT_EQ(ErrorOf("limits: {memory: 1.5}\n"),
            "s.yaml:1: field 'limits.memory': " + memory + ", got '1.5'");
  EXPECT_EQ(ErrorOf("limits: {memory: 0GiB}\n"),
            "s.yaml:1: field 'limits.memory': " + memory + ", got '0GiB'");
  EXPECT_EQ(ErrorOf("limits: {cpu: 2}\n"),
            "s.yaml:1: field 'limits.cpu': expected one of time, memory, got 'cpu'");
}

TEST(SweepSpecTest, MorrisErrors) {
  EXPECT_EQ(ErrorOf("morris: {factors: {a: [0, 1]}, repeats: 3}\n"),
            "s.yaml:1: field 'morris.repeats': expected one of trajectories, levels, seed, "
            "factors, got 'repeats'");
  EXPECT_EQ(ErrorOf("morris:\n  trajectories: ten\n  factors: {a: [0, 1]}\n"),
            "s.yaml:2: field 'morris.trajectories': expected an integer, got 'ten'");
  EXPECT_EQ(ErrorOf("morris:\n  seed: -1\n  factors: {a: [0, 1]}\n"),
            "s.yaml:2: field 'morris.seed': expected an unsigned integer, got '-1'");
  EXPECT_EQ(ErrorOf("morris:\n  trajectories: 4\n"),
            "s.yaml:1: field 'morris.factors': expected a mapping of factors to [lo, hi] or "
            "{range: [lo, hi], integer: true|false}, got ''");
  EXPECT_EQ(ErrorOf("morris:\n  factors:\n    a: [1]\n"),
            "s.yaml:3: field 'morris.factors.a': expected [lo, hi], got '[1]'");
  EXPECT_EQ(ErrorOf("morris:\n  factors:\n    a: [0, x]\n"),
            "s.yaml:3: field 'morris.factors.a[1]': expected a number, got 'x'");
  EXPECT_EQ(ErrorOf("morris:\n  factors:\n    a: [2, 1]\n"),
            "s.yaml:3: field 'morris.factors.a': expected [lo, hi] with lo < hi, got '[2, 1]'");
  EXPECT_EQ(ErrorOf("morris:\n  factors:\n    seed: {range: [1, 9], integer: yes}\n"),
            "s.yaml:3: field 'morris.factors.seed.integer': expected true or false, got 'yes'");
  EXPECT_EQ(ErrorOf("morris:\n  factors:\n    seed: {integer: true}\n"),
            "s.yaml:3: field 'morris.factors.seed.range': expected [lo, hi], got ''");
  EXPECT_EQ(ErrorOf("morris:\n  factors:\n    seed: 3\n"),
            "s.yaml:3: field 'morris.factors.seed': expected [lo, hi] or {range: [lo, hi], "
            "integer: true|false}, got '3'");
  EXPECT_EQ(ErrorOf("morris:\n  factors:\n    --seed: [1, 2]\n"),
            "s.yaml:3: field 'morris.factors.--seed': expected an option name of a-z, 0-9 and "
            "'-' (write the option without --), got '--seed'");
  // What MorrisTrajectories refuses comes back with the `morris:` line.
  const std::string levels =
      ErrorOf("base: {a: 1}\nmorris:\n  levels: 3\n  factors: {b: [0, 1]}\n");
  EXPECT_EQ(levels.rfind("s.yaml:2: ", 0), 0u) << levels;
  EXPECT_NE(levels.find("levels"), std::string::npos) << levels;
  const std::string narrow =
      ErrorOf("morris:\n  factors:\n    seed: {range: [1, 1.5], integer: true}\n");
  EXPECT_EQ(narrow.rfind("s.yaml:1: ", 0), 0u) << narrow;
  EXPECT_NE(narrow.find("seed"), std::string::npos) << narrow;
}

TEST(SweepSpecTest, TooManyRunsAreRefused) {
  std::string text = "axes:\n";
  for (int i = 0; i < 11; ++i) text += "  k" + std::to_string(i) + ": [1, 2, 3, 4]\n";
  EXPECT_EQ(ErrorOf(text), "s.yaml: expected at most 1000000 runs, got 4194304");
}

TEST(SweepSpecTest, ExpandSweepChecksAHandBuiltSpec) {
  SweepSpec spec;
  spec.path = "hand.yaml";
  spec.axes.push_back({.keys = {"policy"}, .settings = {{"a"}, {"b"}}, .line = 2, .lines = {}});
  spec.exclude = {{{"policy", "a", 3}}, {{"policy", "b", 4}}};
  Result<std::vector<SweepRun>> runs = ExpandSweep(spec);
  ASSERT_FALSE(runs.ok());
  EXPECT_EQ(runs.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(runs.status().message(), "hand.yaml: every run is excluded");

  spec.exclude.pop_back();
  MorrisDesign design;
  design.trajectories = 5;
  runs = ExpandSweep(spec, &design);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs.value().size(), 1u);
  EXPECT_EQ(runs.value()[0].index, 0);
  EXPECT_EQ(Texts(runs.value()[0].swept), (Strings{"policy=b"}));
  EXPECT_EQ(runs.value()[0].swept[0].line, 2);  // no per-key lines: the axis's
  EXPECT_EQ(design.trajectories, 0);            // no Morris: an empty design
  EXPECT_TRUE(design.points.empty());

  spec.axes[0].settings.clear();
  runs = ExpandSweep(spec);
  ASSERT_FALSE(runs.ok());
  EXPECT_EQ(runs.status().message(),
            "hand.yaml:2: axis 'policy': expected at least one setting of 1 values per key");
}

class SweepFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("sweep_spec_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(SweepFileTest, ReadsAFile) {
  const fs::path path = dir_ / "policies.yaml";
  std::ofstream(path) << "base: {trace: t.csv}\naxes:\n  policy: [fifo, srtf]\n";
  const Result<SweepSpec> spec = ReadSweepSpec(path.string());
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec.value().name, "policies");
  EXPECT_EQ(spec.value().path, path.string());
  const Result<std::vector<SweepRun>> runs = ExpandSweep(spec.value());
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  EXPECT_EQ(runs.value().size(), 2u);

  std::ofstream(path) << "base: {trace: t.csv}\naxes:\n  policy: fifo\n";
  const Result<SweepSpec> bad = ReadSweepSpec(path.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            path.string() + ":3: field 'axes.policy': expected a list of values, got 'fifo'");
}

TEST_F(SweepFileTest, MissingFileIsAnIoError) {
  const std::string path = (dir_ / "missing.yaml").string();
  const Result<SweepSpec> spec = ReadSweepSpec(path);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kIo);
  EXPECT_EQ(spec.status().message(), path + ": cannot read: No such file or directory");
}

// Inputs the fuzz target sweep-file found: yaml-cpp 0.7.0's LoadAll never
// returned on them. Read with Load, they are refused at once.
TEST(SweepSpecRead, InputsThatHungYamlLoadAllAreRefused) {
  const std::string a = testutil::Fixture("sweep/loadall_hang.yaml");
  const std::string b = testutil::Fixture("sweep/loadall_hang2.yaml");
  auto sa = ReadSweepSpec(a);
  auto sb = ReadSweepSpec(b);
  ASSERT_FALSE(sa.ok());
  ASSERT_FALSE(sb.ok());
  EXPECT_EQ(sa.status().message().rfind(a + ":2: expected a mapping of name, base,", 0), 0u)
      << sa.status().message();
  EXPECT_EQ(sb.status().message().rfind(b + ":1: expected a mapping of name, base,", 0), 0u)
      << sb.status().message();
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::sweep
