// Prometheus HTTP API query_range / query JSON (telemetry.h, reader 2).
#include <algorithm>
#include <exception>
#include <nlohmann/json.hpp>

#include "telemetry_common.h"

namespace utilsim::traces {

namespace {

using nlohmann::json;

std::string Cut(const std::string& s) { return s.size() > 100 ? s.substr(0, 100) : s; }

Status FieldError(const std::string& file, const std::string& path, std::string_view expected,
                  const json& got) {
  std::string text = got.is_string() ? got.get<std::string>() : got.dump();
  return Status::Error(file + ": field '" + path + "': expected " + std::string(expected) +
                       ", got '" + Cut(text) + "'");
}

Status CheckMetricName(const std::string& metric, const std::string& what) {
  if (metric.empty() || internal::LookupDcgmMetric(metric)) return Status::Ok();
  return Status::Error(what +
                       ": expected DCGM_FI_DEV_GPU_UTIL, DCGM_FI_PROF_SM_ACTIVE, "
                       "DCGM_FI_PROF_GR_ENGINE_ACTIVE, DCGM_FI_DEV_FB_USED or "
                       "DCGM_FI_DEV_POWER_USAGE, got '" +
                       metric + "'");
}

struct Reader {
  const std::string& file;
  const std::string& metric;  // for series without __name__
  const TelemetryOptions& options;
  internal::TrackSet* tracks;
  TelemetryData* out;
  std::map<std::string, int64_t>* other;

  Status Sample(const json& pair, const std::string& path, const internal::MetricInfo& info,
                const internal::EntityKey& key) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_string()) {
      return FieldError(file, path, "[<unix seconds>, \"<value>\"]", pair);
    }
    const std::optional<Micros> t = FromSeconds(pair[0].get<double>());
    if (!t) return FieldError(file, path + "[0]", "a time in seconds", pair[0]);
    const std::string text = pair[1].get<std::string>();
    const std::optional<double> v = internal::ParseSample(text);
    if (!v) return FieldError(file, path + "[1]", "a number", pair[1]);
    const internal::Loc loc{&file, 0, path};
    if (info.memory()) {
      if (auto b = internal::BytesFromRaw(*v, info.kind, text, loc, &out->warnings)) {
        tracks->AddMem(key, *t, *b, loc);
      }
    } else if (info.power()) {
      if (auto w = internal::WattsFromRaw(*v, text, loc, &out->warnings)) {
        tracks->AddPower(key, *t, *w, loc);
      }
    } else if (auto busy = internal::BusyFromRaw(*v, info.kind, text, loc, &out->warnings)) {
      tracks->AddUtil(key, info.signal, *t, *busy, loc);
    }
    ++out->rows_read;
    return Status::Ok();
  }

  Status Series(const json& r, size_t i, bool matrix) {
    const std::string base = "data.result[" + std::to_string(i) + "]";
    if (!r.is_object()) return FieldError(file, base, "an object", r);
    internal::Labels labels;
    std::string name = metric;
    if (r.contains("metric")) {
      const json& m = r["metric"];
      if (!m.is_object()) return FieldError(file, base + ".metric", "an object", m);
      for (auto it = m.begin(); it != m.end(); ++it) {
        if (!it.value().is_string()) {
          return FieldError(file, base + ".metric." + it.key(), "a string", it.value());
        }
        if (it.key() == "__name__") {
          name = it.value().get<std::string>();
        } else {
          labels.emplace_back(it.key(), it.value().get<std::string>());
        }
      }
    }
    if (name.empty()) {
      return FieldError(file, base + ".metric", "a __name__ label (or a metric option)",
                        r.contains("metric") ? r["metric"] : json::object());
    }
    const std::optional<internal::MetricInfo> info = internal::LookupDcgmMetric(name);
    const char* field = matrix ? "values" : "value";
    if (!r.contains(field))
      return FieldError(file, base, std::string("a \"") + field + "\" member", r);
    const json& vals = r[field];
    if (!info) {
      ++(*other)[name];
      return Status::Ok();
    }
    auto key = internal::KeyFromLabels(labels, options.host);
    if (!key.ok()) return Status::Error(file + ": " + base + ".metric: " + key.status().message());
    tracks->SetModel(key.value(), internal::ModelFromLabels(labels));
    if (!matrix) return Sample(vals, base + ".value", *info, key.value());
    if (!vals.is_array()) return FieldError(file, base + ".values", "an array", vals);
    for (size_t k = 0; k < vals.size(); ++k) {
      Status st = Sample(vals[k], base + ".values[" + std::to_string(k) + "]", *info, key.value());
      if (!st.ok()) return st;
    }
    return Status::Ok();
  }

