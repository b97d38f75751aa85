/* utilsim from C (docs/embedding.md, "The C ABI"): loads a trace and a
 * cluster, simulates two policies, prints their summaries and where the
 * first ran each job, then asks a placement policy for decisions without a
 * simulation, through the structs and through the JSON protocol.
 *
 *   c_basic TRACE CLUSTER_YAML     e.g. tests/fixtures/decide/{jobs.csv,cluster.yaml}
 *   c_basic                        builtin:demo, 200 jobs, on its own cluster
 *
 * tests/install/c_example_test.sh runs it on tests/fixtures/decide and checks
 * every line. There, cluster: big (8 GPUs), small (4), t4 (4); jobs (submit,
 * GPUs, runtime, busy fraction): a 0 s 4 100 s 0.5, b 10 s 8 100 s 1.0,
 * c 20 s 4 40 s 1.0; both policies queue strictly first come first served.
 *   best-fit:  a -> small (leaves 0 free; big would leave 4), so b finds big
 *              empty at 10 s, and c takes t4 at 20 s: no waits, 0..110 s.
 *   first-fit: a -> big, b (8 GPUs) waits for a until 100 s and c waits
 *              behind b, then takes small: waits 0, 90, 80 s, 0..200 s.
 * Allocated 4x100 + 8x100 + 4x40 = 1360 GPU-s, busy 200 + 800 + 160 = 1160,
 * over the full window on 16 GPUs: 1760 GPU-s (best-fit) -> 77.27 % and
 * 65.91 %; 3200 GPU-s (first-fit) -> 42.50 % and 36.25 %. */
#include <stdio.h>
#include <string.h>

#include "utilsim/c/utilsim.h"

/* Prints the error of a failed call and returns 1. */
static int failed(const char* what, int status, utilsim_error* error) {
  fprintf(stderr, "%s: %s: %s\n", what, utilsim_status_name(status), utilsim_error_message(error));
  utilsim_error_free(error);
  return 1;
}

/* Runs `policy` and prints its summary and its first `rows` job rows. */
static int summarize(const utilsim_inputs* in, const utilsim_spec* spec, const char* policy,
                     int rows) {
  utilsim_error* error = NULL;
  utilsim_result* result = NULL;
  utilsim_summary s;
  size_t n = 0, i;
  int status = utilsim_run(in, spec, policy, &result, &error);
  if (status != UTILSIM_OK) return failed(policy, status, error);
  utilsim_result_summary(result, &s, NULL);
  printf(
      "%s: %lld/%lld jobs finished, allocation %.2f %%, effective utilization %.2f %%, "
      "mean wait %.1f s, makespan %.0f s\n",
      policy, (long long)s.finished, (long long)s.jobs, s.allocation_pct, s.effective_util_pct,
      s.wait_mean_s, s.makespan_s);
  utilsim_result_job_count(result, &n, NULL);
  for (i = 0; i < n && i < (size_t)rows; ++i) {
    utilsim_job_row row;
    utilsim_result_job(result, i, &row, NULL);
    printf("  %s: start %.0f s, finish %.0f s, on %s\n", row.name, row.start_s, row.finish_s,
           row.nodes);
  }
  if (rows && n > (size_t)rows) printf("  ... and %zu more\n", n - (size_t)rows);
  utilsim_result_free(result);
  return 0;
}

int main(int argc, char** argv) {
  const char* trace = argc > 2 ? argv[1] : "builtin:demo";
  const char* cluster = argc > 2 ? argv[2] : NULL;
  utilsim_error* error = NULL;
  utilsim_inputs* in = NULL;
  utilsim_spec* spec = NULL;
  utilsim_placer* placer = NULL;
  utilsim_placement* where = NULL;
  utilsim_job_demand job;
  utilsim_inputs_info info;
  const char* text = NULL;
  char* response = NULL;
  int status;

  if (utilsim_abi_version() != UTILSIM_C_ABI_VERSION) {
    fprintf(stderr, "built for C ABI %d, loaded %d\n", UTILSIM_C_ABI_VERSION,
            utilsim_abi_version());
    return 1;
  }
  status = utilsim_inputs_load(trace, NULL, cluster, 1, cluster ? 0 : 200, &in, &error);
  if (status != UTILSIM_OK) return failed("load", status, error);
  utilsim_inputs_info_get(in, &info, NULL);
  printf("utilsim C ABI %d: %lld jobs on %s (%lld GPUs on %lld nodes)\n", utilsim_abi_version(),
         (long long)info.jobs, info.cluster, (long long)info.gpus, (long long)info.nodes);

  utilsim_spec_create(&spec, NULL);
  status = utilsim_spec_set(spec, "window", "full", &error); /* first submit .. last finish */
  if (status != UTILSIM_OK) return failed("spec", status, error);
  if (summarize(in, spec, "best-fit", 5) || summarize(in, spec, "first-fit", 0)) return 1;
  utilsim_spec_free(spec);
  utilsim_inputs_free(in);
  if (!cluster) return 0;

  /* Decisions: where would best-fit put a 4-GPU job now? */
  status = utilsim_placer_create(cluster, "best-fit", NULL, 1, &placer, &error);
  if (status != UTILSIM_OK) return failed("placer", status, error);
  memset(&job, 0, sizeof job);
  job.id = "job-1";
  job.gpus = 4;
  job.cpu_milli = 8000;
  utilsim_placer_place(placer, &job, &where, NULL);
  utilsim_placement_text(where, &text, NULL);
  printf("placer: 4 GPUs -> %s\n", text);
  utilsim_placer_started(placer, &job, where, NULL); /* it started there */
  utilsim_placement_free(where);
  status = utilsim_decide(placer, "{\"op\":\"place\",\"job\":{\"gpus\":4}}", &response, &error);
  if (status != UTILSIM_OK) return failed("decide", status, error);
  printf("decide: %s\n", response);
  utilsim_string_free(response);
  utilsim_placer_free(placer);
  return 0;
}
