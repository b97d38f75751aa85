// Utilization series side files of the canonical jobs CSV.
#include "utilsim/traces/canonical.h"
#include "utilsim/traces/csv.h"
#include "utilsim/traces/text_writer.h"

namespace utilsim::traces {

Result<UtilSeries> ReadUtilSeriesCsv(const std::string& path) {
  CsvOptions options;
  options.comment_prefix = "#";
  auto opened = CsvReader::Open(path, options);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  const int off_col = csv.Find("offset_s");
  const int busy_col = csv.Find("busy");
  const int64_t header_line = csv.line();
  auto header_error = [&](const std::string& what) {
    return Status::Error(path + ":" + std::to_string(header_line) + ": " + what);
  };
  for (const std::string& c : csv.columns()) {
    if (c != "offset_s" && c != "busy") {
      return header_error("unknown column '" + c + "' (known: offset_s, busy)");
    }
  }
  if (csv.columns().size() != 2 || off_col < 0 || busy_col < 0) {
    return header_error("expected the columns offset_s, busy");
  }
  const auto oc = static_cast<size_t>(off_col);
  const auto bc = static_cast<size_t>(busy_col);
  UtilSeries series;
  for (;;) {
    auto next = csv.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    auto offset = csv.Time(oc);
    if (!offset.ok()) return offset.status();
    if (series.offset.empty() && offset.value().us != 0) {
      return csv.FieldError(oc, "0 on the first row");
    }
    if (!series.offset.empty() && offset.value() <= series.offset.back()) {
      return csv.FieldError(
          oc, "seconds > the previous offset (" + FormatSeconds(series.offset.back()) + ")");
    }
    auto busy = csv.Float(bc);
    if (!busy.ok() || !(busy.value() >= 0.0f && busy.value() <= 1.0f)) {
      return csv.FieldError(bc, "a fraction 0..1");
    }
    series.offset.push_back(offset.value());
    series.busy.push_back(busy.value());
  }
  if (series.offset.empty()) return header_error("expected at least one row after the header");
  return series;
}

Status WriteUtilSeriesCsv(const UtilSeries& series, const std::string& path) {
  std::string text = "offset_s,busy\n";
  for (size_t i = 0; i < series.offset.size() && i < series.busy.size(); ++i) {
    AppendSeconds(&text, series.offset[i]);
    text.push_back(',');
    AppendFloat(&text, series.busy[i]);
    text.push_back('\n');
  }
  return WriteFileAtomically(path, text);
}

}  // namespace utilsim::traces
