// utilsim's C ABI (libutilsim_c.so.0; docs/embedding.md, "The C ABI"): load
// a run's inputs, describe a run, simulate a policy, read its summary and
// job rows, write results to SQLite, and ask a placement policy for
// decisions, from C or any language with a C foreign-function interface.
//
// Conventions (every function):
// - Handles are opaque and owned by the caller: each *_create / *_load /
//   utilsim_run / ... that returns one has a *_free (NULL is accepted by
//   every *_free and does nothing).
// - Functions that can fail return an int status, a utilsim_status; 0
//   (UTILSIM_OK) is success. The last parameter, `error`, may be NULL; when
//   it is not, *error must be NULL on entry and a failing call sets it to a
//   new utilsim_error (message: utilsim_error_message; free it with
//   utilsim_error_free); a successful call leaves it NULL.
// - Output parameters are written only on success.
// - Strings passed in are NUL-terminated UTF-8 and copied; strings handed
//   out (const char*) belong to the handle they came from and live until
//   it is freed, except those documented as freed with utilsim_string_free.
// - No C++ exception crosses this interface.
// - Thread-safety: a handle is used by one thread at a time; different
//   handles may be used on different threads at once (const handles, such
//   as inputs read by utilsim_run, from several threads at once).
//
// Units: times in seconds, GPU shares in milli-GPU (1000 = one GPU), CPU in
// milli-cores, memory in bytes, unless a name says otherwise (_h: hours,
// _pct: percent).
//
// C99; link with -lutilsim_c (pkg-config utilsim-c, or CMake
// find_package(utilsim) and the target utilsim::c).
#ifndef UTILSIM_C_UTILSIM_H_
#define UTILSIM_C_UTILSIM_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define UTILSIM_C_API __attribute__((visibility("default")))
#else
#define UTILSIM_C_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

// The version of this interface. A function or struct field added keeps
// it; a changed signature, struct layout or meaning raises it (and the
// library's SONAME). Compare with utilsim_abi_version() at run time.
#define UTILSIM_C_ABI_VERSION 1

// Status codes; the numbers are stable (utilsim::StatusCode).
enum utilsim_status {
  UTILSIM_OK = 0,
  UTILSIM_INVALID_ARGUMENT = 1,  // a bad value, name, key, NULL pointer or file contents
  UTILSIM_NOT_FOUND = 2,         // a file, policy, node or job that does not exist
  UTILSIM_IO = 3,                // reading or writing a file failed
  UTILSIM_RUNTIME = 4,           // anything else that went wrong (also: out of memory)
  UTILSIM_INVARIANT = 5,         // an always-on invariant of a run was violated (a bug)
  UTILSIM_CANCELLED = 6          // stopped on request
};
typedef enum utilsim_status utilsim_status;

// ---- Versions and errors ----------------------------------------------

// UTILSIM_C_ABI_VERSION of the library loaded.
UTILSIM_C_API int utilsim_abi_version(void);
// utilsim's version, e.g. "0.1.0" (static storage).
UTILSIM_C_API const char* utilsim_version(void);
// "ok", "invalid_argument", "not_found", "io", "runtime", "invariant",
// "cancelled"; "unknown" for any other number (static storage).
UTILSIM_C_API const char* utilsim_status_name(int status);

typedef struct utilsim_error utilsim_error;
// One line naming what was wrong ("spec key 'model': expected whole-gpu,
// ..."); "" for NULL. Lives until utilsim_error_free.
UTILSIM_C_API const char* utilsim_error_message(const utilsim_error* error);
// The status the failing call returned; UTILSIM_OK for NULL.
UTILSIM_C_API int utilsim_error_code(const utilsim_error* error);
UTILSIM_C_API void utilsim_error_free(utilsim_error* error);
// Frees a string handed out for the caller to free (utilsim_decide).
UTILSIM_C_API void utilsim_string_free(char* s);

// ---- Inputs ------------------------------------------------------------

typedef struct utilsim_inputs utilsim_inputs;

// Loads a workload and its cluster (as `utilsim run --trace T --format F
// --cluster C --seed S --jobs N` does).
//  trace:   trace file(s), comma-separated, or a folder, or "builtin:demo" /
//           "builtin:bench" (the synthetic generator); required
//  format:  NULL or "" = detect (`utilsim formats` lists them)
//  cluster: a YAML cluster spec; NULL or "" = the cluster the trace
//           describes (built-in workloads have their own)
//  seed:    synthetic generation and profile attachment
//  jobs:    built-in workloads only: how many jobs; <= 0 = the default
// Errors: UTILSIM_NOT_FOUND (a file missing), UTILSIM_INVALID_ARGUMENT (an
// unknown format, bad file contents, jobs with a trace file).
UTILSIM_C_API int utilsim_inputs_load(const char* trace, const char* format, const char* cluster,
                                      uint64_t seed, int64_t jobs, utilsim_inputs** out,
                                      utilsim_error** error);
