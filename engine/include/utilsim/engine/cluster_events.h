// Clusters that change over a run (docs/cluster-events.md): nodes that are
// absent before they are added or after they are removed, nodes down for a
// failure or a maintenance window, drained nodes; and failures drawn from
// per-component rates (FailureModel), turned into the same events.
//
// The engine applies the events in the total order (phase kClusterChange,
// before the arrivals and finishes at the same instant; events at one
// instant in list order). A node is unavailable (hosts nothing, and its GPUs
// count in Summary::down_*_gpu_h, not in the capacity the percentages refer
// to) while it is down; a drained node hosts nothing new but keeps its jobs
// and counts as capacity. Killed jobs go back to the queue and restart from
// their last checkpoint (SimConfig::checkpoint_interval). Downs count: each
// kUp ends one kDown, so a node two downs overlap on (two failures, a
// failure inside a maintenance window) is back after both have ended; a kUp
// of a node that is not down does nothing. The latest down's cause is the
// one its GPU-hours count under.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"

namespace utilsim {

// What one event does to its nodes.
enum class NodeChange : uint8_t {
  kDown,     // the node leaves (cause below); running jobs killed, or (kill
             // false) the node drains and leaves when its last task ends
  kUp,       // the node is back (ends a down, or cancels a pending one)
  kDrain,    // hosts nothing new; running jobs go on
  kResume,   // ends a drain
  kSlow,     // a straggler: the node runs at `speed` (0 < speed < 1) of its pace
  kSlowEnd,  // ends one kSlow of the same `speed`
};

// Why a node is down, for the GPU-hours of capacity missing by cause.
enum class DownCause : uint8_t {
  kAbsent = 0,   // not part of the cluster (before it was added, after it was removed)
  kMaintenance,  // planned
  kFailure,      // unplanned (a failure, an outage)
  kCount,
};
inline constexpr size_t kDownCauses = static_cast<size_t>(DownCause::kCount);
// "absent", "maintenance", "failure".
const char* DownCauseName(DownCause c);

// An event at this time applies before the run's first event (how a node
// added during the run is absent from the start: a kDown of cause kAbsent at
// kBeforeEverything). Far from INT64_MIN, so differences cannot overflow.
inline constexpr Micros kBeforeEverything{INT64_MIN / 2};

struct ClusterEvent {
  Micros at{0};  // >= 0 (seconds on the workload's clock), or kBeforeEverything
  NodeChange change = NodeChange::kDown;
  // Node names ("<group>-<k>", or a count-1 group's name) or group names
  // (every node of the group); resolved when the run starts, an unknown name
  // is an error naming `where`.
  std::vector<std::string> nodes;
  DownCause cause = DownCause::kFailure;  // kDown only
  bool kill = true;                       // kDown only
  // kDown of a failure: the component class that failed ("gpu", "hbm",
  // "switch", ...), for the interruptions by component; "" otherwise.
  std::string component;
  // kSlow / kSlowEnd only: the node's pace while slow, 0 < speed < 1. A node
  // runs at the least speed of its kSlow events in effect; a running job at
  // the pace of its slowest node (a gang waits for its slowest member), the
  // GPUs it waits on idle for communication (IdleCause::kCommunication).
  double speed = 1;
  std::string where;  // "<file>:<line>" for errors, or ""
};

// How a class of jobs (JobKind) survives a kill by a cluster event: the
// work it keeps is the last multiple of `interval` (recorded time; kNever =
// none kept) less `restart`, the work its restart costs.
struct Checkpointing {
  Micros interval = kNever;
  Micros restart{0};
};

// Failures drawn from rates (docs/cluster-events.md, "Failures"). Each class
// fails independently as a Poisson process per unit of its scope: per node
// (a GPU, an HBM stack, a NIC, the host) or per rack (its switch, its power:
// one failure takes every node of the rack down together).
enum class FailureScope : uint8_t { kNode, kRack };

enum class RepairDist : uint8_t {
  kFixed,        // exactly repair_mean_h
  kExponential,  // mean repair_mean_h
  kLogNormal,    // mean repair_mean_h, log-space sigma repair_sigma
};

struct FailureClass {
  std::string component;         // "gpu", "hbm", "switch", ... (non-empty)
  double rate_per_unit_day = 0;  // expected failures per node (or rack) per day, > 0
  FailureScope scope = FailureScope::kNode;
  bool planned = false;  // true: DownCause::kMaintenance, else kFailure
  RepairDist repair = RepairDist::kExponential;
  double repair_mean_h = 1;  // > 0
  double repair_sigma = 1;   // kLogNormal only, > 0
  // A straggler class: 0 < slow < 1 makes each "failure" slow its unit to
  // this pace (kSlow) for the drawn repair time, instead of taking it down;
  // 1 (the default) = a failure.
  double slow = 1;
  std::string where;  // "<file>:<line>" for errors, or ""
};

struct FailureModel {
  std::vector<FailureClass> classes;
  // Only these node or group names fail (empty = every node with GPUs).
  std::vector<std::string> nodes;
  std::string source;  // the file it came from, for notes
};

// Draws the failures of `model` on `cluster` over [from, to): for each class
// and each unit of its scope (node, or rack of the cluster's topology: its
// explicit or generated racks, else one rack of all nodes), failure times
// from a Poisson process, each a kDown (kill, cause failure or maintenance,
// component = the class) of the unit's nodes and a kUp after a drawn repair
// time. A unit that fails while under repair is not failed again before it is
// back (the draw goes on from the repair's end). Deterministic: the same
// (model, cluster, from, to, seed) gives the same events, in time order
// (ties: class order, then unit order, downs before ups). Errors: a class
// with a bad figure, an unknown node name.
//
// Details: the nodes that fail are model.nodes (node or group names, any
// node, with GPUs or not), else every node with GPUs; a rack unit lists those
// of its nodes, in node order, and a rack with none of them is no unit. Each
// class draws from its own stream Rng(seed, 0, "failures/" + component),
// units in order (nodes by index, racks by topology order), each unit's gaps
// exponential with mean 1 / rate days starting at `from`. Repair times are
// rounded to the microsecond and at least one second; a kUp may lie after
// `to`. A unit's next failure is at least 1 us after its kUp. Events' `where`
// is the class's. More errors: not 0 <= from <= to <= kMaxSeconds, a bad
// topology, more than 10 million failures (expected from the rates, or
// drawn).
Result<std::vector<ClusterEvent>> DrawFailures(const FailureModel& model,
                                               const ClusterSpec& cluster, Micros from, Micros to,
                                               uint64_t seed);

// Checks one event's figures (not its names): a kill flag or cause only on
// kDown (other changes keep the defaults kill = true, cause kFailure, and an
// empty component), a known change and cause, at >= 0 (and within
// kMaxSeconds) or kBeforeEverything, a non-empty node list of non-empty
// names. Error text starts with e.where ("f.yaml:3: ...") when it has one.
Status CheckClusterEvent(const ClusterEvent& e);

}  // namespace utilsim
