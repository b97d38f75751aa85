// Alibaba cluster-trace-v2026-GenAI per-pod GPU series (telemetry.h,
// reader 5).
#include "row_helpers.h"
#include "telemetry_common.h"
#include "utilsim/traces/csv.h"

namespace utilsim::traces {

namespace {

using internal::ValueKind;

// Reads one long-format file `value,timestamp_anon,container_ip` (any column
// order) into `tracks`, as utilization (percent) or memory (bytes).
Status ReadPodFile(const std::string& path, bool memory, const TelemetryOptions& options,
                   internal::TrackSet* tracks, TelemetryData* out) {
  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  const int vc = csv.Find("value");
  const int tc = csv.Find("timestamp_anon");
  const int pc = csv.Find("container_ip");
  if (vc < 0 || tc < 0 || pc < 0) {
    return Status::Error(path + ":" + std::to_string(csv.line()) +
                         ": expected the columns value, timestamp_anon, container_ip");
  }
  const auto v_col = static_cast<size_t>(vc);
  const auto t_col = static_cast<size_t>(tc);
  const auto p_col = static_cast<size_t>(pc);
  internal::EntityKey key;
  key.host = options.host;
  int64_t rows = 0;
  for (;;) {
    auto next = csv.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    ++rows;
    const internal::Loc loc{&path, csv.line(), {}};
    const std::string_view pod = csv.field(p_col);
    if (pod.empty()) return csv.FieldError(p_col, "a pod id");
    auto t = csv.Time(t_col);
    if (!t.ok()) return t.status();
    const std::string_view text = csv.field(v_col);
    const std::optional<double> v = internal::ParseSample(text);
    if (!v) return csv.FieldError(v_col, memory ? "bytes (a number)" : "a percentage 0..100");
    if (key.job != pod) key.job = std::string(pod);
    if (memory) {
      if (auto b = internal::BytesFromRaw(*v, ValueKind::kBytes, text, loc, &out->warnings)) {
        tracks->AddMem(key, t.value(), *b, loc);
      }
    } else if (auto busy =
                   internal::BusyFromRaw(*v, ValueKind::kPercent, text, loc, &out->warnings)) {
      tracks->AddUtil(key, UtilSignal::kGpuUtil, t.value(), *busy, loc);
    }
  }
  out->notes.push_back(path + ": " + std::to_string(rows) + " rows");
  out->rows_read += rows;
  return Status::Ok();
}

}  // namespace

Result<TelemetryData> ReadGenAiPodUtil(const std::string& duty_path, const std::string& memory_path,
                                       const TelemetryOptions& options) {
  TelemetryData out;
  internal::TrackSet tracks(&out.warnings);
  Status st = ReadPodFile(duty_path, false, options, &tracks, &out);
  if (!st.ok()) return st;
  if (!memory_path.empty()) {
    st = ReadPodFile(memory_path, true, options, &tracks, &out);
    if (!st.ok()) return st;
  }
  tracks.Finish(&out.tracks);
  out.notes.push_back(
      "time origin: the trace's anonymised clock (timestamp_anon seconds, shifted by an unknown "
      "constant)");
  out.notes.push_back("signal: GPU duty cycle = NVML GPU utilization (time a kernel ran)");
  return out;
}

bool LooksLikeGenAiPodSeries(const std::vector<std::string>& header) {
  return internal::HeaderHas(header, {"value", "timestamp_anon", "container_ip"});
}

}  // namespace utilsim::traces