UTILSIM_C_API void utilsim_inputs_free(utilsim_inputs* inputs);

struct utilsim_inputs_info {
  int64_t jobs;
  int64_t nodes;
  int64_t gpus;
  const char* source;   // where the workload came from ("synthetic:demo seed=1", a path)
  const char* cluster;  // the cluster's name
  const char* digest;   // hex digest of the workload and cluster
};
typedef struct utilsim_inputs_info utilsim_inputs_info;
UTILSIM_C_API int utilsim_inputs_info_get(const utilsim_inputs* inputs, utilsim_inputs_info* out,
                                          utilsim_error** error);

// ---- Run specs ---------------------------------------------------------

// Everything about a run but its inputs and policy; a new spec has the
// defaults of `utilsim run`.
typedef struct utilsim_spec utilsim_spec;
UTILSIM_C_API int utilsim_spec_create(utilsim_spec** out, utilsim_error** error);
UTILSIM_C_API void utilsim_spec_free(utilsim_spec* spec);

// Sets one setting by name, from text (the command line's words; numbers
// in decimal). Keys (defaults in brackets; docs/model.md, docs/sharing.md,
// docs/mig.md, docs/policies.md):
//  model               whole-gpu | stall-serial | stall-overlapped [whole-gpu]
//  comm_fraction       0..1, communication share of multi-GPU jobs [0.1]
//  sharing             fractional | exclusive | timeslice | mps [fractional]
//  mps_thread_pct      (0, 100], sharing mps [100]
//  cpu_alloc           request | proportional | measured [request]
//  gpu_reserve         CORES[,GIB] per whole-free GPU, or none [none]
//  host_scale          CPU[,MEM] factors on every job's host request, or none [none]
//  mig                 off | right-size[:TOL] | dynamic[:TOL] [off]
//  mig_reconfig        CREATE[,DESTROY[,FIXED]] seconds, mig dynamic [2,2,0]
//  mig_drain           true | false, mig dynamic [true]
//  window              arrivals | full [arrivals]
//  warmup_s            seconds >= 0 [0]
//  restart_cost_s      seconds >= 0 [0]
//  sample_interval_s   seconds > 0 [300]
//  series              auto | changes | samples [auto] (docs/results.md)
//  horizon_s           seconds >= 0 after the first submission, or none [none]
//  seed                0..2^64-1 [1]
//  price_per_gpu_h     >= 0 [2]
//  profiles            a YAML file of placement profiles, or none [none]
// Errors (UTILSIM_INVALID_ARGUMENT) name the key and the accepted values;
// the spec is left as it was. Combinations (MIG with sharing, a reservation
// the nodes cannot hold) are checked by utilsim_run.
UTILSIM_C_API int utilsim_spec_set(utilsim_spec* spec, const char* key, const char* value,
                                   utilsim_error** error);

// ---- Runs and results --------------------------------------------------

typedef struct utilsim_result utilsim_result;

// Simulates `policy` (PLACEMENT, QUEUE+PLACEMENT, a profile; parameters
// NAME:key=value allowed; `utilsim policies` lists them) on `inputs` under
// `spec` (NULL = the defaults). Errors: UTILSIM_NOT_FOUND (unknown policy),
// UTILSIM_INVALID_ARGUMENT (a spec the inputs do not allow), UTILSIM_RUNTIME
// or UTILSIM_INVARIANT (the run failed).
UTILSIM_C_API int utilsim_run(const utilsim_inputs* inputs, const utilsim_spec* spec,
                              const char* policy, utilsim_result** out, utilsim_error** error);
UTILSIM_C_API void utilsim_result_free(utilsim_result* result);

// The main figures of a run (docs/results.md, table runs). Allocation,
// utilization and GPU-hours cover the measurement window; waits cover the
// jobs that started, JCT and slowdown the jobs that finished.
struct utilsim_summary {
  int64_t jobs, finished, rejected, unfinished, killed;
  int64_t capacity_gpus;
  double window_start_s, window_end_s;
  double allocation_pct;      // GPU share held / (capacity x window) x 100
  double effective_util_pct;  // GPU busy / (capacity x window) x 100
  double alloc_gpu_h, useful_gpu_h, idle_alloc_gpu_h;
  double price_per_gpu_h, idle_cost;  // idle_alloc_gpu_h x price
  double stranded_gpu_h;
  double cpu_alloc_pct, mem_alloc_pct;
  double wait_mean_s, wait_p50_s, wait_p95_s, wait_p99_s, wait_max_s;
  double queued_mean_s, queued_p95_s;
  double jct_mean_s, jct_p50_s, jct_p95_s;
  double slowdown_mean, slowdown_p95;
  double makespan_s;
  double tenant_fairness;
  int64_t events;
};
typedef struct utilsim_summary utilsim_summary;
UTILSIM_C_API int utilsim_result_summary(const utilsim_result* result, utilsim_summary* out,
                                         utilsim_error** error);
