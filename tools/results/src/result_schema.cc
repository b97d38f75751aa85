#include "result_schema.h"

#include <cstddef>
#include <string>
#include <utility>

#include "utilsim/engine/units.h"
#include "utilsim/results/result_store.h"

namespace utilsim::results {
namespace {

constexpr size_t kCauses = static_cast<size_t>(IdleCause::kCount);

SummaryField Count(const char* n, int64_t Summary::*p) { return {n, p, nullptr, nullptr}; }
SummaryField Time(const char* n, Micros Summary::*p) { return {n, nullptr, p, nullptr}; }
SummaryField Real(const char* n, double Summary::*p) { return {n, nullptr, nullptr, p}; }

template <size_t I>
double* EnergyIdle(Summary* s) {
  return &s->energy_idle_kwh[I];
}
template <size_t I>
double* WaitHours(Summary* s) {
  return &s->wait_cause_h[I];
}
template <size_t... I>
void AddEnergyIdle(std::vector<SummaryField>* f, std::index_sequence<I...>) {
  (f->push_back({std::string("energy_idle_") + IdleCauseName(static_cast<IdleCause>(I)) + "_kwh",
                 nullptr, nullptr, nullptr, &EnergyIdle<I>}),
   ...);
}
template <size_t... I>
void AddWaitHours(std::vector<SummaryField>* f, std::index_sequence<I...>) {
  (f->push_back({"wait_" + WaitCauseColumn(static_cast<WaitCause>(I)) + "_h", nullptr, nullptr,
                 nullptr, &WaitHours<I>}),
   ...);
}

std::string WaitColumn(size_t cause) {
  return "wait_" + WaitCauseColumn(static_cast<WaitCause>(cause)) + "_s";
}

std::string IdleColumn(size_t cause) {
  return std::string("idle_") + IdleCauseName(static_cast<IdleCause>(cause)) + "_gpu_s";
}

Cell TimeCell(Micros t) { return Cell::Real(t.seconds()); }
// Negative times mean "never" (start/finish of a job that did not get there).
Cell OptionalTimeCell(Micros t) { return t.us < 0 ? Cell::Null() : TimeCell(t); }
// Seconds from `from` to `to`, NULL when `to` never happened.
Cell SpanCell(Micros from, Micros to) {
  return to.us < 0 ? Cell::Null() : Cell::Real((to - from).seconds());
}

}  // namespace

const std::vector<SummaryField>& SummaryFields() {
  static const std::vector<SummaryField> kFields = [] {
    std::vector<SummaryField> f = {
        Count("jobs", &Summary::jobs),
        Count("finished", &Summary::finished),
        Count("rejected", &Summary::rejected),
        Count("unfinished", &Summary::unfinished),
        Count("killed", &Summary::killed),
        Count("capacity_gpus", &Summary::capacity_gpus),
        Time("window_start_s", &Summary::window_start),
        Time("window_end_s", &Summary::window_end),
        Real("alloc_gpu_h", &Summary::alloc_gpu_h),
        Real("useful_gpu_h", &Summary::useful_gpu_h),
        Real("idle_alloc_gpu_h", &Summary::idle_alloc_gpu_h),
        Real("allocation_pct", &Summary::allocation_pct),
        Real("effective_util_pct", &Summary::effective_util_pct),
        Real("price_per_gpu_h", &Summary::price_per_gpu_h),
        Real("idle_cost", &Summary::idle_cost),
        Real("idle_input_gpu_h", &Summary::idle_input_gpu_h),
        Real("idle_storage_gpu_h", &Summary::idle_storage_gpu_h),
        Real("idle_communication_gpu_h", &Summary::idle_comm_gpu_h),
        Real("idle_fixed_gpu_h", &Summary::idle_fixed_gpu_h),
        Real("idle_sharing_gpu_h", &Summary::idle_sharing_gpu_h),
        Real("idle_unattributed_gpu_h", &Summary::idle_unattributed_gpu_h),
        Real("stranded_gpu_h", &Summary::stranded_gpu_h),
        Real("cpu_alloc_pct", &Summary::cpu_alloc_pct),
        Real("mem_alloc_pct", &Summary::mem_alloc_pct),
        Real("frag_mean_pct", &Summary::frag_mean_pct),
        Real("wait_mean_s", &Summary::wait_mean_s),
        Real("wait_p50_s", &Summary::wait_p50_s),
        Real("wait_p95_s", &Summary::wait_p95_s),
        Real("wait_p99_s", &Summary::wait_p99_s),
        Real("wait_max_s", &Summary::wait_max_s),
        Real("queued_mean_s", &Summary::queued_mean_s),
        Real("queued_p50_s", &Summary::queued_p50_s),
        Real("queued_p95_s", &Summary::queued_p95_s),
        Real("queued_p99_s", &Summary::queued_p99_s),
        Real("queued_max_s", &Summary::queued_max_s),
        Real("jct_mean_s", &Summary::jct_mean_s),
        Real("jct_p50_s", &Summary::jct_p50_s),
        Real("jct_p95_s", &Summary::jct_p95_s),
        Real("slowdown_mean", &Summary::slowdown_mean),
        Real("slowdown_p50", &Summary::slowdown_p50),
        Real("slowdown_p95", &Summary::slowdown_p95),
        Real("makespan_s", &Summary::makespan_s),
        Real("tenant_fairness", &Summary::tenant_fairness),
        Count("events", &Summary::events),
        Real("energy_it_kwh", &Summary::energy_it_kwh),
        Real("energy_busy_kwh", &Summary::energy_busy_kwh),
        Real("energy_alloc_idle_kwh", &Summary::energy_alloc_idle_kwh),
    };
    AddEnergyIdle(&f, std::make_index_sequence<kCauses>());
    for (SummaryField x :
         {Real("energy_free_kwh", &Summary::energy_free_kwh),
          Real("energy_stranded_kwh", &Summary::energy_stranded_kwh),
          Real("energy_node_kwh", &Summary::energy_node_kwh), Real("pue", &Summary::pue),
          Real("energy_facility_kwh", &Summary::energy_facility_kwh),
          Real("energy_price_per_kwh", &Summary::energy_price_per_kwh),
          Real("energy_cost", &Summary::energy_cost),
          Real("idle_alloc_energy_cost", &Summary::idle_alloc_energy_cost),
          Real("off_gpu_h", &Summary::off_gpu_h), Count("wakeups", &Summary::wakeups)})
      f.push_back(x);
    AddWaitHours(&f, std::make_index_sequence<kWaitCauses>());
    for (SummaryField x :
         {Real("down_absent_gpu_h", &Summary::down_absent_gpu_h),
          Real("down_maintenance_gpu_h", &Summary::down_maintenance_gpu_h),
          Real("down_failure_gpu_h", &Summary::down_failure_gpu_h),
          Count("interruptions", &Summary::interruptions), Real("lost_gpu_h", &Summary::lost_gpu_h),
          Real("ettr_mean", &Summary::ettr_mean), Real("ettr_p5", &Summary::ettr_p5)})
      f.push_back(x);
    return f;
  }();
  return kFields;
}

const Table& RunsTable() {
  static const Table kTable = [] {
    using T = ColumnType;
    Table t{"runs",
            {{"run_id", T::kInteger},
             {"label", T::kText},
             {"utilsim_version", T::kText},
             {"queue_policy", T::kText},
             {"queue_policy_version", T::kText},
             {"placement_policy", T::kText},
             {"placement_policy_version", T::kText},
             {"seed", T::kInteger},
             {"input_digest", T::kText},
             {"workload_source", T::kText},
             {"cluster_name", T::kText},
             {"sample_interval_s", T::kReal},
             {"series", T::kText},
             {"sample_start_s", T::kReal},
             {"sample_count", T::kInteger},
             {"progress_model", T::kText},
             {"notes", T::kText}}};
    for (const SummaryField& f : SummaryFields()) {
      t.columns.push_back({f.name, f.count ? T::kInteger : T::kReal});
    }
    return t;
  }();
  return kTable;
}

const Table& JobsTable() {
  static const Table kTable = [] {
    using T = ColumnType;
    Table t{"jobs",
            {{"run_id", T::kInteger},
             {"job_index", T::kInteger},
             {"name", T::kText},
             {"tenant", T::kInteger},
             {"outcome", T::kText},
             {"reason", T::kText},
             {"submit_s", T::kReal},
             {"start_s", T::kReal},
             {"finish_s", T::kReal},
             {"wait_s", T::kReal},
             {"queued_s", T::kReal},
             {"jct_s", T::kReal},
             {"recorded_runtime_s", T::kReal},
             {"tasks", T::kInteger},
             {"gpus", T::kReal},
             {"placement", T::kText},
             {"preemptions", T::kInteger},
             {"alloc_gpu_s", T::kReal},
             {"useful_gpu_s", T::kReal},
             {"idle_gpu_s", T::kReal}}};
    for (size_t c = 0; c < kCauses; ++c) t.columns.push_back({IdleColumn(c), T::kReal});
    t.columns.push_back({"energy_kwh", T::kReal});
    t.columns.push_back({"idle_energy_kwh", T::kReal});
    for (size_t c = 0; c < kWaitCauses; ++c) t.columns.push_back({WaitColumn(c), T::kReal});
    t.columns.push_back({"interruptions", T::kInteger});
    t.columns.push_back({"lost_gpu_s", T::kReal});
    t.columns.push_back({"ettr", T::kReal});
    return t;
  }();
  return kTable;
}

namespace {
// The columns of a state of the cluster (Sample), in table `name`.
Table StateTable(const char* name) {
  using T = ColumnType;
  Table t{name,
          {{"run_id", T::kInteger},
           {"time_s", T::kReal},
           {"gpus_allocated", T::kReal},
           {"gpus_busy", T::kReal},
           {"queued", T::kInteger},
           {"running", T::kInteger},
           {"cpu_allocated_frac", T::kReal},
           {"mem_allocated_frac", T::kReal},
           {"gpus_free_whole", T::kInteger},
           {"gpus_stranded", T::kInteger}}};
  for (size_t c = 0; c < kCauses; ++c)
    t.columns.push_back(
        {std::string("idle_") + IdleCauseName(static_cast<IdleCause>(c)) + "_gpus", T::kReal});
  t.columns.push_back({"frag_gpu_milli", T::kReal});
  t.columns.push_back({"power_w", T::kReal});
  t.columns.push_back({"gpus_down", T::kInteger});
  return t;
}
}  // namespace

const Table& SamplesTable() {
  static const Table kTable = StateTable("interval_samples");
  return kTable;
}

const Table& ChangePointsTable() {
  static const Table kTable = StateTable("change_points");
  return kTable;
}

const Table& WaitsTable() {
  static const Table kTable = [] {
    using T = ColumnType;
    return Table{"waits",
                 {{"run_id", T::kInteger},
                  {"job_index", T::kInteger},
                  {"from_s", T::kReal},
                  {"to_s", T::kReal},
                  {"cause", T::kText},
                  {"blocker_index", T::kInteger},
                  {"nodes_model", T::kInteger},
                  {"nodes_gpus", T::kInteger},
                  {"nodes_cpu", T::kInteger},
                  {"nodes_mem", T::kInteger},
                  {"nodes_fit", T::kInteger},
                  {"nodes_unavailable", T::kInteger},
                  {"nodes_power", T::kInteger},
                  {"est_start_s", T::kReal}}};
  }();
  return kTable;
}

void WaitRow(int64_t run_id, JobIndex job, const WaitInterval& w, std::vector<Cell>* row) {
  *row = {Cell::Int(run_id),
          Cell::Int(job),
          TimeCell(w.from),
          TimeCell(w.to),
          Cell::Text(WaitCauseName(w.cause)),
          w.blocker == kNoBlocker ? Cell::Null() : Cell::Int(w.blocker)};
  const NodeCounts& n = w.nodes;
  for (int32_t v : {n.model, n.gpus, n.cpu, n.mem, n.fits, n.unavailable, n.power})
    row->push_back(n.known ? Cell::Int(v) : Cell::Null());
  row->push_back(w.estimate == kNever ? Cell::Null() : TimeCell(w.estimate));
}

void RunRow(int64_t run_id, const RunResult& run, std::vector<Cell>* row) {
  const RunMeta& m = run.meta;
  *row = {Cell::Int(run_id),
          Cell::Text(m.label),
          Cell::Text(m.utilsim_version),
          Cell::Text(m.queue_policy),
          Cell::Text(m.queue_policy_version),
          Cell::Text(m.placement_policy),
          Cell::Text(m.placement_policy_version),
          Cell::Int(static_cast<int64_t>(m.seed)),
          Cell::Text(m.input_digest),
          Cell::Text(m.workload_source),
          Cell::Text(m.cluster_name),
          TimeCell(m.sample_interval),
          Cell::Text(m.series),
          TimeCell(m.sample_start),
          Cell::Int(m.sample_count),
          Cell::Text(m.progress_model),
          Cell::Text(m.notes)};
  for (const SummaryField& f : SummaryFields()) {
    if (f.count) row->push_back(Cell::Int(run.summary.*f.count));
    if (f.time) row->push_back(TimeCell(run.summary.*f.time));
    if (f.real) row->push_back(Cell::Real(run.summary.*f.real));
    if (f.slot) row->push_back(Cell::Real(*f.slot(const_cast<Summary*>(&run.summary))));
  }
}

void JobRow(int64_t run_id, const JobRecord& j, std::vector<Cell>* row) {
  double idle = 0;
  for (double v : j.idle_gpu_s) idle += v;
  *row = {Cell::Int(run_id),
          Cell::Int(j.job),
          Cell::Text(j.name),
          Cell::Int(j.tenant),
          Cell::Text(JobOutcomeName(j.outcome)),
          Cell::Text(j.reason),
          TimeCell(j.submit),
          OptionalTimeCell(j.start),
          OptionalTimeCell(j.finish),
          SpanCell(j.submit, j.start),
          j.queued_s < 0 ? Cell::Null() : Cell::Real(j.queued_s),
          SpanCell(j.submit, j.finish),
          TimeCell(j.recorded_runtime),
          Cell::Int(j.tasks),
          Cell::Real(static_cast<double>(j.gpu_milli) / kMilliPerUnit),
          Cell::Text(j.placement),
          Cell::Int(j.preemptions),
          Cell::Real(j.alloc_gpu_s),
          Cell::Real(j.useful_gpu_s),
          Cell::Real(idle)};
  for (double v : j.idle_gpu_s) row->push_back(Cell::Real(v));
  row->push_back(Cell::Real(j.energy_kwh));
  row->push_back(Cell::Real(j.idle_energy_kwh));
  for (double v : j.wait_cause_s) row->push_back(Cell::Real(v));
  row->push_back(Cell::Int(j.interruptions));
  row->push_back(Cell::Real(j.lost_gpu_s));
  row->push_back(j.ettr < 0 ? Cell::Null() : Cell::Real(j.ettr));
}

void SampleRow(int64_t run_id, const Sample& s, std::vector<Cell>* row) {
  *row = {Cell::Int(run_id),
          TimeCell(s.time),
          Cell::Real(s.gpus_allocated),
          Cell::Real(s.gpus_busy),
          Cell::Int(s.queued),
          Cell::Int(s.running),
          Cell::Real(s.cpu_allocated_frac),
          Cell::Real(s.mem_allocated_frac),
          Cell::Int(s.gpus_free_whole),
          Cell::Int(s.gpus_stranded)};
  for (double v : s.gpus_idle) row->push_back(Cell::Real(v));
  row->push_back(Cell::Real(s.frag_gpu_milli));  // NaN is written as NULL
  row->push_back(Cell::Real(s.power_w));
  row->push_back(Cell::Int(s.gpus_down));
}

}  // namespace utilsim::results
