// nvidia-smi --query-gpu CSV (telemetry.h, reader 3).
#include <cctype>
#include <charconv>
#include <utility>

#include "telemetry_common.h"
#include "utilsim/engine/units.h"
#include "utilsim/traces/csv.h"

namespace utilsim::traces {

namespace {

using internal::ValueKind;

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
// days_from_civil).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Reads `n` digits (n > 0) at s[*p].
std::optional<int64_t> Digits(std::string_view s, size_t* p, size_t n) {
  if (*p + n > s.size()) return std::nullopt;
  int64_t v = 0;
  for (size_t k = 0; k < n; ++k) {
    const char c = s[*p + k];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  *p += n;
  return v;
}

bool Expect(std::string_view s, size_t* p, std::string_view seps) {
  if (*p >= s.size() || seps.find(s[*p]) == std::string_view::npos) return false;
  ++*p;
  return true;
}

// "YYYY/MM/DD HH:MM:SS[.f...]" (also '-' in the date) -> Micros since
// 1970-01-01 00:00 of the same clock; fractions beyond 6 digits truncate.
std::optional<Micros> ParseNvTimestamp(std::string_view s) {
  size_t p = 0;
  auto y = Digits(s, &p, 4);
  if (!y || !Expect(s, &p, "/-")) return std::nullopt;
  auto mo = Digits(s, &p, 2);
  if (!mo || !Expect(s, &p, "/-")) return std::nullopt;
  auto d = Digits(s, &p, 2);
  if (!d || !Expect(s, &p, " T")) return std::nullopt;
  auto h = Digits(s, &p, 2);
  if (!h || !Expect(s, &p, ":")) return std::nullopt;
  auto mi = Digits(s, &p, 2);
  if (!mi || !Expect(s, &p, ":")) return std::nullopt;
  auto sec = Digits(s, &p, 2);
  if (!sec) return std::nullopt;
  int64_t us = 0;
  if (p < s.size() && s[p] == '.') {
    ++p;
    int64_t scale = 100000;
    const size_t start = p;
    while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
      us += (s[p] - '0') * scale;
      scale /= 10;
      ++p;
    }
    if (p == start) return std::nullopt;
  }
  if (p != s.size() || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 || *mi > 59 ||
      *sec > 60) {
    return std::nullopt;
  }
  const int64_t secs = DaysFromCivil(*y, *mo, *d) * 86400 + *h * 3600 + *mi * 60 + *sec;
  return Micros(secs * kMicrosPerSecond + us);
}

bool NotAvailable(std::string_view v) {
  return v == "N/A" || (v.size() >= 2 && v.front() == '[' && v.back() == ']');
}

struct Column {
  int index = -1;
  std::string unit;  // from the header, e.g. "%" or "MiB"; may be empty
};

// Strips a unit written after the number ("45 %", "1024 MiB", "592.74 W").
std::string_view StripUnit(std::string_view v, const std::string& unit) {
  for (std::string_view u : {std::string_view(unit), std::string_view("%"), std::string_view("MiB"),
                             std::string_view("W")}) {
    if (!u.empty() && v.size() > u.size() && v.ends_with(u)) {
      v.remove_suffix(u.size());
      while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
      return v;
    }
  }
  return v;
}

}  // namespace

Result<TelemetryData> ReadNvidiaSmiCsv(const std::string& path, const TelemetryOptions& options) {
  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  const int64_t header_line = csv.line();
  std::map<std::string, Column> cols;
  std::vector<std::string> units(csv.columns().size());
  for (size_t i = 0; i < csv.columns().size(); ++i) {
    std::string name = csv.columns()[i];
    std::string unit;
    const size_t br = name.find(" [");
    if (br != std::string::npos && name.back() == ']') {
      unit = name.substr(br + 2, name.size() - br - 3);
      name.resize(br);
    }
    units[i] = unit;
    if (!cols.count(name)) cols[name] = Column{static_cast<int>(i), unit};
  }
  auto header_error = [&](const std::string& what) {
    return Status::Error(path + ":" + std::to_string(header_line) + ": " + what);
  };
  for (const char* required : {"timestamp", "utilization.gpu"}) {
    if (!cols.count(required)) {
      return header_error(std::string("missing column '") + required +
                          "' (expected nvidia-smi --query-gpu output with a header)");
    }
  }
  for (const auto& [name, unit] : {std::pair<std::string, std::string>{"memory.used", "MiB"},
                                   std::pair<std::string, std::string>{"power.draw", "W"}}) {
    if (cols.count(name) && !cols[name].unit.empty() && cols[name].unit != unit) {
      return header_error("field '" + name + "': expected the unit [" + unit + "], got '[" +
                          cols[name].unit + "]'");
    }
  }
  auto col = [&](const char* name) { return cols.count(name) ? cols[name].index : -1; };
  const int ts_col = col("timestamp"), util_col = col("utilization.gpu");
  const int idx_col = col("index"), uuid_col = col("uuid"), mem_col = col("memory.used");
  const int power_col = col("power.draw"), name_col = col("name");
  const std::string first_header = csv.columns()[0];

  TelemetryData out;
  internal::TrackSet tracks(&out.warnings);
  int64_t repeated_headers = 0;
  for (;;) {
    auto next = csv.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    if (csv.field(0) == first_header) {
      ++repeated_headers;
      continue;
    }
    ++out.rows_read;
    const internal::Loc loc{&path, csv.line(), {}};
    const auto tc = static_cast<size_t>(ts_col);
    const std::optional<Micros> t = ParseNvTimestamp(csv.field(tc));
    if (!t) return csv.FieldError(tc, "a time YYYY/MM/DD HH:MM:SS[.fff]");
    internal::EntityKey key;
    key.host = options.host;
    if (idx_col >= 0 && !NotAvailable(csv.field(static_cast<size_t>(idx_col)))) {
      auto idx = csv.Int(static_cast<size_t>(idx_col));
      if (!idx.ok() || idx.value() < 0 || idx.value() > INT32_MAX) {
        return csv.FieldError(static_cast<size_t>(idx_col), "a GPU index (integer >= 0)");
      }
      key.gpu = static_cast<int32_t>(idx.value());
    }
    if (uuid_col >= 0 && !NotAvailable(csv.field(static_cast<size_t>(uuid_col)))) {
      key.uuid = std::string(csv.field(static_cast<size_t>(uuid_col)));
    }
    if (name_col >= 0 && !NotAvailable(csv.field(static_cast<size_t>(name_col)))) {
      tracks.SetModel(key, csv.field(static_cast<size_t>(name_col)));
    }
    // Reads one numeric column; nullopt after counting [N/A].
    auto value = [&](int c, std::string_view expected) -> Result<std::optional<double>> {
      const auto ci = static_cast<size_t>(c);
      const std::string_view text = csv.field(ci);
      if (NotAvailable(text)) {
        out.warnings.Add(kWarnNotAvailable,
                         loc.Str() + ": " + csv.ColumnName(ci) + " '" + std::string(text) + "'");
        return std::optional<double>();
      }
      const auto v = internal::ParseSample(StripUnit(text, units[ci]));
      if (!v) return csv.FieldError(ci, expected);
      return v;
    };
    auto util = value(util_col, "a percentage 0..100");
    if (!util.ok()) return util.status();
    if (util.value()) {
      const auto text = csv.field(static_cast<size_t>(util_col));
      if (auto busy =
              internal::BusyFromRaw(*util.value(), ValueKind::kPercent, text, loc, &out.warnings)) {
        tracks.AddUtil(key, UtilSignal::kGpuUtil, *t, *busy, loc);
      }
    }
    if (mem_col >= 0) {
      auto mem = value(mem_col, "MiB (a number)");
      if (!mem.ok()) return mem.status();
      if (mem.value()) {
        const auto text = csv.field(static_cast<size_t>(mem_col));
        if (auto b =
                internal::BytesFromRaw(*mem.value(), ValueKind::kMiB, text, loc, &out.warnings)) {
          tracks.AddMem(key, *t, *b, loc);
        }
      }
    }
    if (power_col >= 0) {
      auto watts = value(power_col, "watts (a number)");
      if (!watts.ok()) return watts.status();
      if (watts.value()) {
        const auto text = csv.field(static_cast<size_t>(power_col));
        if (auto w = internal::WattsFromRaw(*watts.value(), text, loc, &out.warnings)) {
          tracks.AddPower(key, *t, *w, loc);
        }
      }
    }
  }
  tracks.Finish(&out.tracks);
  out.notes.push_back(
      "time origin: the machine's local wall clock read as UTC (nvidia-smi prints no zone)");
  if (repeated_headers > 0) {
    out.notes.push_back("skipped " + std::to_string(repeated_headers) + " repeated header rows");
  }
  return out;
}

}  // namespace utilsim::traces
