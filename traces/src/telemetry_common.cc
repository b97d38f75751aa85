// Shared parts of the telemetry readers (telemetry_common.h).
#include "telemetry_common.h"

#include <charconv>
#include <cmath>

#include "csv_input.h"
#include "utilsim/traces/text_writer.h"

namespace utilsim::traces::internal {

namespace {

// DCGM_INT32_BLANK (dcgm_structs.h): every blank / not-found / not-supported
// code of the INT32, INT64 and FP64 families is at or above it.
constexpr double kDcgmBlank = 2147483632.0;
// For byte counts, which legitimately exceed 2^31: DCGM_INT64_BLANK.
constexpr double kDcgmBlank64 = 9.2e18;

const std::string* FirstLabel(const Labels& labels, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    for (const auto& [k, v] : labels) {
      if (k == n && !v.empty()) return &v;
    }
  }
  return nullptr;
}

}  // namespace

std::optional<MetricInfo> LookupDcgmMetric(std::string_view name) {
  if (name == "DCGM_FI_DEV_GPU_UTIL") return MetricInfo{ValueKind::kPercent, UtilSignal::kGpuUtil};
  if (name == "DCGM_FI_PROF_SM_ACTIVE") return MetricInfo{ValueKind::kRatio, UtilSignal::kSmActive};
  if (name == "DCGM_FI_PROF_GR_ENGINE_ACTIVE") {
    return MetricInfo{ValueKind::kRatio, UtilSignal::kGrEngineActive};
  }
  if (name == "DCGM_FI_DEV_FB_USED") return MetricInfo{ValueKind::kMiB, UtilSignal::kUnknown};
  if (name == "DCGM_FI_DEV_POWER_USAGE") return MetricInfo{ValueKind::kWatts, UtilSignal::kUnknown};
  return std::nullopt;
}

std::string EntityKey::Describe() const {
  std::string s;
  auto add = [&s](const std::string& part) { s += (s.empty() ? "" : " ") + part; };
  if (!job.empty()) add("pod '" + job + "'");
  if (!namespace_name.empty()) add("namespace '" + namespace_name + "'");
  if (!container.empty()) add("container '" + container + "'");
  if (!host.empty()) add("host '" + host + "'");
  if (gpu >= 0) add("gpu " + std::to_string(gpu));
  if (!gpu_instance.empty()) add("instance '" + gpu_instance + "'");
  if (!uuid.empty()) add("uuid '" + uuid + "'");
  return s.empty() ? "unlabelled series" : s;
}

Result<EntityKey> KeyFromLabels(const Labels& labels, const std::string& default_host) {
  EntityKey key;
  auto set = [&](std::string* dst, std::initializer_list<std::string_view> names) {
    if (const std::string* v = FirstLabel(labels, names)) *dst = *v;
  };
  set(&key.job, {"pod", "pod_name", "hpc_job"});
  set(&key.namespace_name, {"namespace", "pod_namespace"});
  set(&key.container, {"container", "container_name"});
  key.host = default_host;
  set(&key.host, {"hostname", "Hostname"});
  set(&key.gpu_instance, {"GPU_I_ID"});
  set(&key.uuid, {"UUID"});
  if (const std::string* g = FirstLabel(labels, {"gpu"})) {
    int32_t v = -1;
    const char* end = g->data() + g->size();
    auto [ptr, ec] = std::from_chars(g->data(), end, v);
    if (ec != std::errc() || ptr != end || v < 0) {
      return Status::Error("field 'gpu': expected a GPU index (integer >= 0), got '" +
                           g->substr(0, 100) + "'");
    }
    key.gpu = v;
  }
  return key;
}

std::string ModelFromLabels(const Labels& labels) {
  const std::string* m = FirstLabel(labels, {"modelName"});
  return m ? *m : std::string();
}

std::string Loc::Str() const {
  std::string s = file ? *file : std::string("<input>");
  if (line > 0) s += ":" + std::to_string(line);
  if (!path.empty()) s += ": " + std::string(path);
  return s;
}

