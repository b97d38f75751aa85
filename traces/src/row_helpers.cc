#include "row_helpers.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "csv_input.h"

namespace utilsim::traces::internal {

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Result<std::vector<int>> FindColumns(const CsvReader& csv, const std::vector<ColumnSpec>& specs) {
  std::vector<int> idx;
  idx.reserve(specs.size());
  for (const ColumnSpec& spec : specs) {
    const int i = csv.Find(spec.name);
    if (i < 0 && spec.required) {
      return Status::Error(csv.source() + ":" + std::to_string(csv.line()) +
                           ": missing required column '" + spec.name + "'");
    }
    idx.push_back(i);
  }
  return idx;
}

bool HeaderHas(const std::vector<std::string>& header,
               const std::vector<std::string_view>& required) {
  for (std::string_view name : required) {
    bool found = false;
    for (const std::string& h : header) found = found || TrimBlanks(h) == name;
    if (!found) return false;
  }
  return true;
}

int64_t InputBytes(const std::string& path) {
  std::ifstream probe(path, std::ios::binary);
  if (!probe) return 0;
  unsigned char magic[2] = {0, 0};
  probe.read(reinterpret_cast<char*>(magic), 2);
  const bool gzip = probe.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  probe.close();
  if (!gzip) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    return ec ? 0 : static_cast<int64_t>(size);
  }
  auto in = OpenCsvInput(path);
  if (!in.ok()) return 0;
  std::vector<char> buf(size_t{1} << 16);
  int64_t total = 0;
  for (int64_t n; (n = in.value()->Read(buf.data(), buf.size())) > 0;) total += n;
  return total;
}

std::string FileStem(const std::string& path) {
  std::filesystem::path p(path);
  std::string name = p.filename().string();
  if (name.size() > 3 && name.substr(name.size() - 3) == ".gz") name.resize(name.size() - 3);
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return name;
}

void WarnAt(Warnings* w, const CsvReader& csv, const std::string& kind, const std::string& detail) {
  w->Add(kind, csv.source() + ":" + std::to_string(csv.line()) + ": " + detail);
}

Status IntInAnyForm(const CsvReader& csv, size_t col, int64_t lo, int64_t hi, std::string_view what,
                    int64_t* out) {
  int64_t v = 0;
  if (!PlainDigits(csv.field(col), &v)) {
    auto parsed = csv.Int(col);
    if (!parsed.ok()) return csv.FieldError(col, what);
    v = parsed.value();
  }
  if (v < lo || v > hi) return csv.FieldError(col, what);
  *out = v;
  return Status::Ok();
}

Status DoubleIn(const CsvReader& csv, size_t col, double lo, double hi, const std::string& what,
                double* out) {
  auto v = csv.Double(col);
  if (!v.ok() || !(v.value() >= lo && v.value() <= hi)) return csv.FieldError(col, what);
  *out = v.value();
  return Status::Ok();
}

Status SecondsAtLeastZero(const CsvReader& csv, size_t col, bool positive, const std::string& what,
                          Micros* out) {
  auto t = ParseSeconds(csv.field(col));
  if (!t || t->us < 0 || (positive && t->us == 0)) return csv.FieldError(col, what);
  *out = *t;
  return Status::Ok();
}

void MergeWarnings(const Warnings& from, Warnings* to) {
  for (const auto& [kind, n] : from.counts()) {
    auto ex = from.examples().find(kind);
    int64_t added = 0;
    if (ex != from.examples().end()) {
      for (const std::string& e : ex->second) {
        to->Add(kind, e);
        ++added;
      }
    }
    for (; added < n; ++added) to->Add(kind, "");
  }
}

std::string Thousands(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::string Num(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// "YYYY-MM-DD hh:mm:ss UTC" of a UNIX time.
std::string UtcText(int64_t t) {
  using namespace std::chrono;
  const sys_seconds at{seconds{t}};
  const auto day = floor<days>(at);
  const year_month_day ymd{day};
  const hh_mm_ss<seconds> hms{at - day};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u %02d:%02d:%02d UTC", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()));
  return buf;
}

}  // namespace utilsim::traces::internal
