// The C ABI (utilsim/c/utilsim.h) against the C++ libraries: the same run
// gives the same summary and job rows as RunPolicies, the placer makes
// best-fit's hand-computed choices and shares its state with
// utilsim_decide, and every bad argument is a status and a message, never a
// crash.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "testutil/testutil.h"
#include "utilsim/analysis/runner.h"
#include "utilsim/c/utilsim.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/engine/wait.h"
#include "utilsim/io/inputs.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;

using testutil::Has;

// The message of *e, freed; "" when there is none.
std::string Take(utilsim_error** e) {
  std::string m = utilsim_error_message(*e);
  utilsim_error_free(*e);
  *e = nullptr;
  return m;
}

TEST(CApi, Versions) {
  EXPECT_EQ(utilsim_abi_version(), UTILSIM_C_ABI_VERSION);
  EXPECT_STREQ(utilsim_version(), UtilsimVersion());
  EXPECT_STREQ(utilsim_status_name(UTILSIM_OK), "ok");
  EXPECT_STREQ(utilsim_status_name(UTILSIM_INVALID_ARGUMENT), "invalid_argument");
  EXPECT_STREQ(utilsim_status_name(UTILSIM_NOT_FOUND), "not_found");
  EXPECT_STREQ(utilsim_status_name(UTILSIM_CANCELLED), "cancelled");
  EXPECT_STREQ(utilsim_status_name(99), "unknown");
  EXPECT_STREQ(utilsim_error_message(nullptr), "");
  EXPECT_EQ(utilsim_error_code(nullptr), UTILSIM_OK);
  utilsim_error_free(nullptr);  // all *_free accept NULL
  utilsim_inputs_free(nullptr);
  utilsim_spec_free(nullptr);
  utilsim_result_free(nullptr);
  utilsim_placer_free(nullptr);
  utilsim_placement_free(nullptr);
  utilsim_placement_list_free(nullptr);
  utilsim_string_free(nullptr);
}

