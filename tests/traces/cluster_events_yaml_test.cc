// The cluster events file (traces/cluster_events_yaml.h): each kind of entry
// and the primitive events it expands to, the failure classes, and errors
// that name the file, line and key.
#include "utilsim/traces/cluster_events_yaml.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kS = kMicrosPerSecond;

ClusterEventsFile Parse(const std::string& text) {
  auto f = ParseClusterEventsYaml(text, "ev.yaml");
  EXPECT_TRUE(f.ok()) << f.status().message();
  return f.ok() ? std::move(f).value() : ClusterEventsFile{};
}

std::string Error(const std::string& text) {
  auto f = ParseClusterEventsYaml(text, "ev.yaml");
  EXPECT_FALSE(f.ok()) << text;
  return f.ok() ? std::string() : f.status().message();
}

// One expected primitive event.
struct Want {
  int64_t at_us;
  NodeChange change;
  std::vector<std::string> nodes;
  DownCause cause = DownCause::kFailure;
  bool kill = true;
  std::string component = "";
  std::string where = "";
};

void ExpectEvents(const std::vector<ClusterEvent>& got, const std::vector<Want>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("event " + std::to_string(i));
    EXPECT_EQ(got[i].at, Micros(want[i].at_us));
    EXPECT_EQ(got[i].change, want[i].change);
    EXPECT_EQ(got[i].nodes, want[i].nodes);
    EXPECT_EQ(got[i].cause, want[i].cause);
    EXPECT_EQ(got[i].kill, want[i].kill);
    EXPECT_EQ(got[i].component, want[i].component);
    EXPECT_EQ(got[i].where, want[i].where);
  }
}

TEST(ClusterEventsYaml, EachKindExpandsToItsPrimitiveEvents) {
  const ClusterEventsFile f = Parse(
      "events:\n"
      "  - {kind: down, at: 3600, nodes: [a-0, a-1], for: 7200, running: kill, cause: failure,\n"
      "     component: gpu}\n"
      "  - {kind: up, at: 9000, nodes: [a-0]}\n"
      "  - {kind: drain, at: 100, nodes: [b], until: 500}\n"
      "  - {kind: resume, at: 600, nodes: [b]}\n"
      "  - {kind: maintenance, at: 1000, until: 4600, nodes: [\"*\"], running: wait}\n"
      "  - {kind: add, at: 86400, nodes: [c]}\n"
      "  - {kind: remove, at: 172800, nodes: [a-3], running: wait}\n"
      "  - {kind: outage, at: 5000, for: 3600}\n"
      "  - {kind: down, at: 0.5, nodes: [a], cause: maintenance}\n");
  using NC = NodeChange;
  using DC = DownCause;
  ExpectEvents(f.events,
               {
                   {3600 * kS, NC::kDown, {"a-0", "a-1"}, DC::kFailure, true, "gpu", "ev.yaml:2"},
                   {10800 * kS, NC::kUp, {"a-0", "a-1"}, DC::kFailure, true, "", "ev.yaml:2"},
                   {9000 * kS, NC::kUp, {"a-0"}, DC::kFailure, true, "", "ev.yaml:4"},
                   {100 * kS, NC::kDrain, {"b"}, DC::kFailure, true, "", "ev.yaml:5"},
                   {500 * kS, NC::kResume, {"b"}, DC::kFailure, true, "", "ev.yaml:5"},
                   {600 * kS, NC::kResume, {"b"}, DC::kFailure, true, "", "ev.yaml:6"},
                   {1000 * kS, NC::kDown, {"*"}, DC::kMaintenance, false, "", "ev.yaml:7"},
                   {4600 * kS, NC::kUp, {"*"}, DC::kFailure, true, "", "ev.yaml:7"},
                   {kBeforeEverything.us, NC::kDown, {"c"}, DC::kAbsent, true, "", "ev.yaml:8"},
                   {86400 * kS, NC::kUp, {"c"}, DC::kFailure, true, "", "ev.yaml:8"},
                   {172800 * kS, NC::kDown, {"a-3"}, DC::kAbsent, false, "", "ev.yaml:9"},
                   {5000 * kS, NC::kDown, {"*"}, DC::kFailure, true, "", "ev.yaml:10"},
                   {8600 * kS, NC::kUp, {"*"}, DC::kFailure, true, "", "ev.yaml:10"},
                   // No end: down until an explicit up.
                   {kS / 2, NC::kDown, {"a"}, DC::kMaintenance, true, "", "ev.yaml:11"},
               });
  EXPECT_TRUE(f.failures.classes.empty());
  for (const ClusterEvent& e : f.events) EXPECT_TRUE(CheckClusterEvent(e).ok());
}

