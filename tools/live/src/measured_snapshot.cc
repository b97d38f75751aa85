// MeasuredSnapshot from a Prometheus result (measured_snapshot.h).
#include "measured_snapshot.h"

#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "utilsim/traces/dcgm_series.h"

namespace utilsim::live::internal {

namespace {

using nlohmann::json;
constexpr size_t kMaxWarnings = 20;

struct Warn {
  MeasuredSnapshot* snap;
  size_t more = 0;
  void Add(std::string w) {
    if (snap->warnings.size() < kMaxWarnings) {
      snap->warnings.push_back(std::move(w));
    } else {
      ++more;
    }
  }
};

std::string Describe(const std::string& metric,
                     const std::vector<std::pair<std::string, std::string>>& labels) {
  std::string s = metric + "{";
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (k == "__name__") continue;
    s += (first ? "" : ",") + k + "=\"" + v + "\"";
    first = false;
  }
  s += "}";
  return s.size() > 240 ? s.substr(0, 237) + "..." : s;
}

Status PathError(const std::string& path, const std::string& expected, const json& got) {
  const std::string text = got.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return Status::Error("prometheus result: field '" + path + "': expected " + expected + ", got '" +
                       text.substr(0, 100) + "'");
}

struct Acc {
  double sum = 0;
  int n = 0;
  int64_t oldest_ms = 0;
  void Add(double v, int64_t t) {
    oldest_ms = n == 0 ? t : std::min(oldest_ms, t);
    sum += v;
    ++n;
  }
};

}  // namespace

Result<MeasuredSnapshot> SnapshotFromResult(const json& data, const std::string& metric,
                                            UtilSignal signal, int64_t now_unix_ms,
                                            int64_t stale_after_ms) {
  MeasuredSnapshot snap;
  snap.taken_unix_ms = now_unix_ms;
  snap.metric = metric;
  Warn warn{&snap};
  const json type = data.is_object() && data.contains("resultType") ? data["resultType"] : json();
  if (type != "matrix" && type != "vector")
    return PathError("data.resultType", "\"matrix\" or \"vector\"", type);
  if (!data.contains("result") || !data["result"].is_array())
    return PathError("data.result", "an array", data.contains("result") ? data["result"] : json());
  const bool matrix = type == "matrix";
  std::map<std::string, std::map<int32_t, Acc>> gpus;
  std::map<std::string, Acc> pods;
  const json& result = data["result"];
  for (size_t i = 0; i < result.size(); ++i) {
    const std::string base = "data.result[" + std::to_string(i) + "]";
    const json& r = result[i];
    if (!r.is_object()) return PathError(base, "an object", r);
    std::vector<std::pair<std::string, std::string>> labels;
    if (r.contains("metric") && r["metric"].is_object()) {
      for (auto it = r["metric"].begin(); it != r["metric"].end(); ++it)
        if (it.value().is_string()) labels.emplace_back(it.key(), it.value().get<std::string>());
    }
    const std::string who = Describe(metric, labels);
    // The newest sample: [t, "v"].
    const json* newest = nullptr;
    if (matrix) {
      if (!r.contains("values") || !r["values"].is_array())
        return PathError(base + ".values", "an array", r.contains("values") ? r["values"] : json());
      for (const json& p : r["values"]) {
        if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_string())
          return PathError(base + ".values[]", "[<unix seconds>, \"<value>\"]", p);
        if (!newest || p[0].get<double>() > (*newest)[0].get<double>()) newest = &p;
      }
      if (!newest) continue;  // no samples in the window
    } else {
      if (!r.contains("value")) return PathError(base + ".value", "a sample", json());
      const json& p = r["value"];
      if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_string())
        return PathError(base + ".value", "[<unix seconds>, \"<value>\"]", p);
      newest = &p;
    }
    const double t_s = (*newest)[0].get<double>();
    const int64_t t_ms = std::llround(t_s * 1000.0);
    if (now_unix_ms - t_ms > stale_after_ms) {
      ++snap.stale;
      continue;
    }
    const std::string text = (*newest)[1].get<std::string>();
    const std::optional<traces::DcgmBusy> busy = traces::DcgmBusyFromText(signal, text);
    if (!busy) {
      warn.Add(who + ": value '" + text.substr(0, 40) + "' is not a number");
      continue;
    }
    if (busy->warning) {
      warn.Add(who + ": " + busy->warning + " '" + text.substr(0, 40) + "'");
      continue;
    }
    auto key = traces::DcgmLabelsOf(labels);
    if (!key.ok()) {
      warn.Add(who + ": " + key.status().message());
      continue;
    }
    ++snap.fresh;
    const traces::DcgmSeriesLabels& k = key.value();
    if (k.host.empty()) {
      warn.Add(who + ": series without host (no hostname/Hostname label)");
    } else if (k.gpu < 0) {
      warn.Add(who + ": series without gpu label");
    } else {
      gpus[k.host][k.gpu].Add(busy->busy, t_ms);
    }
    if (!k.pod.empty()) {
      if (k.namespace_name.empty()) {
        warn.Add(who + ": pod without namespace label (not in pods)");
      } else {
        pods[k.namespace_name + "/" + k.pod].Add(busy->busy, t_ms);
      }
    }
  }
  for (const auto& [node, per_gpu] : gpus) {
    for (const auto& [gpu, acc] : per_gpu) {
      if (acc.n > 1) {
        warn.Add("node " + node + " gpu " + std::to_string(gpu) + ": " + std::to_string(acc.n) +
                 " series (MIG instances or duplicate scrapes), averaged");
      }
      snap.gpus[node][gpu] = GpuReading{acc.sum / acc.n, acc.oldest_ms};
    }
  }
  for (const auto& [pod, acc] : pods) snap.pods[pod] = acc.sum / acc.n;
  if (warn.more > 0) snap.warnings.push_back("... and " + std::to_string(warn.more) + " more");
  return snap;
}

}  // namespace utilsim::live::internal
