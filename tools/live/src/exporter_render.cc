// Replay::Render, MapCsv and Clock (exporter.h), and the label set
// (exporter_labels.h).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>

#include "exporter_labels.h"
#include "utilsim/live/exporter.h"
#include "utilsim/traces/dcgm_series.h"

namespace utilsim::live {

namespace internal {

std::string MakeUuid(const std::string& node, int32_t gpu) {
  auto fnv = [](const std::string& s, uint64_t h) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
  };
  const std::string key = node + "/" + std::to_string(gpu);
  const uint64_t a = fnv(key, 14695981039346656037ull), b = fnv(key + "#", a);
  char buf[64];
  std::snprintf(buf, sizeof buf, "GPU-%08x-%04x-%04x-%04x-%012llx", unsigned(a >> 32),
                unsigned((a >> 16) & 0xffff), unsigned(a & 0xffff), unsigned(b >> 48),
                static_cast<unsigned long long>(b & 0xffffffffffffull));
  return buf;
}

std::string EscapeLabel(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string LabelSet(const Replay::Series& s, const ServeOptions& serve) {
  const Replay::Target& t = s.target;
  std::string l = "{gpu=\"" + std::to_string(t.gpu) + "\",UUID=\"" + s.uuid + "\",device=\"nvidia" +
                  std::to_string(t.gpu) + "\",modelName=\"" + EscapeLabel(serve.model_name) + "\"";
  if (!t.gpu_instance.empty()) l += ",GPU_I_ID=\"" + EscapeLabel(t.gpu_instance) + "\"";
  l += "," + serve.hostname_label + "=\"" + EscapeLabel(t.node) + "\"";
  if (!t.container.empty()) l += ",container=\"" + EscapeLabel(t.container) + "\"";
  if (!t.namespace_name.empty()) l += ",namespace=\"" + EscapeLabel(t.namespace_name) + "\"";
  if (!t.pod.empty()) l += ",pod=\"" + EscapeLabel(t.pod) + "\"";
  return l + "}";
}

std::string CsvField(const std::string& v) {
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace internal

namespace {

struct MetricText {
  UtilSignal signal;
  const char* help;
};
// dcgm-exporter's default-counters.csv help texts.
constexpr MetricText kUtilMetrics[] = {
    {UtilSignal::kGpuUtil, "GPU utilization (in %)."},
    {UtilSignal::kGrEngineActive, "Ratio of time the graphics engine is active."},
    {UtilSignal::kSmActive, "The ratio of cycles an SM has at least 1 warp assigned."},
};

// Shortest text that reads back as the same float.
std::string Number(float v) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, ptr) : std::to_string(v);
}

}  // namespace

std::string Replay::Render(Micros t) const {
  const Micros hold = *FromSeconds(serve_.hold_s);
  // Index of the sample served at t, or -1.
  auto at = [&](const Series& s) -> ptrdiff_t {
    const auto it = std::upper_bound(s.time.begin(), s.time.end(), t);
    if (it == s.time.begin()) return -1;
    const ptrdiff_t i = it - s.time.begin() - 1;
    if (hold.us > 0 && t - s.time[size_t(i)] > hold) return -1;
    return i;
  };
  std::string out;
  for (const MetricText& m : kUtilMetrics) {
    const std::string name = traces::DcgmUtilMetric(m.signal);
    bool header = false;
    for (const Series& s : series_) {
      if (s.signal != m.signal) continue;
      if (!header) {
        out += "# HELP " + name + " " + m.help + "\n# TYPE " + name + " gauge\n";
        header = true;
      }
      const ptrdiff_t i = at(s);
      if (i < 0) continue;
      const float b = s.busy[size_t(i)];
      out +=
          name + s.labels + " " + Number(m.signal == UtilSignal::kGpuUtil ? b * 100.0f : b) + "\n";
    }
  }
  bool header = false;
  for (const Series& s : series_) {
    if (s.mem_bytes.empty()) continue;
    if (!header) {
      out +=
          "# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).\n"
          "# TYPE DCGM_FI_DEV_FB_USED gauge\n";
      header = true;
    }
    const ptrdiff_t i = at(s);
    if (i < 0 || s.mem_bytes[size_t(i)] < 0) continue;
    out += "DCGM_FI_DEV_FB_USED" + s.labels + " " +
           Number(static_cast<float>(static_cast<double>(s.mem_bytes[size_t(i)]) / 1048576.0)) +
           "\n";
  }
  return out;
}

std::string Replay::MapCsv() const {
  std::map<std::string, const Target*> by_entity;
  for (const Series& s : series_) by_entity.emplace(s.target.entity, &s.target);
  std::string out = "entity,node,gpu,pod,namespace\n";
  for (const auto& [entity, target] : by_entity) {
    const Target& t = *target;
    out += internal::CsvField(t.entity) + "," + internal::CsvField(t.node) + "," +
           std::to_string(t.gpu) + "," + internal::CsvField(t.pod) + "," +
           internal::CsvField(t.namespace_name) + "\n";
  }
  return out;
}

Result<ReplayClock> Replay::Clock(std::optional<Micros> start, double speed, bool loop) const {
  if (!(speed > 0) || !std::isfinite(speed))
    return Status::Error(StatusCode::kInvalidArgument, "speed must be > 0");
  ReplayClock c;
  c.start = start.value_or(first_);
  if (c.start > last_) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "start %.3f s is after the last sample (%.3f s)",
                  c.start.seconds(), last_.seconds());
    return Status::Error(StatusCode::kInvalidArgument, buf);
  }
  c.speed = speed;
  c.loop = loop;
  c.period = last_ - c.start + spacing_;
  return c;
}

Micros ReplayClock::At(double elapsed_wall_s) const {
  const double off_us = std::max(0.0, elapsed_wall_s) * speed * 1e6;
  int64_t off = off_us >= 9e18 ? INT64_MAX / 4 : std::llround(off_us);
  if (loop && period.us > 0) off %= period.us;
  return start + Micros(off);
}

}  // namespace utilsim::live