TEST(ClusterEventsYaml, DurationsTakeSuffixes) {
  auto end_of = [](const std::string& d) {
    const ClusterEventsFile f =
        Parse("events:\n  - {kind: drain, at: 10, nodes: [a], for: " + d + "}\n");
    return f.events.size() == 2 ? (f.events[1].at - f.events[0].at).us : -1;
  };
  EXPECT_EQ(end_of("6h"), 21600 * kS);
  EXPECT_EQ(end_of("90m"), 5400 * kS);
  EXPECT_EQ(end_of("2d"), 172800 * kS);
  EXPECT_EQ(end_of("45s"), 45 * kS);
  EXPECT_EQ(end_of("1.5h"), 5400 * kS);
  EXPECT_EQ(end_of("120"), 120 * kS);
  EXPECT_EQ(end_of("0.25"), kS / 4);
}

TEST(ClusterEventsYaml, FailureClasses) {
  const ClusterEventsFile f = Parse(
      "failures:\n"
      "  nodes: [a, b-1]\n"
      "  classes:\n"
      "    - {component: gpu, per_node_day: 0.0013, repair: {dist: exponential, mean_h: 4}}\n"
      "    - {component: switch, per_rack_day: 0.0004,\n"
      "       repair: {dist: lognormal, mean_h: 2, sigma: 0.8}}\n"
      "    - component: host-maintenance\n"
      "      per_node_day: 0.0003\n"
      "      planned: true\n"
      "      repair: {dist: fixed, mean_h: 1}\n");
  EXPECT_TRUE(f.events.empty());
  const FailureModel& m = f.failures;
  EXPECT_EQ(m.source, "ev.yaml");
  EXPECT_EQ(m.nodes, (std::vector<std::string>{"a", "b-1"}));
  ASSERT_EQ(m.classes.size(), 3u);
  const FailureClass& gpu = m.classes[0];
  EXPECT_EQ(gpu.component, "gpu");
  EXPECT_DOUBLE_EQ(gpu.rate_per_unit_day, 0.0013);
  EXPECT_EQ(gpu.scope, FailureScope::kNode);
  EXPECT_FALSE(gpu.planned);
  EXPECT_EQ(gpu.repair, RepairDist::kExponential);
  EXPECT_DOUBLE_EQ(gpu.repair_mean_h, 4);
  EXPECT_EQ(gpu.where, "ev.yaml:4");
  const FailureClass& sw = m.classes[1];
  EXPECT_EQ(sw.scope, FailureScope::kRack);
  EXPECT_DOUBLE_EQ(sw.rate_per_unit_day, 0.0004);
  EXPECT_EQ(sw.repair, RepairDist::kLogNormal);
  EXPECT_DOUBLE_EQ(sw.repair_mean_h, 2);
  EXPECT_DOUBLE_EQ(sw.repair_sigma, 0.8);
  EXPECT_EQ(sw.where, "ev.yaml:5");
  const FailureClass& maint = m.classes[2];
  EXPECT_TRUE(maint.planned);
  EXPECT_EQ(maint.repair, RepairDist::kFixed);
  EXPECT_DOUBLE_EQ(maint.repair_mean_h, 1);
  EXPECT_EQ(maint.where, "ev.yaml:7");
}

// The model a file gives draws on a cluster (DrawFailures).
TEST(ClusterEventsYaml, FailuresDrawOnACluster) {
  const ClusterEventsFile f = Parse(
      "events: []\n"
      "failures:\n"
      "  classes:\n"
      "    - {component: gpu, per_node_day: 0.5, repair: {dist: fixed, mean_h: 2}}\n");
  EXPECT_TRUE(f.events.empty());
  ClusterSpec spec;
  spec.name = "t";
  spec.models = {{"G", 16LL << 30, 1.0}};
  spec.groups = {{"a", 4, "G", 8, 64000, 256LL << 30, 0}};
  auto v = DrawFailures(f.failures, spec, Micros(0), Micros(10 * 86400 * kS), 1);
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_GT(v.value().size(), 0u);
  EXPECT_EQ(v.value()[0].where, "ev.yaml:4");
  EXPECT_EQ(v.value()[0].component, "gpu");
}

