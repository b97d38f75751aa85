// Private: the columns of the result tables (runs, jobs, samples, change
// points, waits) and the
// conversion of one record to and from a row of cells. Shared by the SQLite
// store and the CSV export so both always carry the same columns in the same
// order. docs/results.md documents each column; keep the two in step.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "utilsim/engine/metrics.h"
#include "utilsim/engine/status.h"

namespace utilsim::results {

// One value of a row. Text cells point into the record (or into SQLite's
// buffer when reading) and are only valid while that lives.
struct Cell {
  enum class Kind : uint8_t { kNull, kInt, kReal, kText };
  Kind kind = Kind::kNull;
  int64_t i = 0;
  double d = 0;
  std::string_view s;

  static Cell Null() { return Cell{}; }
  static Cell Int(int64_t v) { return Cell{Kind::kInt, v, 0, {}}; }
  static Cell Real(double v) { return Cell{Kind::kReal, 0, v, {}}; }
  static Cell Text(std::string_view v) { return Cell{Kind::kText, 0, 0, v}; }
};

enum class ColumnType : uint8_t { kInteger, kReal, kText };

struct Column {
  std::string name;
  ColumnType type;
};

struct Table {
  const char* name;
  std::vector<Column> columns;
};

// A Summary member as a column of the runs table. Exactly one pointer is set.
struct SummaryField {
  std::string name;
  int64_t Summary::*count = nullptr;
  Micros Summary::*time = nullptr;
  double Summary::*real = nullptr;
  double* (*slot)(Summary*) = nullptr;  // an element of an array member
};
// The Summary columns of the runs table, in order (after the run's identity).
const std::vector<SummaryField>& SummaryFields();

// The data tables; every row starts with run_id.
const Table& RunsTable();
const Table& JobsTable();
// The samples of runs whose series form is "samples" (table
// interval_samples), and the change points of the others (change_points):
// the same columns. The view `samples` shows every run's samples (the
// second form's derived; CreateResultSchema).
const Table& SamplesTable();
const Table& ChangePointsTable();
// One row per interval of a job's wait (JobRecord::waits), in job order.
const Table& WaitsTable();

// Fill `row` (cleared first) with the cells of one record, in column order.
void RunRow(int64_t run_id, const RunResult& run, std::vector<Cell>* row);
void JobRow(int64_t run_id, const JobRecord& job, std::vector<Cell>* row);
void SampleRow(int64_t run_id, const Sample& sample, std::vector<Cell>* row);
void WaitRow(int64_t run_id, JobIndex job, const WaitInterval& w, std::vector<Cell>* row);

// Inverse of the above (result_parse.cc) for a row read back (run_id included at index 0, not
// interpreted). Derived columns (wait_s, jct_s, idle_gpu_s) are ignored.
// Errors name the column holding a bad value; the caller adds the path.
Status ParseRunRow(const std::vector<Cell>& row, RunResult* run);
Status ParseJobRow(const std::vector<Cell>& row, JobRecord* job);
// A row of interval_samples or (table = ChangePointsTable()) change_points.
Status ParseSampleRow(const std::vector<Cell>& row, Sample* sample,
                      const Table& table = SamplesTable());
// A waits row: appends the interval to (*jobs)[its job index].
Status ParseWaitRow(const std::vector<Cell>& row, std::vector<JobRecord>* jobs);

}  // namespace utilsim::results
