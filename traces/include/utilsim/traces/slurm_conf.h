// Reader of a Slurm cluster's configuration: slurm.conf and gres.conf
// (`--cluster slurm.conf`). docs/formats/slurm-conf.md has the details.
//
// Syntax (slurm.conf(5)): Key=Value pairs separated by blanks, keys in any
// letter case, '#' starts a comment (outside double quotes), '\' at the end
// of a line continues it, values may be double-quoted, "Include FILE"
// (relative to slurm.conf's folder) reads another file in place.
// Kept:
//  - ClusterName, GresTypes, MaxArraySize (default 1001), SelectType,
//    SelectTypeParameters, SchedulerType; every other global key is ignored.
//  - NodeName=<hostlist> lines: CPUs, Boards, Sockets, SocketsPerBoard,
//    CoresPerSocket, ThreadsPerCore, RealMemory (MiB), Gres,
//    Feature/Features, Weight, State. NodeName=DEFAULT sets defaults for the
//    lines after it. CPUs defaults to sockets x cores x threads, sockets to
//    Boards x SocketsPerBoard when SocketsPerBoard is given, else Sockets
//    (default 1). A missing RealMemory is 1 MiB (Slurm's default), counted.
//  - NodeSet=<name> with Nodes= and/or Feature=.
//  - PartitionName=<name> (DEFAULT too) with Nodes (host list, NodeSet
//    names, ALL), Default, MaxTime, DefaultTime, State, PriorityTier.
//  - gres.conf: lines of NodeName (optional: all nodes), Name, Type, File
//    (a host-list-like path: its expansion length is the count), Count,
//    AutoDetect (noted). Its types fill in an untyped Gres=gpu:N of
//    slurm.conf; a count that differs from slurm.conf's is a counted warning
//    (slurm.conf's count is used: it is what slurmctld schedules).
// Non-GPU GRES (shard, mps, nic, ...) are ignored with a note.
//
// Errors "<file>:<line>: <what>" (field errors as
// "<file>:<line>: field '<key>': expected <what>, got '<text>'"): unreadable
// file, Include loop, bad numbers, durations or host lists, a node defined
// twice, a partition naming unknown nodes, a node with GPUs of two types
// ("utilsim models one GPU model per node") or more than 64 GPUs.
// Thread-safety: thread-safe for distinct calls.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces {

// Warning kinds of ReadSlurmConf.
inline constexpr char kSlurmConfWarnNoMemory[] = "node without RealMemory (Slurm's 1 MiB used)";
inline constexpr char kSlurmConfWarnGresCount[] =
    "gres.conf GPU count differs from slurm.conf's (slurm.conf's used)";
inline constexpr char kSlurmConfWarnGresType[] =
    "gres.conf GPU type differs from slurm.conf's (slurm.conf's used)";
inline constexpr char kSlurmConfWarnGresNode[] =
    "gres.conf line for a node that has no such GRES in slurm.conf (ignored)";

struct SlurmConf {
  std::string cluster_name;
  std::string gres_types, select_type, select_type_parameters, scheduler_type;
  int32_t max_array_size = 1001;

  struct Node {
    std::string name;
    int64_t cpus = 1;
    int32_t boards = 1;
    int32_t sockets = 1;
    int32_t cores_per_socket = 1;
    int32_t threads_per_core = 1;
    int64_t real_memory_mib = 1;
    int32_t gpus = 0;
    std::string gpu_type;  // "" = untyped (model "gpu") or no GPUs
    std::vector<std::string> features;
    int64_t weight = 1;
    std::string state;                    // as written ("" = not given)
    std::vector<std::string> partitions;  // names, in slurm.conf order
    std::string where;                    // "<file>:<line>" of its NodeName line
  };
  std::vector<Node> nodes;  // in definition order

  struct Partition {
    std::string name;
    std::vector<std::string> nodes;  // node names, expanded, in slurm.conf order
    bool is_default = false;
    std::optional<Micros> max_time;      // nullopt: INFINITE / UNLIMITED / not given
    std::optional<Micros> default_time;  // nullopt: not given (MaxTime applies)
    std::string state = "UP";
    int32_t priority_tier = 1;
  };
  std::vector<Partition> partitions;

  // Named ClusterName ("slurm" when absent); one GpuModelSpec per GPU type
  // in first-seen order (name = the type as written, memory 0 = unknown,
  // speed 1; untyped GPUs: model "gpu"); one NodeGroup per node, count 1,
  // named as the node (so simulated node names are Slurm's), cpu_milli =
  // CPUs x 1000, mem = RealMemory MiB; CPU-only nodes: gpus 0, model "".
  ClusterSpec cluster;
  Warnings warnings;
  std::vector<std::string> notes;

  // Index into nodes, or -1.
  int FindNode(const std::string& name) const;
  // Index into partitions, or -1.
  int FindPartition(const std::string& name) const;
};

// Reads `slurm_conf` and its gres.conf: `gres_conf`, or when "" the file
// gres.conf beside slurm.conf if it exists (none otherwise).
Result<SlurmConf> ReadSlurmConf(const std::string& slurm_conf, const std::string& gres_conf = "");

// True when the file is called slurm.conf, or when its first line that is
// neither blank nor a comment is Key=Value with a key only slurm.conf uses
// (ClusterName, ControlMachine, SlurmctldHost, NodeName, PartitionName,
// SlurmUser, ...). False when unreadable.
bool LooksLikeSlurmConf(const std::string& path);

}  // namespace utilsim::traces