TEST(ClusterEventsYaml, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(Error("events:\n  - {kind: up, at: 5, nodes: [a]}\n  - {kind: up, at: 5, nodes: [a], "
                  "for: 3}\n"),
            "ev.yaml:3: unknown key 'events[1].for' (known: kind, at, nodes)");
  EXPECT_EQ(Error("events:\n  - {kind: down, at: 5, nodes: [a], running: stop}\n"),
            "ev.yaml:2: key 'events[0].running': expected kill or wait, got 'stop'");
  EXPECT_EQ(Error("events:\n  - {kind: drain, at: 500, nodes: [a], until: 500}\n"),
            "ev.yaml:2: key 'events[0].until': expected a time > at (500), got '500'");
  EXPECT_EQ(Error("events:\n  - {kind: maintenance, at: 5, nodes: [a]}\n"),
            "ev.yaml:2: key 'events[0]': a maintenance needs 'for' or 'until'");
  EXPECT_EQ(Error("events:\n  - {kind: down, at: 5, nodes: [a], for: 1, until: 9}\n"),
            "ev.yaml:2: key 'events[0]': give 'for' or 'until', not both");
  EXPECT_EQ(Error("events:\n  - {kind: down, at: -5, nodes: [a]}\n"),
            "ev.yaml:2: key 'events[0].at': expected a time in seconds >= 0, got '-5'");
  EXPECT_EQ(Error("events:\n  - {kind: down, at: noon, nodes: [a]}\n"),
            "ev.yaml:2: key 'events[0].at': expected a time in seconds >= 0, got 'noon'");
  EXPECT_EQ(Error("events:\n  - {kind: down, at: 5, nodes: [a], for: 6w}\n"),
            "ev.yaml:2: key 'events[0].for': expected a duration > 0 (seconds, or a number with "
            "s, m, h or d), got '6w'");
  EXPECT_EQ(Error("events:\n  - {kind: down, at: 5, nodes: [a], for: 0h}\n"),
            "ev.yaml:2: key 'events[0].for': expected a duration > 0 (seconds, or a number with "
            "s, m, h or d), got '0h'");
  EXPECT_EQ(Error("events:\n  - {kind: down, at: 5, nodes: [a], cause: gone}\n"),
            "ev.yaml:2: key 'events[0].cause': expected failure, maintenance or absent, got "
            "'gone'");
  EXPECT_EQ(Error("events:\n  - {kind: crash, at: 5}\n"),
            "ev.yaml:2: key 'events[0].kind': expected down, up, drain, resume, maintenance, add, "
            "remove, outage, slow or slow-end, got 'crash'");
  EXPECT_EQ(Error("events:\n  - {at: 5}\n"), "ev.yaml:2: key 'events[0]': missing 'kind'");
  EXPECT_EQ(Error("events:\n  - {kind: up, nodes: [a]}\n"),
            "ev.yaml:2: key 'events[0]': missing 'at'");
  EXPECT_EQ(Error("events:\n  - {kind: up, at: 1}\n"),
            "ev.yaml:2: key 'events[0]': missing 'nodes'");
  EXPECT_EQ(Error("events:\n  - {kind: up, at: 1, nodes: a-0}\n"),
            "ev.yaml:2: key 'events[0].nodes': expected a non-empty list of node or group names, "
            "got 'a-0'");
  EXPECT_EQ(Error("events:\n  - {kind: up, at: 1, nodes: []}\n"),
            "ev.yaml:2: key 'events[0].nodes': expected a non-empty list of node or group names, "
            "got '[]'");
  EXPECT_EQ(Error("events:\n  - {kind: up, at: 1, nodes: [a], at: 2}\n"),
            "ev.yaml:2: duplicate key 'events[0].at'");
  EXPECT_EQ(Error("events: {kind: up}\n"),
            "ev.yaml:1: key 'events': expected a list of events, got '<a mapping>'");
}