// The C run of a spec set by name equals RunPolicies of the same RunSpec,
// figure for figure and job for job.
TEST(CApi, RunEqualsRunPolicies) {
  utilsim_error* err = nullptr;
  utilsim_inputs* in = nullptr;
  ASSERT_EQ(utilsim_inputs_load("builtin:demo", nullptr, nullptr, 7, 400, &in, &err), UTILSIM_OK)
      << Take(&err);
  utilsim_inputs_info info{};
  ASSERT_EQ(utilsim_inputs_info_get(in, &info, &err), UTILSIM_OK) << Take(&err);
  EXPECT_EQ(info.jobs, 400);
  EXPECT_EQ(info.gpus, 512);  // the demo cluster: 64 nodes x 8 GPUs
  EXPECT_EQ(info.nodes, 64);
  utilsim_spec* spec = nullptr;
  ASSERT_EQ(utilsim_spec_create(&spec, &err), UTILSIM_OK);
  const std::pair<const char*, const char*> settings[] = {
      {"model", "stall-serial"},     {"window", "full"},
      {"sample_interval_s", "600"},  {"seed", "7"},
      {"cpu_alloc", "proportional"}, {"horizon_s", "none"},
      {"price_per_gpu_h", "3.5"}};
  for (auto [k, v] : settings)
    ASSERT_EQ(utilsim_spec_set(spec, k, v, &err), UTILSIM_OK) << k << ": " << Take(&err);
  const char* policy = "fifo-skip+best-fit";
  utilsim_result* res = nullptr;
  ASSERT_EQ(utilsim_run(in, spec, policy, &res, &err), UTILSIM_OK) << Take(&err);

  InputOptions opt;
  opt.trace = "builtin:demo";
  opt.seed = 7;
  opt.jobs = 400;
  auto cin = LoadInputs(opt);
  ASSERT_TRUE(cin.ok()) << cin.status().message();
  RunSpec rs;
  rs.model = ProgressModelKind::kStallSerial;
  rs.window = Window::kFull;
  rs.sample_interval = Seconds(600);
  rs.seed = 7;
  rs.cpu_alloc = CpuAlloc::kProportional;
  rs.price_per_gpu_h = 3.5;
  auto runs = RunPolicies(cin.value(), BuiltinPolicies(), {policy}, rs);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  const RunResult& cpp = runs.value()[0];

  utilsim_summary s{};
  ASSERT_EQ(utilsim_result_summary(res, &s, &err), UTILSIM_OK);
  const Summary& e = cpp.summary;
  EXPECT_EQ(s.jobs, 400);
  EXPECT_EQ(s.jobs, e.jobs);
  EXPECT_EQ(s.finished, e.finished);
  EXPECT_EQ(s.rejected, e.rejected);
  EXPECT_EQ(s.unfinished, e.unfinished);
  EXPECT_EQ(s.capacity_gpus, 512);
  EXPECT_EQ(s.window_start_s, e.window_start.seconds());
  EXPECT_EQ(s.window_end_s, e.window_end.seconds());
  EXPECT_EQ(s.allocation_pct, e.allocation_pct);
  EXPECT_EQ(s.effective_util_pct, e.effective_util_pct);
  EXPECT_GT(s.allocation_pct, s.effective_util_pct);
  EXPECT_EQ(s.alloc_gpu_h, e.alloc_gpu_h);
  EXPECT_EQ(s.useful_gpu_h, e.useful_gpu_h);
  EXPECT_EQ(s.idle_alloc_gpu_h, e.idle_alloc_gpu_h);
  EXPECT_EQ(s.price_per_gpu_h, 3.5);
  EXPECT_EQ(s.idle_cost, e.idle_cost);
  EXPECT_EQ(s.stranded_gpu_h, e.stranded_gpu_h);
  EXPECT_EQ(s.cpu_alloc_pct, e.cpu_alloc_pct);
  EXPECT_EQ(s.wait_mean_s, e.wait_mean_s);
  EXPECT_EQ(s.wait_p95_s, e.wait_p95_s);
  EXPECT_EQ(s.queued_p95_s, e.queued_p95_s);
  EXPECT_EQ(s.jct_p95_s, e.jct_p95_s);
  EXPECT_EQ(s.slowdown_mean, e.slowdown_mean);
  EXPECT_EQ(s.makespan_s, e.makespan_s);
  EXPECT_EQ(s.tenant_fairness, e.tenant_fairness);
  EXPECT_EQ(s.events, e.events);
  // Energy and queued hours by cause: the C++ run's figures, field by field.
  utilsim_energy en{};
  ASSERT_EQ(utilsim_result_energy(res, &en, &err), UTILSIM_OK);
  EXPECT_EQ(en.it_kwh, e.energy_it_kwh);
  EXPECT_GT(en.it_kwh, 0);
  EXPECT_EQ(en.busy_kwh, e.energy_busy_kwh);
  EXPECT_EQ(en.alloc_idle_kwh, e.energy_alloc_idle_kwh);
  EXPECT_EQ(en.free_kwh, e.energy_free_kwh);
  EXPECT_EQ(en.stranded_kwh, e.energy_stranded_kwh);
  EXPECT_EQ(en.node_kwh, e.energy_node_kwh);
  EXPECT_DOUBLE_EQ(en.it_kwh, en.busy_kwh + en.alloc_idle_kwh + en.free_kwh + en.node_kwh);
  EXPECT_EQ(en.pue, e.pue);
  EXPECT_EQ(en.facility_kwh, e.energy_facility_kwh);
  EXPECT_EQ(en.cost, e.energy_cost);
  EXPECT_EQ(en.idle_alloc_cost, e.idle_alloc_energy_cost);
  EXPECT_EQ(en.wakeups, e.wakeups);
  ASSERT_EQ(utilsim_wait_cause_count(), kWaitCauses);
  EXPECT_STREQ(utilsim_wait_cause_name(0), "capacity");
  EXPECT_STREQ(utilsim_wait_cause_name(kWaitCauses - 1), "nodes-down");
  EXPECT_EQ(utilsim_wait_cause_name(kWaitCauses), nullptr);
  std::vector<double> hours(kWaitCauses, -1);
  ASSERT_EQ(utilsim_result_wait_hours(res, hours.data(), hours.size(), &err), UTILSIM_OK);
  for (size_t c = 0; c < kWaitCauses; ++c) EXPECT_EQ(hours[c], e.wait_cause_h[c]) << c;
  EXPECT_EQ(utilsim_result_wait_hours(res, hours.data(), 3, &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(Take(&err), "n is 3, expected at least 13"));
  const char* label = nullptr;
  ASSERT_EQ(utilsim_result_policy(res, &label, &err), UTILSIM_OK);
  EXPECT_STREQ(label, policy);

  size_t n = 0;
  ASSERT_EQ(utilsim_result_job_count(res, &n, &err), UTILSIM_OK);
  ASSERT_EQ(n, cpp.jobs.size());
  int checked = 0;
  for (size_t i = 0; i < n; ++i) {
    utilsim_job_row row{};
    ASSERT_EQ(utilsim_result_job(res, i, &row, &err), UTILSIM_OK) << Take(&err);
    const JobRecord& j = cpp.jobs[i];
    EXPECT_EQ(row.name, j.name);
    EXPECT_STREQ(row.outcome, JobOutcomeName(j.outcome));
    EXPECT_EQ(row.submit_s, j.submit.seconds());
    EXPECT_EQ(row.start_s, j.start.us < 0 ? -1 : j.start.seconds());
    EXPECT_EQ(row.finish_s, j.finish.us < 0 ? -1 : j.finish.seconds());
    EXPECT_EQ(row.placement, j.placement);
    EXPECT_EQ(row.gpu_milli, j.gpu_milli);
    const Job& job = cin.value().workload.jobs[j.job];
    EXPECT_EQ(row.gpus, job.tasks * job.task.gpus);
    // The node list is the placement's nodes, once each, in order.
    if (j.placement.find(';') == std::string::npos && !j.placement.empty()) {
      EXPECT_EQ(row.nodes, j.placement.substr(0, j.placement.find(':')));
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
  utilsim_job_row row{};
  EXPECT_EQ(utilsim_result_job(res, n, &row, &err), UTILSIM_NOT_FOUND);
  EXPECT_EQ(Take(&err), "utilsim_result_job: row 400 of 400");

  // Written to SQLite and read back by the C++ store.
  const std::string db = testutil::TempDir() + "/c.db";
  const utilsim_result* both[] = {res, res};
  ASSERT_EQ(utilsim_results_write(both, 2, db.c_str(), &err), UTILSIM_OK) << Take(&err);
  auto back = ReadResults(db);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back.value().size(), 2u);
  EXPECT_EQ(back.value()[1].summary.allocation_pct, e.allocation_pct);
  EXPECT_EQ(back.value()[0].jobs.size(), 400u);
  EXPECT_EQ(utilsim_results_write(both, 2, "/nonexistent/dir/c.db", &err), UTILSIM_IO);
  EXPECT_TRUE(Has(Take(&err), "/nonexistent/dir")) << db;

  utilsim_result_free(res);
  utilsim_spec_free(spec);
  utilsim_inputs_free(in);
}

TEST(CApi, RunErrors) {
  utilsim_error* err = nullptr;
  utilsim_inputs* in = nullptr;
  // NULL pointers.
  EXPECT_EQ(utilsim_inputs_load(nullptr, nullptr, nullptr, 1, 0, &in, &err),
            UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "utilsim_inputs_load: trace is NULL");
  EXPECT_EQ(utilsim_inputs_load("builtin:demo", nullptr, nullptr, 1, 50, nullptr, &err),
            UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "utilsim_inputs_load: out is NULL");
  // The error argument is optional.
  EXPECT_EQ(utilsim_inputs_load(nullptr, nullptr, nullptr, 1, 0, &in, nullptr),
            UTILSIM_INVALID_ARGUMENT);
  // Files.
  EXPECT_EQ(utilsim_inputs_load("/nonexistent/jobs.csv", nullptr, nullptr, 1, 0, &in, &err),
            UTILSIM_NOT_FOUND);
  EXPECT_EQ(Take(&err), "trace: /nonexistent/jobs.csv: no such file or folder");
  const std::string jobs = Fixture("cli/jobs.csv");
  EXPECT_EQ(utilsim_inputs_load(jobs.c_str(), nullptr, "/nonexistent.yaml", 1, 0, &in, &err),
            UTILSIM_NOT_FOUND);
  EXPECT_EQ(Take(&err), "cluster: /nonexistent.yaml: no such file or folder");
  EXPECT_EQ(utilsim_inputs_load(jobs.c_str(), nullptr, nullptr, 1, 10, &in, &err),
            UTILSIM_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(Take(&err), "jobs: only for built-in workloads"));
  EXPECT_EQ(utilsim_inputs_load(jobs.c_str(), "no-such-format", nullptr, 1, 0, &in, &err),
            UTILSIM_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(Take(&err), "no-such-format"));
  EXPECT_EQ(in, nullptr);  // outputs are written only on success

  // Spec keys and values.
  utilsim_spec* spec = nullptr;
  ASSERT_EQ(utilsim_spec_create(&spec, &err), UTILSIM_OK);
  EXPECT_EQ(utilsim_spec_set(spec, "modle", "stall-serial", &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(
      Take(&err),
      "spec key 'modle': unknown (accepted: model, comm_fraction, sharing, mps_thread_pct, "
      "cpu_alloc, gpu_reserve, host_scale, mig, mig_reconfig, mig_drain, window, warmup_s, "
      "restart_cost_s, sample_interval_s, series, horizon_s, seed, price_per_gpu_h, profiles)");
  EXPECT_EQ(utilsim_spec_set(spec, "model", "fast", &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err),
            "spec key 'model': expected whole-gpu, stall-serial or stall-overlapped, got 'fast'");
  EXPECT_EQ(utilsim_spec_set(spec, "window", "all", &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "spec key 'window': expected arrivals or full, got 'all'");
  EXPECT_EQ(utilsim_spec_set(spec, "series", "steps", &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "spec key 'series': expected auto, changes or samples, got 'steps'");
  EXPECT_EQ(utilsim_spec_set(spec, "sample_interval_s", "0", &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "spec key 'sample_interval_s': expected seconds > 0, got '0'");
  EXPECT_EQ(utilsim_spec_set(spec, "horizon_s", "-1", &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "spec key 'horizon_s': expected seconds >= 0, got '-1'");
  EXPECT_EQ(utilsim_spec_set(spec, "comm_fraction", "nan", &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "spec key 'comm_fraction': expected a fraction 0..1, got 'nan'");
  EXPECT_EQ(utilsim_spec_set(spec, "seed", "-3", &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "spec key 'seed': expected an integer 0..2^64-1, got '-3'");
  EXPECT_EQ(utilsim_spec_set(spec, "seed", "18446744073709551616", &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err),
            "spec key 'seed': expected an integer 0..2^64-1, got '18446744073709551616'");
  EXPECT_EQ(utilsim_spec_set(spec, "seed", "18446744073709551615", &err), UTILSIM_OK);
  EXPECT_EQ(utilsim_spec_set(spec, "mig_drain", "yes", &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "spec key 'mig_drain': expected true or false, got 'yes'");
  EXPECT_EQ(utilsim_spec_set(spec, "cpu_alloc", "greedy", &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(Take(&err), "spec key 'cpu_alloc': ")) << "named";
  EXPECT_EQ(utilsim_spec_set(spec, "mig", "sideways", &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(Take(&err), "spec key 'mig': expected right-size[:TOL] or dynamic[:TOL]"));
  EXPECT_EQ(utilsim_spec_set(nullptr, "model", "whole-gpu", &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "utilsim_spec_set: spec is NULL");
  EXPECT_EQ(utilsim_spec_set(spec, "model", nullptr, &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "utilsim_spec_set: value is NULL");

  // Runs.
  ASSERT_EQ(utilsim_inputs_load("builtin:demo", "", "", 1, 30, &in, &err), UTILSIM_OK)
      << Take(&err);
  utilsim_result* res = nullptr;
  EXPECT_EQ(utilsim_run(in, nullptr, "best-fitt", &res, &err), UTILSIM_NOT_FOUND);
  EXPECT_TRUE(Has(Take(&err), "best-fitt"));
  EXPECT_EQ(utilsim_run(nullptr, nullptr, "best-fit", &res, &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "utilsim_run: inputs is NULL");
  EXPECT_EQ(utilsim_run(in, nullptr, nullptr, &res, &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "utilsim_run: policy is NULL");
  // A GPU reservation the demo's nodes (96 cores, 8 GPUs) cannot hold.
  ASSERT_EQ(utilsim_spec_set(spec, "gpu_reserve", "64", &err), UTILSIM_OK);
  EXPECT_EQ(utilsim_run(in, spec, "best-fit", &res, &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(Take(&err), "reservation"));
  ASSERT_EQ(utilsim_spec_set(spec, "gpu_reserve", "none", &err), UTILSIM_OK);
  ASSERT_EQ(utilsim_run(in, spec, "best-fit", &res, &err), UTILSIM_OK) << Take(&err);
  EXPECT_EQ(utilsim_result_summary(res, nullptr, &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "utilsim_result_summary: out is NULL");
  EXPECT_EQ(utilsim_results_write(nullptr, 1, "x.db", &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "utilsim_results_write: results is NULL");
  // *error must be NULL on entry; a second failure does not replace the first.
  EXPECT_EQ(utilsim_run(nullptr, nullptr, "x", &res, &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(utilsim_run(in, nullptr, nullptr, &res, &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(utilsim_error_code(err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "utilsim_run: inputs is NULL");
  utilsim_result_free(res);
  utilsim_spec_free(spec);
  utilsim_inputs_free(in);
}

// The placer makes decide_test's hand-computed best-fit choices on the
// three-node fixture (big 8 V100, small 4 V100, t4 4 T4), and utilsim_decide
// sees the same state.
TEST(CApi, PlacerAndDecideShareOneState) {
  utilsim_error* err = nullptr;
  utilsim_placer* pl = nullptr;
  const std::string cluster = Fixture("decide/cluster.yaml");
  ASSERT_EQ(utilsim_placer_create(cluster.c_str(), "best-fit", nullptr, 1, &pl, &err), UTILSIM_OK)
      << Take(&err);
  utilsim_job_demand a{};
  a.id = "a";
  a.gpus = 4;
  a.cpu_milli = 8000;
  utilsim_placement* p = nullptr;
  ASSERT_EQ(utilsim_placer_place(pl, &a, &p, &err), UTILSIM_OK) << Take(&err);
  ASSERT_NE(p, nullptr);
  size_t tasks = 0;
  ASSERT_EQ(utilsim_placement_task_count(p, &tasks, &err), UTILSIM_OK);
  ASSERT_EQ(tasks, 1u);
  const char* node = nullptr;
  uint64_t mask = 0;
  ASSERT_EQ(utilsim_placement_task(p, 0, &node, &mask, &err), UTILSIM_OK);
  EXPECT_STREQ(node, "small");
  EXPECT_EQ(mask, 0xFu);
  const char* text = nullptr;
  ASSERT_EQ(utilsim_placement_text(p, &text, &err), UTILSIM_OK);
  EXPECT_STREQ(text, "small:0,1,2,3");
  EXPECT_EQ(utilsim_placement_task(p, 1, &node, &mask, &err), UTILSIM_NOT_FOUND);
  EXPECT_EQ(Take(&err), "utilsim_placement_task: task 1 of 1");

  utilsim_job_demand two{};
  two.gpus = 2;
  utilsim_placement_list* list = nullptr;
  ASSERT_EQ(utilsim_placer_rank(pl, &two, 5, &list, &err), UTILSIM_OK);
  size_t count = 0;
  ASSERT_EQ(utilsim_placement_list_count(list, &count, &err), UTILSIM_OK);
  ASSERT_EQ(count, 3u);
  const char* expected[] = {"small:0,1", "t4:0,1", "big:0,1"};
  for (size_t i = 0; i < count; ++i) {
    const utilsim_placement* c = nullptr;
    ASSERT_EQ(utilsim_placement_list_get(list, i, &c, &err), UTILSIM_OK);
    ASSERT_EQ(utilsim_placement_text(c, &text, &err), UTILSIM_OK);
    EXPECT_STREQ(text, expected[i]);
  }
  utilsim_placement_list_free(list);

  // a starts where the policy said; then 4 GPUs go to t4.
  ASSERT_EQ(utilsim_placer_started(pl, &a, p, &err), UTILSIM_OK) << Take(&err);
  EXPECT_EQ(utilsim_placer_started(pl, &a, p, &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "job 'a' is running already");
  utilsim_placement_free(p);
  utilsim_job_demand four{};
  four.gpus = 4;
  ASSERT_EQ(utilsim_placer_place(pl, &four, &p, &err), UTILSIM_OK);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(utilsim_placement_text(p, &text, &err), UTILSIM_OK);
  EXPECT_STREQ(text, "t4:0,1,2,3");
  utilsim_placement_free(p);

  // The JSON protocol sees a on small.
  char* resp = nullptr;
  ASSERT_EQ(utilsim_decide(pl, R"({"op":"state","node":"small"})", &resp, &err), UTILSIM_OK);
  EXPECT_STREQ(resp,
               R"({"ok":true,"running":1,"nodes":[{"name":"small","gpu_model":"V100","gpus":4,)"
               R"("free_gpus":0,"gpu_free_milli":[0,0,0,0],"free_cpu_milli":24000,)"
               R"("free_mem_bytes":274877906944,"tasks":1,"drained":false}]})");
  utilsim_string_free(resp);
  ASSERT_EQ(utilsim_decide(pl, R"({"op":"finished","id":"a"})", &resp, &err), UTILSIM_OK);
  EXPECT_STREQ(resp, R"({"ok":true,"id":"a","running":0})");
  utilsim_string_free(resp);
  // ... and the struct calls see it finished.
  EXPECT_EQ(utilsim_placer_finished(pl, "a", &err), UTILSIM_NOT_FOUND);
  EXPECT_EQ(Take(&err), "job 'a' is not running");
  ASSERT_EQ(utilsim_placer_place(pl, &four, &p, &err), UTILSIM_OK);
  ASSERT_EQ(utilsim_placement_text(p, &text, &err), UTILSIM_OK);
  EXPECT_STREQ(text, "small:0,1,2,3");
  utilsim_placement_free(p);

  // A protocol error: the response, and the same status and message.
  ASSERT_EQ(utilsim_decide(pl, "{\"op\":\"drain\",\"node\":\"nope\"}", &resp, &err),
            UTILSIM_NOT_FOUND);
  EXPECT_STREQ(resp, R"({"ok":false,"error":{"code":"not_found","message":"no node 'nope'"}})");
  EXPECT_EQ(Take(&err), "no node 'nope'");
  utilsim_string_free(resp);
  ASSERT_EQ(utilsim_decide(pl, "{", &resp, &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_TRUE(Has(resp, "request: not JSON")) << resp;
  utilsim_string_free(resp);
  Take(&err);

  // Drain through the struct calls: nothing V100 fits on big or small then.
  ASSERT_EQ(utilsim_placer_drain(pl, "big", 1, &err), UTILSIM_OK);
  ASSERT_EQ(utilsim_placer_drain(pl, "small", 1, &err), UTILSIM_OK);
  utilsim_job_demand v100{};
  v100.gpus = 1;
  v100.gpu_model = "V100";
  p = reinterpret_cast<utilsim_placement*>(&v100);  // overwritten with NULL: no fit
  ASSERT_EQ(utilsim_placer_place(pl, &v100, &p, &err), UTILSIM_OK);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(utilsim_placer_drain(pl, "nope", 1, &err), UTILSIM_NOT_FOUND);
  EXPECT_EQ(Take(&err), "no node 'nope'");
  ASSERT_EQ(utilsim_placer_drain(pl, "small", 0, &err), UTILSIM_OK);
  ASSERT_EQ(utilsim_placer_place(pl, &v100, &p, &err), UTILSIM_OK);
  ASSERT_NE(p, nullptr);
  utilsim_placement_free(p);

  // A placement of the caller's own, on an unknown node, and one that does
  // not fit.
  utilsim_placement* mine = nullptr;
  ASSERT_EQ(utilsim_placement_create(&mine, &err), UTILSIM_OK);
  ASSERT_EQ(utilsim_placement_add_task(mine, "gpu-9", 0x1, &err), UTILSIM_OK);
  utilsim_job_demand b{};
  b.id = "b";
  b.gpus = 1;
  EXPECT_EQ(utilsim_placer_started(pl, &b, mine, &err), UTILSIM_NOT_FOUND);
  EXPECT_EQ(Take(&err), "where: task 0: no node 'gpu-9' in the cluster");
  utilsim_placement_free(mine);
  ASSERT_EQ(utilsim_placement_create(&mine, &err), UTILSIM_OK);
  ASSERT_EQ(utilsim_placement_add_task(mine, "t4", 0x3, &err), UTILSIM_OK);
  ASSERT_EQ(utilsim_placement_text(mine, &text, &err), UTILSIM_OK);
  EXPECT_STREQ(text, "t4:0,1");
  EXPECT_EQ(utilsim_placer_started(pl, &b, mine, &err), UTILSIM_INVALID_ARGUMENT);  // 2 != 1 GPU
  EXPECT_TRUE(Has(Take(&err), "job 'b': "));
  b.gpus = 2;
  EXPECT_EQ(utilsim_placer_started(pl, &b, mine, &err), UTILSIM_OK) << Take(&err);
  utilsim_placement_free(mine);

  // Bad demands and NULLs.
  utilsim_job_demand bad{};
  bad.gpus = 2;
  bad.gpu_milli = 500;
  EXPECT_EQ(utilsim_placer_place(pl, &bad, &p, &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err),
            "job.gpu_milli: expected 1000 unless gpus is 1 (a share of one GPU), got 500");
  bad = utilsim_job_demand{};
  bad.gpus = 65;
  EXPECT_EQ(utilsim_placer_place(pl, &bad, &p, &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "job.gpus: expected 0..64, got 65");
  EXPECT_EQ(utilsim_placer_place(pl, nullptr, &p, &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "utilsim_placer_place: job is NULL");
  ASSERT_EQ(utilsim_placement_create(&mine, &err), UTILSIM_OK);
  EXPECT_EQ(utilsim_placer_started(pl, &four, mine, &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "utilsim_placer_started: job.id: required (the job's id)");
  utilsim_placement_free(mine);
  EXPECT_EQ(utilsim_decide(pl, nullptr, &resp, &err), UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "utilsim_decide: request is NULL");
  utilsim_placer_free(pl);

  // Creation errors.
  EXPECT_EQ(utilsim_placer_create(cluster.c_str(), "best-fitt", nullptr, 1, &pl, &err),
            UTILSIM_NOT_FOUND);
  EXPECT_TRUE(Has(Take(&err), "best-fitt"));
  EXPECT_EQ(utilsim_placer_create("/nonexistent.yaml", "best-fit", nullptr, 1, &pl, &err),
            UTILSIM_NOT_FOUND);
  EXPECT_EQ(Take(&err), "/nonexistent.yaml: no such file");
  EXPECT_EQ(
      utilsim_placer_create(Fixture("cli/jobs.csv").c_str(), "best-fit", nullptr, 1, &pl, &err),
      UTILSIM_INVALID_ARGUMENT);
  Take(&err);
  EXPECT_EQ(utilsim_placer_create(cluster.c_str(), "best-fit", "/nonexistent/p.yaml", 1, &pl, &err),
            UTILSIM_INVALID_ARGUMENT);
  Take(&err);
  EXPECT_EQ(utilsim_placer_create(nullptr, "best-fit", nullptr, 1, &pl, &err),
            UTILSIM_INVALID_ARGUMENT);
  EXPECT_EQ(Take(&err), "utilsim_placer_create: cluster_yaml is NULL");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
