// DCGM field CSV of the MIGProfiler recorder (telemetry.h, reader 4).
#include "telemetry_common.h"
#include "utilsim/traces/csv.h"

namespace utilsim::traces {

namespace {

using internal::ValueKind;

// dcgmi dmon short names of the fields read.
struct FieldColumn {
  const char* name;
  ValueKind kind;
  UtilSignal signal;  // kUnknown for memory and power
};
constexpr FieldColumn kFields[] = {
    {"GRACT", ValueKind::kRatio, UtilSignal::kGrEngineActive},
    {"SMACT", ValueKind::kRatio, UtilSignal::kSmActive},
    {"GPUTL", ValueKind::kPercent, UtilSignal::kGpuUtil},
    {"FBUSD", ValueKind::kMiB, UtilSignal::kUnknown},
    {"POWER", ValueKind::kWatts, UtilSignal::kUnknown},
};

bool NotAvailable(std::string_view v) {
  return v == "N/A" || v == "N/S" || (v.size() >= 2 && v.front() == '[' && v.back() == ']');
}

}  // namespace

Result<TelemetryData> ReadDcgmFieldCsv(const std::string& path, const TelemetryOptions& options) {
  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  auto header_error = [&](const std::string& what) {
    return Status::Error(path + ":" + std::to_string(csv.line()) + ": " + what);
  };
  const int entity_col = csv.Find("EntityId");
  const int time_col = csv.Find("TimeStamp");
  if (entity_col < 0 || time_col < 0) {
    return header_error("expected the columns EntityId and TimeStamp (DCGM field CSV)");
  }
  struct Present {
    size_t col;
    FieldColumn field;
  };
  std::vector<Present> present;
  bool any_util = false;
  for (const FieldColumn& f : kFields) {
    const int c = csv.Find(f.name);
    if (c < 0) continue;
    present.push_back({static_cast<size_t>(c), f});
    any_util = any_util || f.signal != UtilSignal::kUnknown;
  }
  if (!any_util) return header_error("expected a utilization column GRACT, SMACT or GPUTL");

  TelemetryData out;
  internal::TrackSet tracks(&out.warnings);
  const auto ec = static_cast<size_t>(entity_col);
  const auto tc = static_cast<size_t>(time_col);
  for (;;) {
    auto next = csv.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    ++out.rows_read;
    const internal::Loc loc{&path, csv.line(), {}};
    auto entity = csv.Int(ec);
    if (!entity.ok() || entity.value() < 0 || entity.value() > INT32_MAX) {
      return csv.FieldError(ec, "an entity id (integer >= 0)");
    }
    auto t = csv.Time(tc);
    if (!t.ok()) return csv.FieldError(tc, "UNIX seconds");
    internal::EntityKey key;
    key.host = options.host;
    if (options.dcgm_entity_is_gpu) {
      key.gpu = static_cast<int32_t>(entity.value());
    } else {
      key.gpu_instance = std::to_string(entity.value());
    }
    for (const Present& p : present) {
      const std::string_view text = csv.field(p.col);
      if (NotAvailable(text)) {
        out.warnings.Add(kWarnNotAvailable,
                         loc.Str() + ": " + p.field.name + " '" + std::string(text) + "'");
        continue;
      }
      const std::optional<double> v = internal::ParseSample(text);
      if (!v) return csv.FieldError(p.col, "a number");
      if (p.field.kind == ValueKind::kWatts) {
        if (auto w = internal::WattsFromRaw(*v, text, loc, &out.warnings)) {
          tracks.AddPower(key, t.value(), *w, loc);
        }
      } else if (p.field.signal == UtilSignal::kUnknown) {
        if (auto b = internal::BytesFromRaw(*v, p.field.kind, text, loc, &out.warnings)) {
          tracks.AddMem(key, t.value(), *b, loc);
        }
      } else if (auto busy = internal::BusyFromRaw(*v, p.field.kind, text, loc, &out.warnings)) {
        tracks.AddUtil(key, p.field.signal, t.value(), *busy, loc);
      }
    }
  }
  tracks.Finish(&out.tracks);
  out.notes.push_back("time origin: UNIX epoch (TimeStamp, seconds)");
  out.notes.push_back(options.dcgm_entity_is_gpu ? "EntityId read as GPU index"
                                                 : "EntityId read as GPU-instance id");
  return out;
}

}  // namespace utilsim::traces