TEST(ClusterEventsYaml, FailureErrorsNameFileLineAndKey) {
  const std::string head = "failures:\n  classes:\n    - ";
  EXPECT_EQ(Error(head + "{component: gpu, per_node_day: 1, per_rack_day: 1, repair: {dist: fixed, "
                         "mean_h: 1}}\n"),
            "ev.yaml:3: key 'failures.classes[0]': give exactly one of 'per_node_day' and "
            "'per_rack_day'");
  EXPECT_EQ(Error(head + "{component: gpu, repair: {dist: fixed, mean_h: 1}}\n"),
            "ev.yaml:3: key 'failures.classes[0]': give exactly one of 'per_node_day' and "
            "'per_rack_day'");
  EXPECT_EQ(Error(head + "{component: gpu, per_node_day: 1}\n"),
            "ev.yaml:3: key 'failures.classes[0]': missing 'repair'");
  EXPECT_EQ(Error(head + "{per_node_day: 1, repair: {dist: fixed, mean_h: 1}}\n"),
            "ev.yaml:3: key 'failures.classes[0]': missing 'component'");
  EXPECT_EQ(Error(head + "{component: gpu, per_node_day: 0, repair: {dist: fixed, mean_h: 1}}\n"),
            "ev.yaml:3: key 'failures.classes[0].per_node_day': expected failures per day > 0, "
            "got '0'");
  EXPECT_EQ(Error(head + "{component: gpu, per_node_day: 1, repair: {dist: weibull, mean_h: 1}}\n"),
            "ev.yaml:3: key 'failures.classes[0].repair.dist': expected fixed, exponential or "
            "lognormal, got 'weibull'");
  EXPECT_EQ(Error(head + "{component: gpu, per_node_day: 1, repair: {dist: fixed, mean_h: 1, "
                         "sigma: 2}}\n"),
            "ev.yaml:3: key 'failures.classes[0].repair.sigma': only a lognormal repair has a "
            "sigma");
  EXPECT_EQ(
      Error(head + "{component: gpu, per_node_day: 1, repair: {dist: lognormal, mean_h: 1}}\n"),
      "ev.yaml:3: key 'failures.classes[0].repair': missing 'sigma'");
  EXPECT_EQ(Error(head + "{component: gpu, per_node_day: 1, repair: {dist: fixed, mean_h: -1}}\n"),
            "ev.yaml:3: key 'failures.classes[0].repair.mean_h': expected hours > 0, got '-1'");
  EXPECT_EQ(Error(head + "{component: gpu, per_node_day: 1, planned: maybe, repair: {dist: fixed, "
                         "mean_h: 1}}\n"),
            "ev.yaml:3: key 'failures.classes[0].planned': expected true or false, got 'maybe'");
  EXPECT_EQ(Error(head + "{component: gpu, per_day: 1}\n"),
            "ev.yaml:3: unknown key 'failures.classes[0].per_day' (known: component, "
            "per_node_day, per_rack_day, planned, slow, repair)");
  EXPECT_EQ(Error("failures:\n  nodes: [a]\n"), "ev.yaml:2: key 'failures': missing 'classes'");
  EXPECT_EQ(Error("failures:\n  classes: []\n"),
            "ev.yaml:2: key 'failures.classes': expected a non-empty list of failure classes, got "
            "'[]'");
}

TEST(ClusterEventsYaml, FileNeedsEventsOrFailures) {
  EXPECT_EQ(Error(""), "ev.yaml:1: expected 'events' or 'failures'");
  EXPECT_EQ(Error("# nothing\n"), "ev.yaml:1: expected 'events' or 'failures'");
  EXPECT_EQ(Error("- 1\n"), "ev.yaml:1: expected 'events' or 'failures'");
  EXPECT_EQ(Error("event: []\n"),
            "ev.yaml:1: unknown key 'event' (known: events, failures, checkpoints)");
  EXPECT_EQ(Error("events: [\n").substr(0, 20), "ev.yaml:2: YAML erro");
  EXPECT_TRUE(Parse("events: []\n").events.empty());
}

