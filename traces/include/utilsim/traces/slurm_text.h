// Text that Slurm prints, parsed: host lists, TRES and GRES strings,
// durations and time stamps. Shared by the sacct reader (sacct.h), the
// slurm.conf reader (slurm_conf.h) and the live modes, which read squeue and
// sinfo output.
//
// Errors: every function below returns an error whose message reads
//   expected <what>, got '<text>'
// (no file or field), so that a caller prefixes where the text came from:
//   <file>:<line>: field '<name>': expected <what>, got '<text>'
// Never throws; any input is safe. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"

namespace utilsim::traces {

// Most names one host list may expand to.
inline constexpr int64_t kMaxHostlistNames = 1000000;

// Expands a Slurm host list: "a[1-2],b3" -> a1, a2, b3.
//  - Names are separated by commas and blanks outside brackets (Slurm's
//    hostlist also splits on blanks, so "None assigned" is two names: callers
//    that may see it check for it first). Empty entries are skipped; "" -> {}.
//  - A bracket group holds comma-separated numbers and ranges lo-hi
//    (lo <= hi); every number is printed with at least as many digits as lo
//    has, so zero padding is kept: node[01-04,07] -> node01..node04, node07;
//    node[8-10] -> node8, node9, node10.
//  - Several groups in one name give their cartesian product, the first
//    group outermost: r[1-2]-n[1-2] -> r1-n1, r1-n2, r2-n1, r2-n2.
//  - Order is the order written; duplicates are kept.
// Errors: an unbalanced or nested bracket, an empty group or item, a bound
// that is not a decimal number of at most 18 digits, a descending range,
// more than kMaxHostlistNames names.
Result<std::vector<std::string>> ExpandHostlist(std::string_view expr);

// The inverse, for output: runs of consecutive names (in the given order)
// that share a prefix and whose numeric suffixes count up by one with the
// same zero padding are merged into "prefix[lo-hi,...]"; other names are
// written as they are, comma-separated: a1,a2,b3 -> "a[1-2],b3". Not always
// minimal. For names without '[', ']', ',' or blanks,
// ExpandHostlist(CompressHostlist(v)) == v.
std::string CompressHostlist(const std::vector<std::string>& names);

// Trackable resources of a job or step, as sacct's AllocTRES / ReqTRES and
// sinfo print them: "billing=2,cpu=2,gres/gpu:a100=2,gres/gpu=2,mem=1000M,
// node=1". -1 = not in the string.
struct SlurmTres {
  int64_t cpus = -1;
  int64_t mem_bytes = -1;
  int64_t nodes = -1;
  // gres/gpu=N; when absent but typed entries are present, their sum.
  int64_t gpus = -1;
  // gres/gpu:TYPE=N entries, by TYPE.
  std::map<std::string, int64_t> gpus_by_type;
};

// Parses a TRES list: comma-separated name=value pairs. Kept: cpu, mem,
// node, gres/gpu and gres/gpu:TYPE; every other TRES (billing, energy,
// fs/disk, license/..., gres/shard, gres/gpumem, ...) is ignored. Counts are
// decimal integers >= 0. mem is a decimal number (fractions allowed, as in
// "62.50G") with an optional suffix K, M, G, T or P (powers of 1024); no
// suffix means MiB, as Slurm prints it. Result rounded to the nearest byte.
// "" -> everything -1. Errors: an entry without '=', a bad count or memory
// size, a value beyond 2^62.
Result<SlurmTres> ParseTres(std::string_view text);

// One GRES entry of a node or job: "gpu:a100:4(IDX:0-3)".
struct SlurmGres {
  std::string name;              // "gpu", "shard", "mps", ...
  std::string type;              // "a100", or "" when untyped
  int64_t count = 0;             // a missing count is 1
  std::vector<int32_t> indices;  // from (IDX:...), else empty
};

// Parses a GRES list as slurm.conf, sinfo and squeue write it: comma-
// separated entries name[:type][:flags...][:count][(...)], e.g. gpu:a100:4,
// gpu:4, gpu, gpu:a100:4(S:0-1), gpu:a100:no_consume:4,
// gpu:a100:2(IDX:0-1), gpu:a100:0(IDX:N/A). A "gres:" or "gres/" prefix
// (squeue's tres_per_node) is dropped and "name:type=count" is read as
// "name:type:count". Commas inside parentheses do not split entries. Counts
// take a suffix K, M or G (times 1024 each). Flags (no_consume,
// explicit, ...) and parenthesised parts other than IDX (S:, sockets) are
// ignored. "", "(null)" and "N/A" -> empty list.
// Errors: an empty entry or name, more than one type, a bad count, a bad
// or unbalanced IDX list.
Result<std::vector<SlurmGres>> ParseGres(std::string_view text);

// Parses a Slurm duration (Timelimit, Elapsed, MaxTime): "M", "M:S",
// "H:M:S", "D-H", "D-H:M", "D-H:M:S" (non-negative integers; the parts after
// the first need not be below 60 or 24, as Slurm also accepts that).
// Returns nullopt for "no limit": UNLIMITED, INFINITE, Partition_Limit and
// INVALID (any letter case). Errors: anything else, including "" and
// values beyond kMaxSeconds.
Result<std::optional<Micros>> ParseSlurmDuration(std::string_view text);

// Parses a Slurm time stamp to UNIX seconds: an integer (as printed with
// SLURM_TIME_FORMAT=%s) or YYYY-MM-DDTHH:MM:SS read as UTC (sacct prints
// local time: run it with TZ=UTC, or use %s). "Unknown", "None" and ""
// -> nullopt. Errors: anything else, a negative integer, an invalid date.
Result<std::optional<int64_t>> ParseSlurmTime(std::string_view text);

}  // namespace utilsim::traces