  Status Parse(const std::string& text) {
    json j;
    try {
      j = json::parse(text);
    } catch (const json::parse_error& e) {
      const size_t at = std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
      const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n');
      return Status::Error(file + ":" + std::to_string(line) + ": invalid JSON (" + e.what() + ")");
    } catch (const json::exception& e) {  // e.g. a number beyond double (out_of_range.406)
      return Status::Error(file + ": invalid JSON (" + std::string(e.what()) + ")");
    }
    if (!j.is_object() || !j.contains("status")) {
      return FieldError(file, "status", "a Prometheus API response with \"status\"", j);
    }
    const json& status = j["status"];
    if (status == "error") {
      auto str = [&](const char* k) {
        return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string("?");
      };
      return Status::Error(file + ": query failed: " + str("errorType") + ": " + str("error"));
    }
    if (status != "success") return FieldError(file, "status", "\"success\" or \"error\"", status);
    if (j.contains("warnings") && j["warnings"].is_array()) {
      for (const json& w : j["warnings"]) {
        out->notes.push_back(
            file + ": Prometheus warning: " + (w.is_string() ? w.get<std::string>() : w.dump()));
      }
    }
    if (!j.contains("data") || !j["data"].is_object()) {
      return FieldError(file, "data", "an object", j.contains("data") ? j["data"] : json());
    }
    const json& data = j["data"];
    const json type = data.contains("resultType") ? data["resultType"] : json();
    if (type != "matrix" && type != "vector") {
      return FieldError(file, "data.resultType", "\"matrix\" or \"vector\"", type);
    }
    if (!data.contains("result") || !data["result"].is_array()) {
      return FieldError(file, "data.result", "an array",
                        data.contains("result") ? data["result"] : json());
    }
    const json& result = data["result"];
    for (size_t i = 0; i < result.size(); ++i) {
      Status st = Series(result[i], i, type == "matrix");
      if (!st.ok()) return st;
    }
    return Status::Ok();
  }
};

}  // namespace

Result<TelemetryData> ReadPromQueryRange(const std::vector<PromQueryFile>& files,
                                         const TelemetryOptions& options) {
  Status st = CheckMetricName(options.metric, "option metric");
  if (!st.ok()) return st;
  TelemetryData out;
  internal::TrackSet tracks(&out.warnings);
  std::map<std::string, int64_t> other;
  for (const PromQueryFile& f : files) {
    const std::string& metric = f.metric.empty() ? options.metric : f.metric;
    st = CheckMetricName(metric, f.path + ": metric");
    if (!st.ok()) return st;
    auto text = internal::ReadWholeFile(f.path);
    if (!text.ok()) return text.status();
    out.bytes_read += static_cast<int64_t>(text.value().size());
    Reader r{f.path, metric, options, &tracks, &out, &other};
    try {
      st = r.Parse(text.value());
    } catch (const std::exception& e) {  // defensive: nlohmann type errors
      st = Status::Error(f.path + ": unexpected JSON content (" + e.what() + ")");
    }
    if (!st.ok()) return st;
  }
  tracks.Finish(&out.tracks);
  out.notes.push_back("time origin: UNIX epoch (Prometheus sample times)");
  for (const auto& [name, n] : other) {
    out.notes.push_back("skipped " + std::to_string(n) + " samples of metric " + name);
  }
  return out;
}

Result<TelemetryData> ReadPromQueryRange(const std::string& path, const TelemetryOptions& options) {
  return ReadPromQueryRange(std::vector<PromQueryFile>{{path, ""}}, options);
}

}  // namespace utilsim::traces