// Written events read back to the same events (validate --infer
// --events-out): times exactly, causes, running, components; the initial
// state at 0.
TEST(ClusterEventsYaml, WrittenEventsReadBackTheSame) {
  std::vector<ClusterEvent> ev(5);
  ev[0].at = kBeforeEverything;
  ev[0].change = NodeChange::kDown;
  ev[0].cause = DownCause::kAbsent;
  ev[0].nodes = {"g-3", "g-4"};
  ev[1].at = Micros(86400000001);
  ev[1].change = NodeChange::kUp;
  ev[1].nodes = {"g-3"};
  ev[2].at = Seconds(90000);
  ev[2].change = NodeChange::kDown;
  ev[2].cause = DownCause::kMaintenance;
  ev[2].kill = false;
  ev[2].nodes = {"g-4"};
  ev[3].at = Seconds(100000);
  ev[3].change = NodeChange::kDrain;
  ev[3].nodes = {"g"};
  ev[4].at = Micros(100000500000);
  ev[4].change = NodeChange::kResume;
  ev[4].nodes = {"g"};
  ev.push_back(ev[2]);
  ev.back().cause = DownCause::kFailure;
  ev.back().kill = true;
  ev.back().component = "gpu";
  ClusterEvent slow;
  slow.at = Seconds(5);
  slow.change = NodeChange::kSlow;
  slow.speed = 0.3;
  slow.nodes = {"g-0"};
  ev.push_back(slow);
  slow.change = NodeChange::kSlowEnd;
  ev.push_back(slow);
  const std::string text = ClusterEventsYaml(ev, "inferred\nrun with --nodes 5");
  EXPECT_EQ(text.substr(0, 45), "# inferred\n# run with --nodes 5\nevents:\n  - {");
  const ClusterEventsFile f = Parse(text);
  ASSERT_EQ(f.events.size(), ev.size());
  for (size_t i = 0; i < ev.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(f.events[i].at, i == 0 ? Micros(0) : ev[i].at);
    EXPECT_EQ(f.events[i].change, ev[i].change);
    EXPECT_EQ(f.events[i].cause, ev[i].cause);
    EXPECT_EQ(f.events[i].kill, ev[i].kill);
    EXPECT_EQ(f.events[i].nodes, ev[i].nodes);
    EXPECT_EQ(f.events[i].component, ev[i].component);
    EXPECT_EQ(f.events[i].speed, ev[i].speed);
  }
}

TEST(ClusterEventsYaml, CheckpointsByJobKind) {
  const ClusterEventsFile f = Parse(
      "events: []\ncheckpoints:\n  train: {every: 15m, restart: 5m}\n  infer: {every: none, "
      "restart: 30s}\n");
  EXPECT_FALSE(f.checkpoints[0].has_value());
  ASSERT_TRUE(f.checkpoints[1].has_value());
  EXPECT_EQ(f.checkpoints[1]->interval, Seconds(900));
  EXPECT_EQ(f.checkpoints[1]->restart, Seconds(300));
  ASSERT_TRUE(f.checkpoints[2].has_value());
  EXPECT_EQ(f.checkpoints[2]->interval, kNever);
  EXPECT_EQ(f.checkpoints[2]->restart, Seconds(30));
  EXPECT_EQ(Error("events: []\ncheckpoints:\n  training: {every: 1h}\n"),
            "ev.yaml:3: unknown key 'checkpoints.training' (known: unknown, train, infer)");
  EXPECT_EQ(Error("events: []\ncheckpoints:\n  train: {every: -1}\n"),
            "ev.yaml:3: key 'checkpoints.train.every': expected a duration > 0 (seconds, or a "
            "number with s, m, h or d), got '-1'");
}

TEST(ClusterEventsYaml, StragglersSlowThenEnd) {
  const ClusterEventsFile f = Parse(
      "events:\n  - {kind: slow, at: 10, nodes: [a-1], speed: 0.25, for: 1m}\n"
      "failures:\n  classes:\n    - {component: thermal, per_node_day: 0.5, slow: 0.7, repair: "
      "{dist: fixed, mean_h: 2}}\n");
  ASSERT_EQ(f.events.size(), 2u);
  EXPECT_EQ(f.events[0].change, NodeChange::kSlow);
  EXPECT_EQ(f.events[0].speed, 0.25);
  EXPECT_EQ(f.events[1].change, NodeChange::kSlowEnd);
  EXPECT_EQ(f.events[1].at, Seconds(70));
  EXPECT_EQ(f.events[1].speed, 0.25);
  ASSERT_EQ(f.failures.classes.size(), 1u);
  EXPECT_EQ(f.failures.classes[0].slow, 0.7);
  EXPECT_EQ(Error("events:\n  - {kind: slow, at: 10, nodes: [a], speed: 1}\n"),
            "ev.yaml:2: key 'events[0].speed': expected a pace > 0 and < 1, got '1'");
  EXPECT_EQ(Error("events:\n  - {kind: slow, at: 10, nodes: [a]}\n"),
            "ev.yaml:2: key 'events[0]': missing 'speed'");
}

TEST(ClusterEventsYaml, ReadNamesAMissingFile) {
  auto f = ReadClusterEventsYaml("/nonexistent/ev.yaml");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message().rfind("cannot read /nonexistent/ev.yaml: ", 0), 0u)
      << f.status().message();
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
