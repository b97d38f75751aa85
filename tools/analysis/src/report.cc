// WriteReport / ReportFromDatabase: the file side of the HTML report.
#include "utilsim/analysis/report.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>

#include "report_sweep.h"
#include "utilsim/io/output_path.h"
#include "utilsim/results/result_store.h"
#include "utilsim/traces/text_writer.h"

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

Status CheckReportBuilt() {
#ifdef UTILSIM_REPORT_MISSING
  // Both set by tools/CMakeLists.txt when it generated no report_assets.cc.
  return Status::Error("this utilsim was built without the HTML report (" UTILSIM_REPORT_MISSING
                       "); rebuild with " UTILSIM_REPORT_REBUILD);
#else
  return Status::Ok();
#endif
}

namespace {

// Writes the page `build` makes, after the output checks.
Status WritePage(const std::function<std::string()>& build, bool empty, const std::string& path,
                 const OutputGuard& guard) {
  OutputGuard g = guard;
  if (g.format.empty()) g.format = "the HTML report";
  if (Status s = CheckOutput(path, g); !s.ok()) return s;
  const std::string name = (g.option.empty() ? "" : g.option + ": ") + path;
  if (empty) return Status::Error(name + ": no runs to report");
  if (Status s = CheckReportBuilt(); !s.ok())
    return Status::Error((g.option.empty() ? "" : g.option + ": ") + s.message());
  const std::string html = build();
  if (path == "-") {
    std::cout.write(html.data(), static_cast<std::streamsize>(html.size()));
    std::cout.flush();
    if (!std::cout) return Status::Error(name + ": cannot write to standard output");
    return Status::Ok();
  }
  traces::AtomicFile out(path);
  if (Status s = out.Open(); !s.ok()) return s;
  static_cast<void>(out.Write(html));  // a write error is returned by Close()
  if (Status s = out.Close(); !s.ok()) return s;
  if (Status s = CheckOutput(path, g); !s.ok()) return s;  // again, just before the rename
  return out.Commit();
}

// WriteReport, with the Sweep section when `sweep` is not null.
Status Write(const std::vector<RunResult>& runs, const report::SweepData* sweep,
             const std::string& path, const ReportOptions& opt, const OutputGuard& guard) {
  return WritePage([&] { return report::BuildPage(runs, opt, sweep); }, runs.empty(), path, guard);
}

// The first line of `path` (without its end), "" when unreadable.
std::string FirstLine(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  std::getline(in, line);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

}  // namespace

Status WriteFgdReport(const std::vector<FgdCurve>& curves,
                      const std::vector<FgdPublished>& published, const std::string& subtitle,
                      const std::string& path, const OutputGuard& guard) {
  return WritePage([&] { return BuildFgdReportHtml(curves, published, subtitle); }, curves.empty(),
                   path, guard);
}

Status WriteReport(const std::vector<RunResult>& runs, const std::string& path,
                   const ReportOptions& opt, const OutputGuard& guard) {
  return Write(runs, nullptr, path, opt, guard);
}

Status ReportFromDatabase(const std::string& db, const std::string& html, const ReportOptions& opt,
                          const OutputGuard& guard) {
  OutputGuard g = guard;
  g.inputs.push_back({"the results database", db});
  if (Status s = CheckOutput(html, g); !s.ok()) return s;
  if (Status s = CheckReportBuilt(); !s.ok()) return s;
  std::error_code ec;
  if (std::filesystem::is_regular_file(db, ec) && IsFgdCurvesHeader(FirstLine(db))) {
    auto curves = ReadFgdCurvesCsv(db);
    if (!curves.ok()) return curves.status();
    return WriteFgdReport(curves.value(), {}, "curves of " + db, html, g);
  }
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
  report::SweepData sweep;
  bool is_sweep = false;
  if (Status s = report::ReadSweep(db, &sweep, &is_sweep); !s.ok()) return s;
  return Write(runs.value(), is_sweep ? &sweep : nullptr, html, opt, g);
}

}  // namespace utilsim
