#include "utilsim/tools/csv_export.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "atomic_file.h"
#include "result_schema.h"

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

// Buffered writer of one CSV file to a temporary path.
class CsvFile {
 public:
  CsvFile(const std::string& path, const Table& table)
      : path_(path), tmp_(results::TempPathFor(path)) {
    results::RemoveQuietly(tmp_);
    file_ = std::fopen(tmp_.c_str(), "wb");
    if (!file_) {
      error_ = errno;
      return;
    }
    for (size_t k = 0; k < table.columns.size(); ++k) {
      if (k) buf_.push_back(',');
      buf_ += table.columns[k].name;
    }
    buf_.push_back('\n');
  }
  CsvFile(const CsvFile&) = delete;
  CsvFile& operator=(const CsvFile&) = delete;
  ~CsvFile() {
    if (file_) std::fclose(file_);
    if (!committed_) results::RemoveQuietly(tmp_);
  }

  void Add(const std::vector<Cell>& row) {
    AppendRow(row, &buf_);
    if (buf_.size() >= (1u << 20)) Flush();
  }

  // Writes out the rest and renames the file into place.
  Status Commit() {
    Flush();
    if (file_ && std::fclose(file_) != 0 && !error_) error_ = errno;
    file_ = nullptr;
    if (error_) return Status::Error(path_ + ": cannot write: " + std::strerror(error_));
    committed_ = true;  // CommitTemp removes the temporary file itself on failure
    return results::CommitTemp(tmp_, path_);
  }

 private:
  void Flush() {
    if (file_ && !error_ && std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) {
      error_ = errno;
    }
    buf_.clear();
  }

  std::string path_, tmp_;
  std::FILE* file_ = nullptr;
  std::string buf_;
  int error_ = 0;
  bool committed_ = false;
};

}  // namespace

Status ExportCsv(const std::vector<RunResult>& runs, const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return Status::Error(dir + ": directory does not exist");
  }
  auto file = [&](const char* name) { return (std::filesystem::path(dir) / name).string(); };
  std::vector<Cell> row;
  {
    CsvFile f(file("runs.csv"), results::RunsTable());
    for (size_t r = 0; r < runs.size(); ++r) {
      results::RunRow(static_cast<int64_t>(r + 1), runs[r], &row);
      f.Add(row);
    }
    if (Status s = f.Commit(); !s.ok()) return s;
  }
  {
    CsvFile f(file("jobs.csv"), results::JobsTable());
    for (size_t r = 0; r < runs.size(); ++r) {
      for (const JobRecord& j : runs[r].jobs) {
        results::JobRow(static_cast<int64_t>(r + 1), j, &row);
        f.Add(row);
      }
    }
    if (Status s = f.Commit(); !s.ok()) return s;
  }
  CsvFile f(file("samples.csv"), results::SamplesTable());
  for (size_t r = 0; r < runs.size(); ++r) {
    for (const Sample& s : runs[r].samples) {
      results::SampleRow(static_cast<int64_t>(r + 1), s, &row);
      f.Add(row);
    }
  }
  return f.Commit();
}

}  // namespace utilsim
