#include "utilsim/results/result_writer.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "result_schema.h"
#include "result_sql.h"
#include "sqlite_util.h"
#include "utilsim/traces/temp_file.h"

namespace utilsim {
namespace {

// Rows per batch, and batches in all (in the queue, being written, being
// filled): what the writer holds at most. A batch of 1,024 records is about
// 0.5 MB with their strings.
constexpr size_t kBatchJobs = 1024;
constexpr size_t kBatchSamples = 4096;
constexpr size_t kBatches = 4;

// Rows handed from the engine thread to the writer thread. Its vectors only
// grow: records are copy-assigned into the slots of a reused batch, so their
// strings and wait lists reuse what the slot already holds (no allocation in
// the steady state).
struct Batch {
  std::vector<JobRecord> jobs;
  size_t n_jobs = 0;
  std::vector<Sample> samples;
  size_t n_samples = 0;
  std::vector<Sample> points;  // change points
  size_t n_points = 0;
};

}  // namespace

struct ResultWriter::Impl {
  std::string path;
  OutputGuard guard;
  traces::TempFile tmp;
  results::Db db;
  results::Stmt insert_job, insert_sample, insert_point, insert_wait;
  std::vector<results::Cell> row;  // the writer thread's, then Commit's

  // Shared between the two threads, under `mu`.
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Batch*> full;  // filled, waiting to be written, in order
  std::vector<Batch*> free;
  bool closing = false;  // no more batches will come
  std::string error;     // the writer's first failure ("" = none)

  std::vector<std::unique_ptr<Batch>> batches;
  Batch* current = nullptr;  // being filled on the engine thread
  std::thread thread;

  std::optional<RunResult> end;  // meta and summary, once OnEnd came
  bool commit_called = false;

  // Writes one batch; returns "" or what failed.
  std::string Write(const Batch& b) {
    auto fail = [&](const char* what) { return path + ": " + what + ": " + db.message(); };
    for (size_t k = 0; k < b.n_jobs; ++k) {
      const JobRecord& j = b.jobs[k];
      results::JobRow(1, j, &row);
      if (!results::InsertRow(insert_job.get(), row)) return fail("cannot write jobs");
      for (const WaitInterval& w : j.waits) {
        results::WaitRow(1, j.job, w, &row);
        if (!results::InsertRow(insert_wait.get(), row)) return fail("cannot write waits");
      }
    }
    for (size_t k = 0; k < b.n_samples; ++k) {
      results::SampleRow(1, b.samples[k], &row);
      if (!results::InsertRow(insert_sample.get(), row)) return fail("cannot write samples");
    }
    for (size_t k = 0; k < b.n_points; ++k) {
      results::SampleRow(1, b.points[k], &row);
      if (!results::InsertRow(insert_point.get(), row)) return fail("cannot write change points");
    }
    return "";
  }

  // The writer thread: writes batches in order until closed. After a
  // failure it keeps recycling batches unwritten, so the engine never waits
  // on a writer that has stopped.
  void Loop() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return closing || !full.empty(); });
      if (full.empty()) return;  // closing, and everything written
      Batch* b = full.front();
      full.pop_front();
      const bool failed = !error.empty();
      lock.unlock();
      std::string what = failed ? std::string() : Write(*b);
      b->n_jobs = b->n_samples = b->n_points = 0;
      lock.lock();
      if (!what.empty() && error.empty()) error = std::move(what);
      free.push_back(b);
      cv.notify_all();
    }
  }

  // Engine thread: queues the current batch and takes a free one, waiting
  // for the writer when all are in use.
  void Flush() {
    std::unique_lock<std::mutex> lock(mu);
    full.push_back(current);
    cv.notify_all();
    cv.wait(lock, [&] { return !free.empty(); });
    current = free.back();
    free.pop_back();
  }

  // Engine thread: appends a row to the current batch (below).
  template <class Row>
  void Add(std::vector<Row>& rows, size_t& n, const Row& value, size_t limit);

  // Stops the writer thread after it has written what was queued.
  void Close() {
    if (!thread.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (current && (current->n_jobs || current->n_samples || current->n_points)) {
        full.push_back(current);
        current = nullptr;
      }
      closing = true;
    }
    cv.notify_all();
    thread.join();
  }
};

ResultWriter::ResultWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ResultWriter::~ResultWriter() {
  impl_->Close();  // the temporary file goes with impl_->tmp unless committed
}