std::optional<double> ParseSample(std::string_view text) {
  std::string_view s = text;
  if (s.size() >= 2 && s[0] == '+' && s[1] != '+' && s[1] != '-') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  double v = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v, std::chars_format::general);
  // Out-of-range decimals (1e999) report an error; they are not samples.
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

namespace {

// Common checks; returns the kind of warning to count, or nullptr.
const char* CheckRaw(double v, double blank, double max) {
  if (!std::isfinite(v)) return kWarnNonFinite;
  if (v >= blank) return kWarnBlank;
  if (v < 0 || v > max * (1 + 1e-6)) return kWarnRange;
  return nullptr;
}

void Count(const char* kind, std::string_view text, const Loc& loc, Warnings* warnings) {
  if (warnings) warnings->Add(kind, loc.Str() + ": '" + std::string(text.substr(0, 100)) + "'");
}

}  // namespace

const char* BusyWarning(double v, ValueKind kind) {
  return CheckRaw(v, kDcgmBlank, kind == ValueKind::kPercent ? 100.0 : 1.0);
}

std::optional<float> BusyFromRaw(double v, ValueKind kind, std::string_view text, const Loc& loc,
                                 Warnings* warnings) {
  const double max = kind == ValueKind::kPercent ? 100.0 : 1.0;
  if (const char* bad = BusyWarning(v, kind)) {
    Count(bad, text, loc, warnings);
    return std::nullopt;
  }
  return static_cast<float>(std::min(v, max) / max);
}

std::optional<int64_t> BytesFromRaw(double v, ValueKind kind, std::string_view text, const Loc& loc,
                                    Warnings* warnings) {
  const bool mib = kind == ValueKind::kMiB;
  if (const char* bad = CheckRaw(v, mib ? kDcgmBlank : kDcgmBlank64, mib ? kDcgmBlank : 9.2e18)) {
    Count(bad, text, loc, warnings);
    return std::nullopt;
  }
  return std::llround(mib ? v * 1048576.0 : v);
}

std::optional<float> WattsFromRaw(double v, std::string_view text, const Loc& loc,
                                  Warnings* warnings) {
  if (const char* bad = CheckRaw(v, kDcgmBlank, kMaxBoardWatts)) {
    Count(bad, text, loc, warnings);
    return std::nullopt;
  }
  return static_cast<float>(v);
}

namespace {

// Appends one sample to an entity's side series (memory or power), unless it
// is at or before the series' last sample (counted, dropped).
template <typename T>
void AddSide(std::map<EntityKey, SideSeries<T>>* series, const EntityKey& key, Micros t, T v,
             const char* what, const Loc& loc, Warnings* warnings) {
  SideSeries<T>& s = (*series)[key];
  if (!s.time.empty() && t <= s.time.back()) {
    if (warnings) {
      warnings->Add(kWarnOutOfOrder, loc.Str() + ": " + key.Describe() + " " + what + " at " +
                                         FormatSeconds(t) + " s, not after " +
                                         FormatSeconds(s.time.back()) + " s");
    }
    return;
  }
  s.time.push_back(t);
  s.value.push_back(v);
}

// The join of telemetry.h: the side series' value at each time of `time`
// (same entity, equal time), `missing` where it has none; marks the side
// samples used in *used (sized to the side series).
template <typename T>
std::vector<T> JoinByTime(const std::vector<Micros>& time, const SideSeries<T>& side, T missing,
                          std::vector<char>* used) {
  used->resize(side.time.size(), 0);
  std::vector<T> out(time.size(), missing);
  size_t j = 0;
  for (size_t i = 0; i < time.size(); ++i) {
    while (j < side.time.size() && side.time[j] < time[i]) ++j;
    if (j < side.time.size() && side.time[j] == time[i]) {
      out[i] = side.value[j];
      (*used)[j] = 1;
    }
  }
  return out;
}

// Counts the side samples no utilization sample took: once per entity
// without any utilization track (`only`), else once per sample (`unmatched`).
template <typename T>
void CountUnjoined(const std::map<EntityKey, SideSeries<T>>& series,
                   const std::map<EntityKey, std::vector<char>>& used, const char* only,
                   const char* unmatched, Warnings* warnings) {
  if (!warnings) return;
  for (const auto& [k, s] : series) {
    auto u = used.find(k);
    if (u == used.end()) {
      warnings->Add(only, k.Describe());
      continue;
    }
    for (size_t j = 0; j < s.time.size(); ++j) {
      if (!u->second[j])
        warnings->Add(unmatched, k.Describe() + " at " + FormatSeconds(s.time[j]) + " s");
    }
  }
}

}  // namespace

