// WriteReport / ReportFromDatabase: the file side of the HTML report.
#include "utilsim/tools/report.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "atomic_file.h"
#include "utilsim/tools/result_store.h"

namespace utilsim {
namespace {

// True when the file starts with SQLite's 16-byte header string.
bool LooksLikeSqlite(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof head);
  return in.gcount() == sizeof head && std::memcmp(head, "SQLite format 3", 16) == 0;
}

}  // namespace

Status WriteReport(const std::vector<RunResult>& runs, const std::string& path,
                   const ReportOptions& opt) {
  if (Status s = results::CheckTarget(path); !s.ok()) return s;
  if (runs.empty()) return Status::Error(path + ": no runs to report");
  const std::string html = BuildReportHtml(runs, opt);
  const std::string tmp = results::TempPathFor(path);
  results::RemoveQuietly(tmp);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::Error(path + ": cannot write: " + std::strerror(errno));
    out.write(html.data(), static_cast<std::streamsize>(html.size()));
    out.close();
    if (!out) {
      const int err = errno;
      results::RemoveQuietly(tmp);
      return Status::Error(path + ": cannot write: " + std::strerror(err));
    }
  }
  return results::CommitTemp(tmp, path);
}

Status ReportFromDatabase(const std::string& db, const std::string& html,
                          const ReportOptions& opt) {
  if (Status s = results::CheckTarget(html); !s.ok()) return s;
  std::error_code ec;
  if (std::filesystem::is_regular_file(db, ec) && !LooksLikeSqlite(db))
    return Status::Error(db +
                         ": not a SQLite file (utilsim report reads the results database "
                         "that run, compare or demo write with --out)");
  auto runs = ReadResults(db);
  if (!runs.ok()) {
    const std::string m = runs.status().message();
    if (m.find(": schema version ") != std::string::npos)
      return Status::Error(m +
                           " (written by another version of utilsim; re-run it with this "
                           "version to report on it)");
    return runs.status();
  }
  if (runs.value().empty()) return Status::Error(db + ": holds no runs");
  return WriteReport(runs.value(), html, opt);
}

}  // namespace utilsim