Result<std::unique_ptr<ResultWriter>> ResultWriter::Open(const std::string& path,
                                                         const OutputGuard& guard) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  if (Status s = results::CheckResultsPath(path, guard, &impl->guard); !s.ok()) return s;
  if (Status s = impl->tmp.Create(path); !s.ok()) return s;
  impl->tmp.CloseFd();  // SQLite opens the (empty) file by name
  results::Db& db = impl->db;
  auto fail = [&](const std::string& what) {
    return Status::Error(path + ": " + what + ": " + db.message());
  };
  // Never follow a link. NOMUTEX: one thread at a time uses the connection
  // (this one, then the writer thread, then Commit's after the join).
  if (!db.Open(impl->tmp.path(),
               SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX)) {
    return fail("cannot create database");
  }
  if (!results::CreateResultSchema(db)) return fail("cannot create tables");
  if (!impl->insert_job.Prepare(db, results::InsertSql(results::JobsTable())) ||
      !impl->insert_sample.Prepare(db, results::InsertSql(results::SamplesTable())) ||
      !impl->insert_point.Prepare(db, results::InsertSql(results::ChangePointsTable())) ||
      !impl->insert_wait.Prepare(db, results::InsertSql(results::WaitsTable()))) {
    return fail("cannot write");
  }
  for (size_t k = 0; k < kBatches; ++k) {
    impl->batches.push_back(std::make_unique<Batch>());
    // Full size at once (address space only until rows are written into
    // it): growing would copy the records and samples several times.
    Batch& b = *impl->batches.back();
    b.jobs.reserve(kBatchJobs);
    b.samples.reserve(kBatchSamples);
    b.points.reserve(kBatchSamples);
    impl->free.push_back(&b);
  }
  impl->current = impl->free.back();
  impl->free.pop_back();
  Impl* p = impl.get();
  impl->thread = std::thread([p] { p->Loop(); });
  return std::unique_ptr<ResultWriter>(new ResultWriter(std::move(impl)));
}

// Copies `value` into the next slot of `rows` (n of them in use) of the
// batch being filled, and hands the batch over once it holds `limit`.
template <class Row>
void ResultWriter::Impl::Add(std::vector<Row>& rows, size_t& n, const Row& value, size_t limit) {
  if (n == rows.size()) rows.emplace_back();
  rows[n++] = value;
  if (n == limit) Flush();
}

void ResultWriter::OnJob(const JobRecord& record) {
  Impl& m = *impl_;
  if (m.end || !m.current) return;
  m.Add(m.current->jobs, m.current->n_jobs, record, kBatchJobs);
}

void ResultWriter::OnSample(const Sample& sample) {
  Impl& m = *impl_;
  if (m.end || !m.current) return;
  m.Add(m.current->samples, m.current->n_samples, sample, kBatchSamples);
}

void ResultWriter::OnChangePoint(const Sample& point) {
  Impl& m = *impl_;
  if (m.end || !m.current) return;
  m.Add(m.current->points, m.current->n_points, point, kBatchSamples);
}

void ResultWriter::OnEnd(const RunMeta& meta, const Summary& summary) {
  Impl& m = *impl_;
  if (m.end) return;
  m.end.emplace();
  m.end->meta = meta;
  m.end->summary = summary;
}

Status ResultWriter::Commit(const RunResult* final_run) {
  Impl& m = *impl_;
  m.Close();
  if (m.commit_called) return Status::Error(m.path + ": Commit called twice");
  m.commit_called = true;
  if (!m.end) return Status::Error(m.path + ": the run did not end; nothing written");
  if (!m.error.empty()) return Status::Error(m.error);
  auto fail = [&](const std::string& what) {
    return Status::Error(m.path + ": " + what + ": " + m.db.message());
  };
  results::Stmt insert_run;
  if (!insert_run.Prepare(m.db, results::InsertSql(results::RunsTable())))
    return fail("cannot write");
  if (final_run) {
    m.end->meta = final_run->meta;
    m.end->summary = final_run->summary;
  }
  results::RunRow(1, *m.end, &m.row);
  if (!results::InsertRow(insert_run.get(), m.row)) return fail("cannot write runs");
  if (!results::WriteMetaTable(m.db, m.end->meta.utilsim_version)) return fail("cannot write meta");
  if (!m.db.Exec("COMMIT")) return fail("cannot commit");
  // Statements first, then the connection, so the file is complete on disk.
  m.insert_job.Finalize();
  m.insert_sample.Finalize();
  m.insert_point.Finalize();
  m.insert_wait.Finalize();
  insert_run.Finalize();
  m.db.Close();
  if (Status s = CheckOutput(m.path, m.guard); !s.ok()) return s;  // again, before the rename
  return m.tmp.Commit();
}

}  // namespace utilsim
