// The cluster events file (engine/cluster_events.h, docs/cluster-events.md):
// YAML listing what happens to the cluster's nodes during a run, and the
// rates failures are drawn from.
//
//   events:
//     - {kind: down, at: 3600, nodes: [a-0, a-1], for: 7200, running: kill,
//        cause: failure, component: gpu}
//     - {kind: up, at: 9000, nodes: [a-0]}
//     - {kind: drain, at: 100, nodes: [b], until: 500}
//     - {kind: resume, at: 600, nodes: [b]}
//     - {kind: maintenance, at: 1000, until: 4600, nodes: ["*"], running: wait}
//     - {kind: add, at: 86400, nodes: [c]}
//     - {kind: remove, at: 172800, nodes: [a-3], running: wait}
//     - {kind: outage, at: 5000, for: 3600}
//   failures:
//     nodes: [a]           # only these nodes or groups fail (default: every GPU node)
//     classes:
//       - {component: gpu, per_node_day: 0.0013, repair: {dist: exponential, mean_h: 4}}
//       - {component: switch, per_rack_day: 0.0004,
//          repair: {dist: lognormal, mean_h: 2, sigma: 0.8}}
//       - {component: host-maintenance, per_node_day: 0.0003, planned: true,
//          repair: {dist: fixed, mean_h: 1}}
//
// Times (`at`, `until`) are seconds >= 0 on the workload's clock, the clock
// of the jobs' submit times, as numbers. Durations (`for`) are seconds > 0, or
// a number with a suffix s, m, h or d ("6h" = 21600 s). `nodes` is a list of
// node names ("<group>-<k>", or a count-1 group's name), group names (every
// node of the group) or "*" (every node); the engine resolves them.
//
// Each entry expands, in place and in file order, into primitive events
// (ClusterEvent), each with where = "<file>:<line>" of its entry:
//   down         kDown at `at` (cause failure unless `cause: maintenance` or
//                `cause: absent`,
//                `component` if given; `running: kill` (the default) kills the
//                jobs on the nodes, `wait` lets them finish first), then a kUp
//                at `until` or at + `for` when one is given; without either
//                the nodes stay down until an explicit `up`.
//   up           kUp.
//   drain        kDrain (nothing new starts; running jobs go on), then a
//                kResume at `until` / at + `for` when given.
//   resume       kResume.
//   maintenance  kDown of cause maintenance (`running` as for down) and a kUp
//                at its end: `for` or `until` is required.
//   add          the nodes are absent before `at`: a kDown of cause absent at
//                kBeforeEverything, then a kUp at `at`.
//   remove       kDown of cause absent at `at` (`running` as for down); the
//                nodes never come back.
//   slow         a straggler: kSlow at `at` with `speed` (a pace > 0 and < 1),
//                then a kSlowEnd at the end when `for` or `until` is given.
//   slow-end     kSlowEnd of `speed` (ends one slow of that pace).
//   outage       kDown of cause failure, killing, of `nodes` (default ["*"],
//                every node), `component` if given; then a kUp at the end when
//                `for` or `until` is given.
// At most one of `for` and `until`; `until` > `at`. Keys other than the ones
// named for a kind are errors.
//
// `failures` (FailureModel; DrawFailures draws the events at run time): each
// class has a non-empty `component`, exactly one of `per_node_day` and
// `per_rack_day` (failures per node, or per rack of the topology, per day,
// > 0; sets the scope), `planned` (optional, default false: planned downs have
// cause maintenance), `slow` (optional: a pace > 0 and < 1 makes the class a
// straggler, slowing its unit for the repair time instead of taking it
// down), and `repair`: {dist: fixed | exponential | lognormal,
// mean_h: hours > 0, sigma: > 0 (lognormal only, required there)}. `nodes`
// is optional; `classes` is required, a non-empty list.
//
// `checkpoints` (optional) sets how each kind of job (the canonical CSV's
// job_kind: train, infer; unknown for the rest) survives a kill:
//   checkpoints:
//     train: {every: 15m, restart: 5m}   # keeps the last 15-minute mark, less 5 min
//     infer: {every: none, restart: 30s} # restarts from the start, 30 s to reload
// `every` is a duration or none (no checkpoint: from the start); `restart` a
// duration or 0; either may be left out (none, 0).
//
// A file needs `events` or `failures` (or both). Errors name the file, line
// and key ("ev.yaml:3: key 'events[1].running': expected kill or wait, got
// 'stop'"); unknown keys are errors; every primitive event passes
// CheckClusterEvent.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_events.h"
#include "utilsim/engine/status.h"

namespace utilsim {

struct ClusterEventsFile {
  std::vector<ClusterEvent>
      events;             // primitive events, in file order (each entry expands in place)
  FailureModel failures;  // no classes when the file has no `failures`
  // `checkpoints`, by JobKind (unknown, train, infer): unset = the run's
  // --checkpoint-interval and --restart-cost (SimConfig::checkpoints_by_kind).
  std::array<std::optional<Checkpointing>, 3> checkpoints{};
};

Result<ClusterEventsFile> ParseClusterEventsYaml(const std::string& text,
                                                 const std::string& source_name);
// Errors reading the file name it ("cannot read <path>: ...").
Result<ClusterEventsFile> ReadClusterEventsYaml(const std::string& path);

// Primitive events as an events file that parses back to the same events
// (`validate --infer --events-out`): one `down`, `up`, `drain` or `resume`
// entry each, in order, after the `# ` lines of `header`; an event at or
// before time 0 (kBeforeEverything) is written at 0, where it sets the
// initial state of any workload on a clock from 0.
std::string ClusterEventsYaml(const std::vector<ClusterEvent>& events, const std::string& header);

}  // namespace utilsim
