#include "utilsim/results/csv_export.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <string>
#include <system_error>

#include "result_schema.h"
#include "utilsim/traces/text_writer.h"

namespace utilsim {
namespace {

using results::Cell;
using results::Table;

void AppendField(const Cell& c, std::string* out) {
  char buf[64];
  switch (c.kind) {
    case Cell::Kind::kNull:
      return;
    case Cell::Kind::kInt: {
      auto r = std::to_chars(buf, buf + sizeof buf, c.i);
      out->append(buf, r.ptr);
      return;
    }
    case Cell::Kind::kReal: {
      if (std::isnan(c.d)) return;  // as SQLite stores it: NULL
      auto r = std::to_chars(buf, buf + sizeof buf, c.d);
      out->append(buf, r.ptr);
      return;
    }
    case Cell::Kind::kText:
      if (c.s.find_first_of(",\"\r\n") == std::string_view::npos) {
        out->append(c.s);
        return;
      }
      out->push_back('"');
      for (char ch : c.s) {
        if (ch == '"') out->push_back('"');
        out->push_back(ch);
      }
      out->push_back('"');
      return;
  }
}

void AppendRow(const std::vector<Cell>& row, std::string* out) {
  for (size_t k = 0; k < row.size(); ++k) {
    if (k) out->push_back(',');
    AppendField(row[k], out);
  }
  out->push_back('\n');
}

// Buffered writer of one CSV file through a temporary file (AtomicFile).
class CsvFile {
 public:
  CsvFile(const std::string& path, const Table& table, const OutputGuard& guard)
      : path_(path), guard_(guard), file_(path) {
    status_ = CheckOutput(path_, guard_);
    if (status_.ok()) status_ = file_.Open();
    for (size_t k = 0; k < table.columns.size(); ++k) {
      if (k) buf_.push_back(',');
      buf_ += table.columns[k].name;
    }
    buf_.push_back('\n');
  }

  void Add(const std::vector<Cell>& row) {
    AppendRow(row, &buf_);
    if (buf_.size() >= (1u << 20)) Flush();
  }

  // Writes out the rest, checks the path again and renames the file into
  // place; without it the temporary file is removed.
  Status Commit() {
    Flush();
    if (!status_.ok()) return status_;
    if (Status s = file_.Close(); !s.ok()) return s;
    if (Status s = CheckOutput(path_, guard_); !s.ok()) return s;
    return file_.Commit();
  }

 private:
  void Flush() {
    if (status_.ok()) status_ = file_.Write(buf_);
    buf_.clear();
  }

  std::string path_;
  OutputGuard guard_;
  traces::AtomicFile file_;
  std::string buf_;
  Status status_;
};

}  // namespace

std::vector<std::string> CsvExportPaths(const std::string& dir) {
  std::vector<std::string> out;
  for (const char* name : {"runs.csv", "jobs.csv", "samples.csv", "waits.csv", "change_points.csv"})
    out.push_back((std::filesystem::path(dir) / name).string());
  return out;
}

Status CheckCsvExport(const std::string& dir, const OutputGuard& guard) {
  if (Status s = CheckOutputFolder(dir, guard); !s.ok()) return s;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return Status::Ok();  // files to come
  for (const auto& file : CsvExportPaths(dir))
    if (Status s = CheckOutput(file, guard); !s.ok()) return s;
  return Status::Ok();
}

Status ExportCsv(const std::vector<RunResult>& runs, const std::string& dir,
                 const OutputGuard& guard) {
  if (dir.empty()) return Status::Error("CSV export: no folder given");
  if (Status s = CheckCsvExport(dir, guard); !s.ok()) return s;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return Status::Error((guard.option.empty() ? "" : guard.option + ": ") + dir +
                         ": cannot create the folder: " + ec.message());
  const std::vector<std::string> files = CsvExportPaths(dir);
  std::vector<Cell> row;
  {
    CsvFile f(files[0], results::RunsTable(), guard);
    for (size_t r = 0; r < runs.size(); ++r) {
      results::RunRow(static_cast<int64_t>(r + 1), runs[r], &row);
      f.Add(row);
    }
    if (Status s = f.Commit(); !s.ok()) return s;
  }
  {
    CsvFile f(files[1], results::JobsTable(), guard);
    for (size_t r = 0; r < runs.size(); ++r) {
      for (const JobRecord& j : runs[r].jobs) {
        results::JobRow(static_cast<int64_t>(r + 1), j, &row);
        f.Add(row);
      }
    }
    if (Status s = f.Commit(); !s.ok()) return s;
  }
  // The states of every run's `series` (samples or change points) into `file`.
  auto write_states = [&](const std::string& file, const results::Table& table,
                          std::vector<Sample> RunResult::*series) {
    CsvFile f(file, table, guard);
    for (size_t r = 0; r < runs.size(); ++r) {
      for (const Sample& s : runs[r].*series) {
        results::SampleRow(static_cast<int64_t>(r + 1), s, &row);
        f.Add(row);
      }
    }
    return f.Commit();
  };
  if (Status s = write_states(files[2], results::SamplesTable(), &RunResult::samples); !s.ok())
    return s;
  {
    CsvFile f(files[3], results::WaitsTable(), guard);
    for (size_t r = 0; r < runs.size(); ++r) {
      for (const JobRecord& j : runs[r].jobs) {
        for (const WaitInterval& w : j.waits) {
          results::WaitRow(static_cast<int64_t>(r + 1), j.job, w, &row);
          f.Add(row);
        }
      }
    }
    if (Status s = f.Commit(); !s.ok()) return s;
  }
  return write_states(files[4], results::ChangePointsTable(), &RunResult::changes);
}

}  // namespace utilsim
