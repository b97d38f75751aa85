// Reader of a Slurm cluster's own job history (`--format sacct`): the output
// of sacct, as text or JSON. docs/formats/sacct.md has the full mapping, the
// state table, the options and the warnings.
//
// The command to run (operator or admin rights, or PrivateData without
// "jobs", are needed for --allusers to see every user's jobs):
//   SLURM_TIME_FORMAT=%s sacct --allusers --duplicates --parsable2
//     --starttime 2024-01-01 --endtime 2024-02-01
//     --format=JobID,JobIDRaw,JobName,State,Submit,Eligible,Start,End,Elapsed,
//   Timelimit,Partition,QOS,User,Account,Priority,AllocTRES,ReqTRES,NodeList,ExitCode
// (one command line; the --format list without blanks),
// or the same with --json instead of --parsable2 and --format (every field
// is in it). Without SLURM_TIME_FORMAT=%s, times are local: set TZ=UTC.
// -X (allocations only) may be given; steps are skipped either way.
//
// Inputs (plain or gzip, told apart by content): `--parsable2` text, whose
// first line names the '|'-separated columns (any order; unknown columns
// ignored; required JobID, State, Submit, Start, End and AllocTRES or
// ReqTRES; lines starting with '#' before it are skipped), or `--json`: an object whose "jobs"
// array holds Slurm 22.05's v0.0.38 job objects or the v0.0.40+ shape (numbers as
// {"set","infinite","number"}, state.current an array of flags).
//
// Per allocation record (steps, JobID with '.', are skipped and counted):
//  - name = JobID as printed ("123", "5_0" array task, "15+1" het
//    component); a JobID on several records (--duplicates: requeued
//    attempts) keeps it on its last record, earlier ones are
//    "<JobID>#1", "#2", ... in file order (over all records of that JobID,
//    skipped or not). Pending array lines ("17_[0-2]") are skipped.
//  - time origin = the earliest Submit of the jobs kept (a note gives it);
//    submit = Eligible when present and >= Submit (opt.submit_from), else
//    Submit; a submit after Start is set to Start (counted);
//    recorded_start = Start - origin; runtime = End - Start (0 -> 1 s,
//    counted); walltime_limit = Timelimit (none for UNLIMITED or
//    Partition_Limit), kill_at_limit = true when there is a limit.
//  - states: COMPLETED, FAILED, OUT_OF_MEMORY, TIMEOUT, PREEMPTED,
//    NODE_FAIL, DEADLINE, CANCELLED and REQUEUED records that ran are
//    replayed; records that never ran (no Start, or no nodes and End ==
//    Start) are skipped (counted); RUNNING, SUSPENDED and PENDING are
//    skipped (counted); BOOT_FAIL with End <= Start is skipped; other states
//    are replayed when they have Start and End (counted).
//  - demand from AllocTRES (ReqTRES when AllocTRES is empty): tasks = node
//    (else the NodeList length, else 1); per task gpus, cpu_milli and memory
//    = the totals / tasks, rounded up (counted when uneven). gpu_models =
//    {TYPE} when ReqTRES holds exactly one typed gres/gpu:TYPE, else any.
//  - priority = Priority - 2^31 (Slurm's uint32 order kept in int32);
//    tenant = Account (opt.tenant); recorded_hosts = the NodeList expanded;
//    utilization unknown (util_known false).
// With opt.conf: jobs without a GPU model get their partition's models when
// its nodes hold only some of the cluster's; jobs on nodes not in
// slurm.conf, or with more GPUs, CPUs or memory per node than the node has,
// are counted warnings.
//
// Errors (bad input never crashes):
//   <file>:<line>: field '<column>': expected <what>, got '<text>'
//   <file>: jobs[<i>]: field '<name>': expected <what>, got '<text>'
// for a missing header or column, a wrong field count, a bad number, time,
// duration, TRES list or host list, End before Start, an empty file, JSON
// that is not an object with a "jobs" array. Thread-safety: thread-safe for
// distinct calls.
#pragma once

#include <string>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/traces/slurm_conf.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces {

// Warning kinds of ReadSacct.
inline constexpr char kSacctWarnNeverStarted[] = "job never started (skipped)";
inline constexpr char kSacctWarnStillRunning[] = "still running when sacct ran (skipped)";
inline constexpr char kSacctWarnPending[] = "pending when sacct ran (skipped)";
inline constexpr char kSacctWarnBootFail[] = "BOOT_FAIL without run time (skipped)";
inline constexpr char kSacctWarnOtherState[] = "state not in the table (replayed from its times)";
inline constexpr char kSacctWarnZeroRuntime[] = "zero run time (set to 1 s)";
inline constexpr char kSacctWarnSubmitAfterStart[] = "submit after Start (set to Start)";
inline constexpr char kSacctWarnUneven[] =
    "resources not divisible by the node count (rounded up per task)";
inline constexpr char kSacctWarnElapsed[] = "Elapsed differs from End - Start (End - Start used)";
inline constexpr char kSacctWarnNodeCount[] = "NodeList length differs from node= in the TRES";
inline constexpr char kSacctWarnGpuTypes[] =
    "several GPU types requested (no GPU model constraint)";
inline constexpr char kSacctWarnUnknownNode[] = "job recorded on a node not in slurm.conf";
inline constexpr char kSacctWarnTooManyGpus[] =
    "job holds more GPUs per node than slurm.conf gives the node";
inline constexpr char kSacctWarnTooBig[] =
    "job holds more CPUs or memory per node than slurm.conf gives the node";
inline constexpr char kSacctWarnUnknownPartition[] = "partition not in slurm.conf";

// Which recorded time is a job's submit time.
enum class SacctSubmit {
  kEligible,  // Eligible when >= Submit: holds, dependencies and --begin excluded
  kSubmit,    // Submit as recorded
};
// Which recorded name is a job's tenant.
enum class SacctTenant { kAccount, kUser };

struct SacctOptions {
  SacctSubmit submit_from = SacctSubmit::kEligible;
  SacctTenant tenant = SacctTenant::kAccount;
  // The cluster's slurm.conf, read by ReadSlurmConf, to check jobs against
  // and to turn partitions into GPU model constraints; nullptr = none. Not
  // owned; must outlive the call.
  const SlurmConf* conf = nullptr;
};

// Reads one or several sacct outputs (each text or JSON, plain or gzip) as
// one workload, in the given file order, with one time origin; see above.
// TraceData::cluster is left empty (--cluster gives it; slurm.conf's
// ClusterSpec is SlurmConf::cluster). Fills rows_read (records read,
// steps included) and bytes_read; the workload is Finalize()d.
Result<TraceData> ReadSacct(const std::vector<std::string>& paths, const SacctOptions& opt = {});

// True when the file's first line (after '#' comments) is a sacct --parsable2 header (it starts
// with "JobID|", or names JobID and State between '|'), or when it is JSON
// whose first 64 KiB name "jobs" and "job_id" (sacct --json). False when
// unreadable.
bool LooksLikeSacct(const std::string& path);

}  // namespace utilsim::traces