// Energy of a run inside the measurement window (docs/energy.md; table
// runs, energy_*), kWh. it_kwh = busy + alloc_idle + free + node;
// stranded_kwh is part of free_kwh.
struct utilsim_energy {
  double it_kwh, busy_kwh, alloc_idle_kwh, free_kwh, stranded_kwh, node_kwh;
  double pue, facility_kwh;  // facility = it x pue
  double price_per_kwh, cost, idle_alloc_cost;
  double off_gpu_h;  // capacity powered off (power_off_after)
  int64_t wakeups;
};
typedef struct utilsim_energy utilsim_energy;
UTILSIM_C_API int utilsim_result_energy(const utilsim_result* result, utilsim_energy* out,
                                        utilsim_error** error);
// The wait causes (docs/explain.md), in a fixed order: their number, and the
// name of cause i ("capacity", "fragmentation", ...; static storage), NULL
// when i is out of range.
UTILSIM_C_API size_t utilsim_wait_cause_count(void);
UTILSIM_C_API const char* utilsim_wait_cause_name(size_t i);
// Queued job-hours by primary cause into hours[0 .. utilsim_wait_cause_count()),
// in that order; they sum to the jobs' total queued time. Error: n smaller
// than the count (UTILSIM_INVALID_ARGUMENT).
UTILSIM_C_API int utilsim_result_wait_hours(const utilsim_result* result, double* hours, size_t n,
                                            utilsim_error** error);
// The policy as given to utilsim_run.
UTILSIM_C_API int utilsim_result_policy(const utilsim_result* result, const char** out,
                                        utilsim_error** error);

// One job of a run (docs/results.md, table jobs).
struct utilsim_job_row {
  const char* name;
  const char* outcome;  // "finished", "rejected", "unfinished", "killed"
  double submit_s;
  double start_s;   // first start; -1 if never started
  double finish_s;  // -1 if not finished
  double wait_s;    // start - submit; -1 if never started
  int32_t tasks;
  int32_t gpus;           // GPUs of the job (tasks x GPUs per task)
  int64_t gpu_milli;      // GPU share held while running, milli-GPU
  const char* nodes;      // distinct nodes of its last placement, comma-separated; "" if none
  const char* placement;  // "node:gpu,gpu;node:gpu", one entry per task
  int32_t preemptions;
  double alloc_gpu_s, useful_gpu_s;
};
typedef struct utilsim_job_row utilsim_job_row;
UTILSIM_C_API int utilsim_result_job_count(const utilsim_result* result, size_t* out,
                                           utilsim_error** error);
// Row i (0-based, in the order of the workload) into *out; its strings
// live as long as the result. Error: i out of range (UTILSIM_NOT_FOUND).
UTILSIM_C_API int utilsim_result_job(const utilsim_result* result, size_t i, utilsim_job_row* out,
                                     utilsim_error** error);

// Writes `count` results as one SQLite database (run ids 1..count, in
// order; docs/results.md), atomically, replacing a regular file at `path`.
// Errors: UTILSIM_IO (the folder is missing, not writable, ...).
UTILSIM_C_API int utilsim_results_write(const utilsim_result* const* results, size_t count,
                                        const char* path, utilsim_error** error);

// ---- Decisions without a simulation ------------------------------------

// A cluster state kept in step with a real cluster through started /
// finished / drain, and a placement policy asked where a job would go now
// (utilsim/policies/placer.h). The struct calls and utilsim_decide act on
// the same state.
typedef struct utilsim_placer utilsim_placer;

// A job's demand, in the engine's units. Zero-initialize, then set what
// applies: `utilsim_job_demand j = {0}; j.gpus = 4;`.
struct utilsim_job_demand {
  const char* id;         // the job's id; required by started, optional elsewhere
  int32_t tasks;          // gang size, all or nothing; 0 = 1
  int32_t gpus;           // GPUs per task, 0..64
  int32_t gpu_milli;      // share of each GPU, 1..1000 (< 1000 only with gpus 1); 0 = 1000
  int64_t cpu_milli;      // host CPU per task, milli-cores
  int64_t mem_bytes;      // host memory per task
  int64_t gpu_mem_bytes;  // GPU memory per GPU; 0 = unknown (not limited)
  const char* gpu_model;  // the GPU model it needs; NULL or "" = any
};
typedef struct utilsim_job_demand utilsim_job_demand;

