// A run's results for Python: the summary and identity as dicts, the jobs
// and samples as columns of numpy arrays (utilsim/__init__.py makes the
// pandas DataFrames), named like the results database's columns
// (docs/results.md; tests/python checks the names against a database).
#include "py_results.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <string>

#include "utilsim/results/result_store.h"

namespace utilsim::python {
namespace {

constexpr size_t kCauses = static_cast<size_t>(IdleCause::kCount);
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A column of n values computed by f(i).
template <typename T, typename F>
py::array_t<T> Column(size_t n, F f) {
  py::array_t<T> a(static_cast<py::ssize_t>(n));
  auto w = a.template mutable_unchecked<1>();
  for (size_t i = 0; i < n; ++i) w(static_cast<py::ssize_t>(i)) = f(i);
  return a;
}
template <typename F>
py::list TextColumn(size_t n, F f) {
  py::list l(n);
  for (size_t i = 0; i < n; ++i) l[i] = py::str(f(i));
  return l;
}
// Seconds of a time, NaN for "never" (the database's NULL).
double OptionalSeconds(Micros t) { return t.us < 0 ? kNaN : t.seconds(); }
double Span(Micros from, Micros to) { return to.us < 0 ? kNaN : (to - from).seconds(); }

}  // namespace

py::dict SummaryDict(const Summary& s) {
  py::dict d;
  d["jobs"] = s.jobs;
  d["finished"] = s.finished;
  d["rejected"] = s.rejected;
  d["unfinished"] = s.unfinished;
  d["killed"] = s.killed;
  d["capacity_gpus"] = s.capacity_gpus;
  d["window_start_s"] = s.window_start.seconds();
  d["window_end_s"] = s.window_end.seconds();
  d["alloc_gpu_h"] = s.alloc_gpu_h;
  d["useful_gpu_h"] = s.useful_gpu_h;
  d["idle_alloc_gpu_h"] = s.idle_alloc_gpu_h;
  d["allocation_pct"] = s.allocation_pct;
  d["effective_util_pct"] = s.effective_util_pct;
  d["price_per_gpu_h"] = s.price_per_gpu_h;
  d["idle_cost"] = s.idle_cost;
  d["idle_input_gpu_h"] = s.idle_input_gpu_h;
  d["idle_storage_gpu_h"] = s.idle_storage_gpu_h;
  d["idle_communication_gpu_h"] = s.idle_comm_gpu_h;
  d["idle_fixed_gpu_h"] = s.idle_fixed_gpu_h;
  d["idle_sharing_gpu_h"] = s.idle_sharing_gpu_h;
  d["idle_unattributed_gpu_h"] = s.idle_unattributed_gpu_h;
  d["stranded_gpu_h"] = s.stranded_gpu_h;
  d["cpu_alloc_pct"] = s.cpu_alloc_pct;
  d["mem_alloc_pct"] = s.mem_alloc_pct;
  d["frag_mean_pct"] = s.frag_mean_pct;
  d["wait_mean_s"] = s.wait_mean_s;
  d["wait_p50_s"] = s.wait_p50_s;
  d["wait_p95_s"] = s.wait_p95_s;
  d["wait_p99_s"] = s.wait_p99_s;
  d["wait_max_s"] = s.wait_max_s;
  d["queued_mean_s"] = s.queued_mean_s;
  d["queued_p50_s"] = s.queued_p50_s;
  d["queued_p95_s"] = s.queued_p95_s;
  d["queued_p99_s"] = s.queued_p99_s;
  d["queued_max_s"] = s.queued_max_s;
  d["jct_mean_s"] = s.jct_mean_s;
  d["jct_p50_s"] = s.jct_p50_s;
  d["jct_p95_s"] = s.jct_p95_s;
  d["slowdown_mean"] = s.slowdown_mean;
  d["slowdown_p50"] = s.slowdown_p50;
  d["slowdown_p95"] = s.slowdown_p95;
  d["makespan_s"] = s.makespan_s;
  d["tenant_fairness"] = s.tenant_fairness;
  d["events"] = s.events;
  d["energy_it_kwh"] = s.energy_it_kwh;
  d["energy_busy_kwh"] = s.energy_busy_kwh;
  d["energy_alloc_idle_kwh"] = s.energy_alloc_idle_kwh;
  for (size_t c = 0; c < kCauses; ++c)
    d[py::str(std::string("energy_idle_") + IdleCauseName(static_cast<IdleCause>(c)) + "_kwh")] =
        s.energy_idle_kwh[c];
  d["energy_free_kwh"] = s.energy_free_kwh;
  d["energy_stranded_kwh"] = s.energy_stranded_kwh;
  d["energy_node_kwh"] = s.energy_node_kwh;
  d["pue"] = s.pue;
  d["energy_facility_kwh"] = s.energy_facility_kwh;
  d["energy_price_per_kwh"] = s.energy_price_per_kwh;
  d["energy_cost"] = s.energy_cost;
  d["idle_alloc_energy_cost"] = s.idle_alloc_energy_cost;
  d["off_gpu_h"] = s.off_gpu_h;
  d["wakeups"] = s.wakeups;
  for (size_t c = 0; c < kWaitCauses; ++c)
    d[py::str("wait_" + WaitCauseColumn(static_cast<WaitCause>(c)) + "_h")] = s.wait_cause_h[c];
  d["down_absent_gpu_h"] = s.down_absent_gpu_h;
  d["down_maintenance_gpu_h"] = s.down_maintenance_gpu_h;
  d["down_failure_gpu_h"] = s.down_failure_gpu_h;
  d["interruptions"] = s.interruptions;
  d["lost_gpu_h"] = s.lost_gpu_h;
  d["ettr_mean"] = s.ettr_mean;
  d["ettr_p5"] = s.ettr_p5;
  return d;
}

py::dict MetaDict(const RunMeta& m) {
  py::dict d;
  d["label"] = m.label;
  d["utilsim_version"] = m.utilsim_version;
  d["queue_policy"] = m.queue_policy;
  d["queue_policy_version"] = m.queue_policy_version;
  d["placement_policy"] = m.placement_policy;
  d["placement_policy_version"] = m.placement_policy_version;
  d["queue_policy_params"] = m.queue_policy_params;  // not in the database (yet)
  d["placement_policy_params"] = m.placement_policy_params;
  d["seed"] = m.seed;
  d["input_digest"] = m.input_digest;
  d["workload_source"] = m.workload_source;
  d["cluster_name"] = m.cluster_name;
  d["sample_interval_s"] = m.sample_interval.seconds();
  d["series"] = m.series;
  d["sample_start_s"] = m.sample_start.seconds();
  d["sample_count"] = m.sample_count;
  d["progress_model"] = m.progress_model;
  d["notes"] = m.notes;
  return d;
}

py::dict JobColumns(const std::vector<JobRecord>& jobs) {
  const size_t n = jobs.size();
  const auto& J = jobs;
  py::dict d;
  d["job_index"] = Column<int64_t>(n, [&](size_t i) { return J[i].job; });
  d["name"] = TextColumn(n, [&](size_t i) { return J[i].name; });
  d["tenant"] = Column<int64_t>(n, [&](size_t i) { return J[i].tenant; });
  d["outcome"] = TextColumn(n, [&](size_t i) { return JobOutcomeName(J[i].outcome); });
  d["reason"] = TextColumn(n, [&](size_t i) { return J[i].reason; });
  d["submit_s"] = Column<double>(n, [&](size_t i) { return J[i].submit.seconds(); });
  d["start_s"] = Column<double>(n, [&](size_t i) { return OptionalSeconds(J[i].start); });
  d["finish_s"] = Column<double>(n, [&](size_t i) { return OptionalSeconds(J[i].finish); });
  d["wait_s"] = Column<double>(n, [&](size_t i) { return Span(J[i].submit, J[i].start); });
  d["queued_s"] =
      Column<double>(n, [&](size_t i) { return J[i].queued_s < 0 ? kNaN : J[i].queued_s; });
  d["jct_s"] = Column<double>(n, [&](size_t i) { return Span(J[i].submit, J[i].finish); });
  d["recorded_runtime_s"] =
      Column<double>(n, [&](size_t i) { return J[i].recorded_runtime.seconds(); });
  d["tasks"] = Column<int64_t>(n, [&](size_t i) { return J[i].tasks; });
  d["gpus"] =
      Column<double>(n, [&](size_t i) { return static_cast<double>(J[i].gpu_milli) / 1000.0; });
  d["placement"] = TextColumn(n, [&](size_t i) { return J[i].placement; });
  d["preemptions"] = Column<int64_t>(n, [&](size_t i) { return J[i].preemptions; });
  d["alloc_gpu_s"] = Column<double>(n, [&](size_t i) { return J[i].alloc_gpu_s; });
  d["useful_gpu_s"] = Column<double>(n, [&](size_t i) { return J[i].useful_gpu_s; });
  d["idle_gpu_s"] = Column<double>(n, [&](size_t i) {
    double idle = 0;  // summed in cause order, as the database does
    for (double v : J[i].idle_gpu_s) idle += v;
    return idle;
  });
  for (size_t c = 0; c < kCauses; ++c)
    d[py::str(std::string("idle_") + IdleCauseName(static_cast<IdleCause>(c)) + "_gpu_s")] =
        Column<double>(n, [&](size_t i) { return J[i].idle_gpu_s[c]; });
  d["energy_kwh"] = Column<double>(n, [&](size_t i) { return J[i].energy_kwh; });
  d["idle_energy_kwh"] = Column<double>(n, [&](size_t i) { return J[i].idle_energy_kwh; });
  for (size_t c = 0; c < kWaitCauses; ++c)
    d[py::str("wait_" + WaitCauseColumn(static_cast<WaitCause>(c)) + "_s")] =
        Column<double>(n, [&](size_t i) { return J[i].wait_cause_s[c]; });
  d["interruptions"] = Column<int64_t>(n, [&](size_t i) { return J[i].interruptions; });
  d["lost_gpu_s"] = Column<double>(n, [&](size_t i) { return J[i].lost_gpu_s; });
  d["ettr"] = Column<double>(n, [&](size_t i) { return J[i].ettr < 0 ? kNaN : J[i].ettr; });
  return d;
}

py::dict SampleColumns(const std::vector<Sample>& samples) {
  const size_t n = samples.size();
  const auto& S = samples;
  py::dict d;
  d["time_s"] = Column<double>(n, [&](size_t i) { return S[i].time.seconds(); });
  d["gpus_allocated"] = Column<double>(n, [&](size_t i) { return S[i].gpus_allocated; });
  d["gpus_busy"] = Column<double>(n, [&](size_t i) { return S[i].gpus_busy; });
  d["queued"] = Column<int64_t>(n, [&](size_t i) { return S[i].queued; });
  d["running"] = Column<int64_t>(n, [&](size_t i) { return S[i].running; });
  d["cpu_allocated_frac"] = Column<double>(n, [&](size_t i) { return S[i].cpu_allocated_frac; });
  d["mem_allocated_frac"] = Column<double>(n, [&](size_t i) { return S[i].mem_allocated_frac; });
  d["gpus_free_whole"] = Column<int64_t>(n, [&](size_t i) { return S[i].gpus_free_whole; });
  d["gpus_stranded"] = Column<int64_t>(n, [&](size_t i) { return S[i].gpus_stranded; });
  for (size_t c = 0; c < kCauses; ++c)
    d[py::str(std::string("idle_") + IdleCauseName(static_cast<IdleCause>(c)) + "_gpus")] =
        Column<double>(n, [&](size_t i) { return S[i].gpus_idle[c]; });
  d["frag_gpu_milli"] = Column<double>(n, [&](size_t i) { return S[i].frag_gpu_milli; });
  d["power_w"] = Column<double>(n, [&](size_t i) { return S[i].power_w; });
  d["gpus_down"] = Column<int64_t>(n, [&](size_t i) { return S[i].gpus_down; });
  return d;
}

void BindResults(py::module_& m) {
  py::class_<RunData, std::shared_ptr<RunData>>(m, "RunData",
                                                "One run's results (wrapped by utilsim.Run)")
      .def_property_readonly("label", [](const RunData& r) { return r.run.meta.label; })
      .def("summary", [](const RunData& r) { return SummaryDict(r.run.summary); })
      .def("meta", [](const RunData& r) { return MetaDict(r.run.meta); })
      .def("job_columns", [](const RunData& r) { return JobColumns(r.run.jobs); })
      .def("sample_columns", [](const RunData& r) { return SampleColumns(r.run.samples); })
      .def("change_point_columns", [](const RunData& r) { return SampleColumns(r.run.changes); })
      .def_property_readonly("num_jobs", [](const RunData& r) { return r.run.jobs.size(); })
      .def_property_readonly("num_samples", [](const RunData& r) { return r.run.samples.size(); });
  m.def(
      "read_results",
      [](const std::string& path) {
        Result<std::vector<RunResult>> runs = [&] {
          py::gil_scoped_release nogil;
          return ReadResults(path);
        }();
        if (!runs.ok()) ThrowStatus(runs.status());
        py::list out;
        for (auto& r : runs.value()) out.append(std::make_shared<RunData>(RunData{std::move(r)}));
        return out;
      },
      py::arg("path"));
  m.def(
      "write_results",
      [](const std::vector<std::shared_ptr<RunData>>& runs, const std::string& path) {
        std::vector<RunResult> all;
        for (const auto& r : runs) all.push_back(r->run);
        Status s;
        {
          py::gil_scoped_release nogil;
          s = WriteResults(all, path, OutputGuard{"", {}, false, "a SQLite results database"});
        }
        if (!s.ok()) ThrowStatus(s);
      },
      py::arg("runs"), py::arg("path"));
}

}  // namespace utilsim::python
