// Reading rows back into records: the inverse of the row builders in
// result_schema.cc, reading the cells in the same column order.
#include <cmath>
#include <optional>
#include <string>

#include "result_schema.h"
#include "utilsim/engine/units.h"

namespace utilsim::results {
namespace {

// Reads the cells of a row in column order, remembering the first error.
class RowReader {
 public:
  RowReader(const Table& table, const std::vector<Cell>& row) : table_(table), row_(row) {
    if (row.size() != table.columns.size()) {
      Fail(std::string("table ") + table.name + ": " + std::to_string(row.size()) +
           " columns, expected " + std::to_string(table.columns.size()));
    }
  }

  void Skip() { ++next_; }
  int64_t Int() {
    const Cell& c = Next();
    if (c.kind != Cell::Kind::kInt) Bad();
    return c.i;
  }
  // NULL reads back as NaN (NaN is written as NULL).
  double Real() {
    const Cell& c = Next();
    if (c.kind == Cell::Kind::kReal) return c.d;
    if (c.kind == Cell::Kind::kInt) return static_cast<double>(c.i);
    if (c.kind != Cell::Kind::kNull) Bad();
    return std::nan("");
  }
  std::string Text() {
    const Cell& c = Next();
    if (c.kind == Cell::Kind::kText) return std::string(c.s);
    if (c.kind != Cell::Kind::kNull) Bad();
    return "";
  }
  // A count stored as a REAL in thousandths (milli-GPU stored as GPUs).
  int64_t Milli() {
    double v = Real();
    if (!std::isfinite(v) || std::fabs(v) > 9e15) {
      Bad();
      return 0;
    }
    return std::llround(v * kMilliPerUnit);
  }
  // NULL reads back as Micros(-1) when `nullable`.
  Micros Time(bool nullable = false) {
    const Cell& c = Next();
    if (nullable && c.kind == Cell::Kind::kNull) return Micros(-1);
    double s = c.kind == Cell::Kind::kInt ? static_cast<double>(c.i) : c.d;
    std::optional<Micros> t;
    if (c.kind == Cell::Kind::kInt || c.kind == Cell::Kind::kReal) t = FromSeconds(s);
    if (!t) {
      Bad();
      return Micros(0);
    }
    return *t;
  }

  Status status() const { return error_.empty() ? Status::Ok() : Status::Error(error_); }

 private:
  const Cell& Next() {
    static const Cell kNull;
    current_ = next_++;
    return current_ < row_.size() && error_.empty() ? row_[current_] : kNull;
  }
  void Bad() {
    if (current_ < table_.columns.size()) {
      Fail(std::string("table ") + table_.name + ", column " + table_.columns[current_].name +
           ": bad value");
    }
  }
  void Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }

  const Table& table_;
  const std::vector<Cell>& row_;
  size_t next_ = 1;  // column 0 is run_id, read by the caller
  size_t current_ = 0;
  std::string error_;
};

}  // namespace

Status ParseRunRow(const std::vector<Cell>& row, RunResult* run) {
  RowReader r(RunsTable(), row);
  RunMeta& m = run->meta;
  m.label = r.Text();
  m.utilsim_version = r.Text();
  m.queue_policy = r.Text();
  m.queue_policy_version = r.Text();
  m.placement_policy = r.Text();
  m.placement_policy_version = r.Text();
  m.seed = static_cast<uint64_t>(r.Int());
  m.input_digest = r.Text();
  m.workload_source = r.Text();
  m.cluster_name = r.Text();
  m.sample_interval = r.Time();
  m.series = r.Text();
  m.sample_start = r.Time();
  m.sample_count = r.Int();
  if (m.series != "changes" && m.series != "samples")
    return Status::Error("table runs, column series: \"" + m.series +
                         "\", expected changes or samples");
  m.progress_model = r.Text();
  m.notes = r.Text();
  for (const SummaryField& f : SummaryFields()) {
    if (f.count) run->summary.*f.count = r.Int();
    if (f.time) run->summary.*f.time = r.Time();
    if (f.real) run->summary.*f.real = r.Real();
    if (f.slot) *f.slot(&run->summary) = r.Real();
  }
  return r.status();
}