void TrackSet::AddUtil(const EntityKey& key, UtilSignal signal, Micros t, float busy,
                       const Loc& loc) {
  auto [it, fresh] = util_.try_emplace({key, signal});
  Series& s = it->second;
  if (fresh && key.job.empty() && key.host.empty() && warnings_) {
    warnings_->Add(kWarnNoJoinLabel, loc.Str() + ": " + key.Describe());
  }
  if (!s.time.empty() && t <= s.time.back()) {
    if (warnings_) {
      warnings_->Add(kWarnOutOfOrder, loc.Str() + ": " + key.Describe() + " " +
                                          UtilSignalName(signal) + " at " + FormatSeconds(t) +
                                          " s, not after " + FormatSeconds(s.time.back()) + " s");
    }
    return;
  }
  s.time.push_back(t);
  s.busy.push_back(busy);
}

void TrackSet::AddMem(const EntityKey& key, Micros t, int64_t bytes, const Loc& loc) {
  AddSide(&mem_, key, t, bytes, "memory", loc, warnings_);
}

void TrackSet::AddPower(const EntityKey& key, Micros t, float watts, const Loc& loc) {
  AddSide(&power_, key, t, watts, "power", loc, warnings_);
}

void TrackSet::SetModel(const EntityKey& key, std::string_view model) {
  if (!model.empty()) model_.try_emplace(key, model);
}

void TrackSet::Finish(std::vector<UtilTrack>* out) {
  // Side samples joined to some track, per entity.
  std::map<EntityKey, std::vector<char>> mem_used, power_used;
  for (auto& [ks, s] : util_) {
    const EntityKey& k = ks.first;
    UtilTrack tr;
    tr.job = k.job;
    tr.host = k.host;
    tr.gpu = k.gpu;
    tr.gpu_instance = k.gpu_instance;
    tr.namespace_name = k.namespace_name;
    tr.container = k.container;
    tr.signal = ks.second;
    if (auto m = model_.find(k); m != model_.end()) tr.model = m->second;
    if (auto m = mem_.find(k); m != mem_.end()) {
      tr.mem_bytes = JoinByTime<int64_t>(s.time, m->second, -1, &mem_used[k]);
    }
    if (auto p = power_.find(k); p != power_.end()) {
      tr.power_w = JoinByTime<float>(s.time, p->second, -1.0f, &power_used[k]);
    }
    tr.time = std::move(s.time);
    tr.busy = std::move(s.busy);
    out->push_back(std::move(tr));
  }
  CountUnjoined(mem_, mem_used, kWarnMemoryOnly, kWarnMemoryUnmatched, warnings_);
  CountUnjoined(power_, power_used, kWarnPowerOnly, kWarnPowerUnmatched, warnings_);
  util_.clear();
  mem_.clear();
  power_.clear();
  model_.clear();
}

Result<std::string> ReadWholeFile(const std::string& path) {
  auto opened = OpenCsvInput(path);
  if (!opened.ok()) return opened.status();
  CsvInput& in = *opened.value();
  std::string text;
  constexpr size_t kChunk = size_t{1} << 20;
  for (;;) {
    const size_t old = text.size();
    text.resize(old + kChunk);
    const int64_t n = in.Read(text.data() + old, kChunk);
    if (n < 0) {
      return Status::Error(
          path + (in.gzip_error ? ": truncated or corrupt gzip data (" : ": read error (") +
          in.error + ")");
    }
    text.resize(old + static_cast<size_t>(n));
    if (n == 0) break;
  }
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  return text;
}

}  // namespace utilsim::traces::internal