// Where a job's tasks go: per task, a node and the GPUs on it (bit i of
// gpu_mask = GPU i of the node; 0 for a CPU-only task).
typedef struct utilsim_placement utilsim_placement;
typedef struct utilsim_placement_list utilsim_placement_list;

// `cluster_yaml`: a YAML cluster spec; `policy`: a placement policy or
// profile (parameters allowed); `profiles`: a YAML file of profiles, or
// NULL; `seed`: for the policies that draw. Errors: UTILSIM_NOT_FOUND (no
// such file, unknown policy), UTILSIM_INVALID_ARGUMENT (a bad cluster).
UTILSIM_C_API int utilsim_placer_create(const char* cluster_yaml, const char* policy,
                                        const char* profiles, uint64_t seed, utilsim_placer** out,
                                        utilsim_error** error);
UTILSIM_C_API void utilsim_placer_free(utilsim_placer* placer);

// Where the policy would put every task of `job` now: *out is a new
// placement, or NULL when the job cannot start now (UTILSIM_OK either way;
// nothing is placed on drained nodes). The state is left as it was.
UTILSIM_C_API int utilsim_placer_place(utilsim_placer* placer, const utilsim_job_demand* job,
                                       utilsim_placement** out, utilsim_error** error);
// Up to k placements in the policy's order of preference (its choice, then
// its choice with the earlier choices' nodes excluded, ...); may be empty.
UTILSIM_C_API int utilsim_placer_rank(utilsim_placer* placer, const utilsim_job_demand* job,
                                      size_t k, utilsim_placement_list** out,
                                      utilsim_error** error);
// The job `job->id` started on `where` (any placement, not only the
// policy's). Errors: UTILSIM_INVALID_ARGUMENT (no id, id running already,
// does not fit, wrong number of tasks), UTILSIM_NOT_FOUND (unknown node).
UTILSIM_C_API int utilsim_placer_started(utilsim_placer* placer, const utilsim_job_demand* job,
                                         const utilsim_placement* where, utilsim_error** error);
// The job ended; its resources are free again. Error: UTILSIM_NOT_FOUND.
UTILSIM_C_API int utilsim_placer_finished(utilsim_placer* placer, const char* id,
                                          utilsim_error** error);
// drained != 0: nothing new goes to `node` (running jobs stay); 0 undoes
// it. Error: UTILSIM_NOT_FOUND (no such node).
UTILSIM_C_API int utilsim_placer_drain(utilsim_placer* placer, const char* node, int drained,
                                       utilsim_error** error);
// One request of the JSON decision protocol (docs/embedding.md, "Decisions
// from another process"; what `utilsim decide` reads per line). *response
// is always set when placer, request and response are not NULL: a new
// string of one JSON object, freed with utilsim_string_free. Returns
// UTILSIM_OK when the response says "ok": true, else the status its
// error.code names (and sets *error to the same message).
UTILSIM_C_API int utilsim_decide(utilsim_placer* placer, const char* request, char** response,
                                 utilsim_error** error);

// Placements: built by the caller (for started) or handed out by place.
UTILSIM_C_API int utilsim_placement_create(utilsim_placement** out, utilsim_error** error);
// Appends one task: on `node` (a node name of the cluster, checked by
// started), GPUs `gpu_mask`.
UTILSIM_C_API int utilsim_placement_add_task(utilsim_placement* placement, const char* node,
                                             uint64_t gpu_mask, utilsim_error** error);
UTILSIM_C_API void utilsim_placement_free(utilsim_placement* placement);
UTILSIM_C_API int utilsim_placement_task_count(const utilsim_placement* placement, size_t* out,
                                               utilsim_error** error);
// Task i's node and GPUs. Error: i out of range (UTILSIM_NOT_FOUND).
UTILSIM_C_API int utilsim_placement_task(const utilsim_placement* placement, size_t i,
                                         const char** node, uint64_t* gpu_mask,
                                         utilsim_error** error);
// "node:gpu,gpu;node:gpu" (the results' placement format).
UTILSIM_C_API int utilsim_placement_text(const utilsim_placement* placement, const char** out,
                                         utilsim_error** error);

UTILSIM_C_API void utilsim_placement_list_free(utilsim_placement_list* list);
UTILSIM_C_API int utilsim_placement_list_count(const utilsim_placement_list* list, size_t* out,
                                               utilsim_error** error);
// Entry i, owned by the list. Error: i out of range (UTILSIM_NOT_FOUND).
UTILSIM_C_API int utilsim_placement_list_get(const utilsim_placement_list* list, size_t i,
                                             const utilsim_placement** out, utilsim_error** error);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // UTILSIM_C_UTILSIM_H_
