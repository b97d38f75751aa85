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
  Mem& m = mem_[key];
  if (!m.time.empty() && t <= m.time.back()) {
    if (warnings_) {
      warnings_->Add(kWarnOutOfOrder, loc.Str() + ": " + key.Describe() + " memory at " +
                                          FormatSeconds(t) + " s, not after " +
                                          FormatSeconds(m.time.back()) + " s");
    }
    return;
  }
  m.time.push_back(t);
  m.bytes.push_back(bytes);
}

void TrackSet::Finish(std::vector<UtilTrack>* out) {
  std::map<EntityKey, std::vector<char>> used;  // memory samples joined to some track
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
    auto m = mem_.find(k);
    if (m != mem_.end()) {
      std::vector<char>& u = used[k];
      u.resize(m->second.time.size(), 0);
      tr.mem_bytes.assign(s.time.size(), -1);
      size_t j = 0;
      for (size_t i = 0; i < s.time.size(); ++i) {
        while (j < m->second.time.size() && m->second.time[j] < s.time[i]) ++j;
        if (j < m->second.time.size() && m->second.time[j] == s.time[i]) {
          tr.mem_bytes[i] = m->second.bytes[j];
          u[j] = 1;
        }
      }
    }
    tr.time = std::move(s.time);
    tr.busy = std::move(s.busy);
    out->push_back(std::move(tr));
  }
  for (const auto& [k, m] : mem_) {
    auto u = used.find(k);
    if (u == used.end()) {
      if (warnings_) warnings_->Add(kWarnMemoryOnly, k.Describe());
      continue;
    }
    for (size_t j = 0; j < m.time.size(); ++j) {
      if (!u->second[j] && warnings_) {
        warnings_->Add(kWarnMemoryUnmatched,
                       k.Describe() + " at " + FormatSeconds(m.time[j]) + " s");
      }
    }
  }
  util_.clear();
  mem_.clear();
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