Status ParseJobRow(const std::vector<Cell>& row, JobRecord* j) {
  RowReader r(JobsTable(), row);
  j->job = static_cast<JobIndex>(r.Int());
  j->name = r.Text();
  j->tenant = static_cast<uint32_t>(r.Int());
  std::string outcome = r.Text();
  j->reason = r.Text();
  j->submit = r.Time();
  j->start = r.Time(/*nullable=*/true);
  j->finish = r.Time(/*nullable=*/true);
  r.Skip();                // wait_s
  j->queued_s = r.Real();  // NULL (NaN) for rejected jobs
  if (std::isnan(j->queued_s)) j->queued_s = -1;
  r.Skip();  // jct_s
  j->recorded_runtime = r.Time();
  j->tasks = static_cast<int32_t>(r.Int());
  j->gpu_milli = r.Milli();
  j->placement = r.Text();
  j->preemptions = static_cast<int32_t>(r.Int());
  j->alloc_gpu_s = r.Real();
  j->useful_gpu_s = r.Real();
  r.Skip();  // idle_gpu_s, the sum of the causes
  for (double& v : j->idle_gpu_s) v = r.Real();
  j->energy_kwh = r.Real();
  j->idle_energy_kwh = r.Real();
  for (double& v : j->wait_cause_s) v = r.Real();
  j->interruptions = static_cast<int32_t>(r.Int());
  j->lost_gpu_s = r.Real();
  j->ettr = r.Real();  // NULL (NaN) when the job never started
  if (std::isnan(j->ettr)) j->ettr = -1;
  if (!r.status().ok()) return r.status();
  for (JobOutcome o : {JobOutcome::kFinished, JobOutcome::kRejected, JobOutcome::kUnfinished,
                       JobOutcome::kKilled}) {
    if (outcome == JobOutcomeName(o)) {
      j->outcome = o;
      return Status::Ok();
    }
  }
  return Status::Error("table jobs, column outcome: unknown outcome '" + outcome + "'");
}

Status ParseSampleRow(const std::vector<Cell>& row, Sample* s, const Table& table) {
  RowReader r(table, row);
  s->time = r.Time();
  s->gpus_allocated = r.Real();
  s->gpus_busy = r.Real();
  s->queued = r.Int();
  s->running = r.Int();
  s->cpu_allocated_frac = r.Real();
  s->mem_allocated_frac = r.Real();
  s->gpus_free_whole = r.Int();
  s->gpus_stranded = r.Int();
  for (double& v : s->gpus_idle) v = r.Real();
  s->frag_gpu_milli = r.Real();
  s->power_w = r.Real();
  s->gpus_down = r.Int();
  return r.status();
}

Status ParseWaitRow(const std::vector<Cell>& row, std::vector<JobRecord>* jobs) {
  RowReader r(WaitsTable(), row);
  const int64_t job = r.Int();
  WaitInterval w;
  w.from = r.Time();
  w.to = r.Time();
  const std::string cause = r.Text();
  const double blocker = r.Real();  // NULL: none
  double counts[7];
  for (double& v : counts) v = r.Real();  // NULL: not recorded
  w.estimate = r.Time(/*nullable=*/true);
  if (w.estimate.us < 0) w.estimate = kNever;
  if (!r.status().ok()) return r.status();
  if (!std::isnan(counts[0])) {
    w.nodes.known = true;
    int32_t* out[] = {&w.nodes.model, &w.nodes.gpus,        &w.nodes.cpu,  &w.nodes.mem,
                      &w.nodes.fits,  &w.nodes.unavailable, &w.nodes.power};
    for (int k = 0; k < 7; ++k) *out[k] = static_cast<int32_t>(counts[k]);
  }
  if (!ParseWaitCause(cause, &w.cause))
    return Status::Error("table waits, column cause: unknown cause '" + cause + "'");
  if (!std::isnan(blocker)) {
    if (blocker < 0 || blocker >= static_cast<double>(jobs->size()))
      return Status::Error("table waits, column blocker_index: no job " +
                           std::to_string(static_cast<int64_t>(blocker)));
    w.blocker = static_cast<JobIndex>(blocker);
  }
  // Jobs are stored in job order, one row each: the index is the position.
  if (job < 0 || job >= static_cast<int64_t>(jobs->size()) ||
      (*jobs)[static_cast<size_t>(job)].job != static_cast<JobIndex>(job))
    return Status::Error("table waits, column job_index: no job " + std::to_string(job));
  (*jobs)[static_cast<size_t>(job)].waits.push_back(w);
  return Status::Ok();
}

}  // namespace utilsim::results
