// Streaming results: a ResultSink (utilsim/engine/result_sink.h) that writes
// one run's job records, wait intervals and samples (or change points) into a new results
// database while the run goes, on a writer thread of its own, so that the
// rows are never all held in memory (run the simulation with
// SimConfig::keep_rows = false) and the writing overlaps the simulation.
//
//   auto w = ResultWriter::Open("run.db");      // checks the path, starts
//   SimConfig cfg;                              // the writer thread
//   cfg.sink = w.value().get();
//   cfg.keep_rows = false;
//   auto r = Simulate(cluster, workload, *scheduler, cfg);
//   if (r.ok()) status = w.value()->Commit();   // runs row, rename
//   // else: destroying the writer removes the temporary file
//
// The file holds the rows WriteResults({run}, path) would write, value for
// value (schema version kResultsSchemaVersion, docs/results.md), in another
// order: jobs rows in the order the engine delivered them (the order the
// jobs ended; result_sink.h), waits rows likewise (each job's intervals in
// time order), samples or change points in time order. ReadResults places each job row by
// its job_index, so it reads both files alike. Appending in arrival order
// is what keeps the writing cheap (SQLite appends to its b-trees); rows
// inserted at their job's position cost a second per million jobs more.
// The same run always gives the same bytes: rows are written in the
// deterministic order the engine delivers them, in batches of fixed size.
//
// Safe and atomic like WriteResults: `path` is checked (CheckOutput) at Open
// and again just before the rename; the data goes to a temporary file beside
// it that is renamed into place only by a successful Commit(); a writer
// destroyed without one (the run failed, the caller gave up, an exception)
// removes it and leaves `path` as it was.
//
// Back-pressure: the engine thread hands full batches of rows to the writer
// thread through a bounded queue; when the writer falls behind, the engine
// waits. Memory held by the writer is bounded (a few batches of records),
// whatever the length of the run.
//
// Thread: the sink methods are called on the engine's thread (as
// result_sink.h says); Open, Commit and the destructor on the caller's. Not
// for more than one run: a second OnEnd, or rows after it, are ignored.
#pragma once

#include <memory>
#include <string>

#include "utilsim/engine/result_sink.h"
#include "utilsim/engine/status.h"
#include "utilsim/io/output_path.h"

namespace utilsim {

class ResultWriter final : public ResultSink {
 public:
  // Checks `path` as WriteResults does, creates the temporary file and its
  // tables and starts the writer thread. Errors: WriteResults's.
  static Result<std::unique_ptr<ResultWriter>> Open(const std::string& path,
                                                    const OutputGuard& guard = {});
  ~ResultWriter() override;
  ResultWriter(const ResultWriter&) = delete;
  ResultWriter& operator=(const ResultWriter&) = delete;

  void OnJob(const JobRecord& record) override;
  void OnSample(const Sample& sample) override;
  void OnChangePoint(const Sample& point) override;
  void OnEnd(const RunMeta& meta, const Summary& summary) override;

  // After a successful run (OnEnd was called): waits for the writer thread,
  // writes the runs row (run_id 1) and the meta table, commits and renames
  // the file into place. The runs row is `final_run`'s meta and summary when
  // given (a caller that added notes after the engine, as PreparedRun does),
  // else OnEnd's; `final_run`'s rows, if any, are not written again.
  // Errors: "<path>: the run did not end; nothing written" when OnEnd never
  // came, SQLite's or the file system's (as WriteResults). On any error
  // `path` is left as it was. Call once.
  Status Commit(const RunResult* final_run = nullptr);

  struct Impl;

 private:
  explicit ResultWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace utilsim
