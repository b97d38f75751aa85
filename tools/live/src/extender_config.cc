#include "utilsim/live/extender_config.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace utilsim::live {
namespace {

// Errors of one file, "<file>:<line>: key '<path>': ...".
struct Reader {
  std::string file;

  Status Bad(const YAML::Node& n, const std::string& key, const std::string& what) const {
    const int line = n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
    std::string got;
    if (n.IsScalar()) got = ", got '" + n.Scalar() + "'";
    if (n.IsSequence()) got = ", got a list";
    if (n.IsMap()) got = ", got a mapping";
    return Status::Error(
        StatusCode::kInvalidArgument,
        file + ":" + std::to_string(line) + ": key '" + key + "': expected " + what + got);
  }
  Status Keys(const YAML::Node& m, const std::string& where,
              const std::set<std::string>& known) const {
    if (!m.IsMap()) return Bad(m, where, "a mapping");
    for (auto it = m.begin(); it != m.end(); ++it) {
      const std::string k = it->first.Scalar();
      if (!known.count(k)) {
        std::string list;
        for (const std::string& s : known) list += (list.empty() ? "" : ", ") + s;
        return Bad(it->first, where.empty() ? k : where + "." + k,
                   "one of the known keys (" + list + ")");
      }
    }
    return Status::Ok();
  }
  Status Int(const YAML::Node& n, const std::string& key, int64_t lo, int64_t hi,
             int64_t* out) const {
    if (!n.IsScalar()) return Bad(n, key, "an integer");
    try {
      size_t used = 0;
      const long long v = std::stoll(n.Scalar(), &used);
      if (used != n.Scalar().size() || v < lo || v > hi)
        return Bad(n, key, "an integer " + std::to_string(lo) + ".." + std::to_string(hi));
      *out = v;
      return Status::Ok();
    } catch (...) {
      return Bad(n, key, "an integer " + std::to_string(lo) + ".." + std::to_string(hi));
    }
  }
  template <typename T>
  Status IntTo(const YAML::Node& n, const std::string& key, int64_t lo, int64_t hi, T* out) const {
    int64_t v = 0;
    if (Status s = Int(n, key, lo, hi, &v); !s.ok()) return s;
    *out = static_cast<T>(v);
    return Status::Ok();
  }
  Status Real(const YAML::Node& n, const std::string& key, double lo, double hi,
              double* out) const {
    if (!n.IsScalar()) return Bad(n, key, "a number");
    try {
      size_t used = 0;
      const double v = std::stod(n.Scalar(), &used);
      if (used != n.Scalar().size() || !(v >= lo && v <= hi))
        return Bad(n, key, "a number " + std::to_string(lo) + ".." + std::to_string(hi));
      *out = v;
      return Status::Ok();
    } catch (...) {
      return Bad(n, key, "a number");
    }
  }
  Status Str(const YAML::Node& n, const std::string& key, std::string* out) const {
    if (!n.IsScalar()) return Bad(n, key, "a string");
    *out = n.Scalar();
    return Status::Ok();
  }
  Status Bool(const YAML::Node& n, const std::string& key, bool* out) const {
    if (!n.IsScalar() || (n.Scalar() != "true" && n.Scalar() != "false"))
      return Bad(n, key, "true or false");
    *out = n.Scalar() == "true";
    return Status::Ok();
  }
  Status Strings(const YAML::Node& n, const std::string& key, std::vector<std::string>* out) const {
    if (!n.IsSequence()) return Bad(n, key, "a list of strings");
    out->clear();
    for (size_t i = 0; i < n.size(); ++i) {
      if (!n[i].IsScalar()) return Bad(n[i], key + "[" + std::to_string(i) + "]", "a string");
      out->push_back(n[i].Scalar());
    }
    return Status::Ok();
  }
};

#define US_TRY(expr)                             \
  do {                                           \
    if (Status _s = (expr); !_s.ok()) return _s; \
  } while (0)

}  // namespace

Status ParseListen(const std::string& text, ServerOptions* out) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    return Status::Error(StatusCode::kInvalidArgument,
                         "listen address '" + text + "': expected HOST:PORT, e.g. 127.0.0.1:8888");
  try {
    size_t used = 0;
    const std::string port = text.substr(colon + 1);
    const int p = std::stoi(port, &used);
    if (used != port.size() || p < 0 || p > 65535) throw std::out_of_range("port");
    out->host = text.substr(0, colon);
    if (out->host.size() > 2 && out->host.front() == '[' && out->host.back() == ']')
      out->host = out->host.substr(1, out->host.size() - 2);
    out->port = p;
    return Status::Ok();
  } catch (...) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "listen address '" + text + "': the port must be 0..65535");
  }
}

Result<ExtenderConfig> LoadExtenderConfig(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    return Status::Error(StatusCode::kNotFound, path + ": cannot read the file");
  } catch (const YAML::Exception& e) {
    return Status::Error(StatusCode::kInvalidArgument,
                         path + ":" + std::to_string(e.mark.line + 1) + ": not YAML: " + e.msg);
  }
  ExtenderConfig c;
  if (root.IsNull()) return c;  // an empty file: every default
  Reader r{path};
  US_TRY(r.Keys(
      root, "",
      {"listen", "policy", "rank_depth", "fallback_util", "managed_resources", "resources",
       "kubernetes", "prometheus", "safety", "tls", "bind", "shadow_log", "score_every_node"}));
  if (auto n = root["listen"]) {
    std::string s;
    US_TRY(r.Str(n, "listen", &s));
    if (Status st = ParseListen(s, &c.server); !st.ok())
      return r.Bad(n, "listen", "HOST:PORT with a port 0..65535");
  }
  if (auto n = root["policy"]) US_TRY(r.Str(n, "policy", &c.state.policy));
  if (auto n = root["rank_depth"]) US_TRY(r.IntTo(n, "rank_depth", 1, 10, &c.state.rank_depth));
  if (auto n = root["fallback_util"]) {
    double v = 1;
    US_TRY(r.Real(n, "fallback_util", 0, 1, &v));
    c.state.fallback_util = static_cast<float>(v);
  }
  if (auto n = root["managed_resources"])
    US_TRY(r.Strings(n, "managed_resources", &c.extender.managed_resources));
  if (auto n = root["score_every_node"])
    US_TRY(r.Bool(n, "score_every_node", &c.extender.score_every_node));
  if (auto res = root["resources"]) {
    US_TRY(r.Keys(res, "resources", {"whole", "share", "node_count"}));
    if (auto n = res["whole"]) US_TRY(r.Strings(n, "resources.whole", &c.state.resources.whole));
    if (auto n = res["node_count"])
      US_TRY(r.Strings(n, "resources.node_count", &c.state.resources.node_count));
    if (auto n = res["share"]) {
      if (!n.IsSequence()) return r.Bad(n, "resources.share", "a list of {name, unit}");
      c.state.resources.share.clear();
      for (size_t i = 0; i < n.size(); ++i) {
        const std::string at = "resources.share[" + std::to_string(i) + "]";
        US_TRY(r.Keys(n[i], at, {"name", "unit"}));
        ShareResource s;
        if (!n[i]["name"]) return r.Bad(n[i], at + ".name", "a resource name");
        US_TRY(r.Str(n[i]["name"], at + ".name", &s.name));
        std::string unit = "percent";
        if (n[i]["unit"]) US_TRY(r.Str(n[i]["unit"], at + ".unit", &unit));
        if (unit == "percent") {
          s.unit = ShareResource::Unit::kPercent;
        } else if (unit == "mib") {
          s.unit = ShareResource::Unit::kGpuMemMiB;
        } else if (unit == "gib") {
          s.unit = ShareResource::Unit::kGpuMemGiB;
        } else {
          return r.Bad(n[i]["unit"], at + ".unit", "percent, mib or gib");
        }
        c.state.resources.share.push_back(s);
      }
    }
  }
  if (auto k = root["kubernetes"]) {
    US_TRY(r.Keys(k, "kubernetes", {"kubeconfig", "context", "in_cluster", "resync_s"}));
    if (auto n = k["kubeconfig"]) US_TRY(r.Str(n, "kubernetes.kubeconfig", &c.kubeconfig));
    if (auto n = k["context"]) US_TRY(r.Str(n, "kubernetes.context", &c.context));
    if (auto n = k["in_cluster"]) US_TRY(r.Bool(n, "kubernetes.in_cluster", &c.in_cluster));
    if (auto n = k["resync_s"]) US_TRY(r.IntTo(n, "kubernetes.resync_s", 0, 86400, &c.resync_s));
    if (c.in_cluster && !c.kubeconfig.empty())
      return r.Bad(k, "kubernetes", "either kubeconfig or in_cluster: true, not both");
  }
  if (auto p = root["prometheus"]) {
    US_TRY(r.Keys(p, "prometheus", {"url", "metric", "scrape_interval_s", "poll_s"}));
    if (auto n = p["url"]) US_TRY(r.Str(n, "prometheus.url", &c.prometheus_url));
    if (auto n = p["metric"]) {
      US_TRY(r.Str(n, "prometheus.metric", &c.metric));
      if (c.metric != "DCGM_FI_DEV_GPU_UTIL" && c.metric != "DCGM_FI_PROF_GR_ENGINE_ACTIVE" &&
          c.metric != "DCGM_FI_PROF_SM_ACTIVE")
        return r.Bad(n, "prometheus.metric",
                     "DCGM_FI_DEV_GPU_UTIL, DCGM_FI_PROF_GR_ENGINE_ACTIVE or "
                     "DCGM_FI_PROF_SM_ACTIVE");
    }
    if (auto n = p["scrape_interval_s"])
      US_TRY(r.IntTo(n, "prometheus.scrape_interval_s", 1, 3600, &c.scrape_interval_s));
    if (auto n = p["poll_s"]) US_TRY(r.IntTo(n, "prometheus.poll_s", 1, 3600, &c.poll_s));
  }
  if (auto s = root["safety"]) {
    US_TRY(r.Keys(s, "safety", {"threads", "max_in_flight", "deadline_ms", "max_body_bytes"}));
    if (auto n = s["threads"]) US_TRY(r.IntTo(n, "safety.threads", 1, 256, &c.server.threads));
    if (auto n = s["max_in_flight"])
      US_TRY(r.IntTo(n, "safety.max_in_flight", 1, 4096, &c.server.max_in_flight));
    if (auto n = s["deadline_ms"])
      US_TRY(r.IntTo(n, "safety.deadline_ms", 1, 60000, &c.server.deadline_ms));
    if (auto n = s["max_body_bytes"])
      US_TRY(r.IntTo(n, "safety.max_body_bytes", 1024, int64_t{1} << 30, &c.server.max_body_bytes));
  }
  if (auto t = root["tls"]) {
    US_TRY(r.Keys(t, "tls", {"cert_file", "key_file"}));
    if (auto n = t["cert_file"]) US_TRY(r.Str(n, "tls.cert_file", &c.server.tls_cert_file));
    if (auto n = t["key_file"]) US_TRY(r.Str(n, "tls.key_file", &c.server.tls_key_file));
    if (c.server.tls_cert_file.empty() != c.server.tls_key_file.empty())
      return r.Bad(t, "tls", "both cert_file and key_file");
  }
  if (auto b = root["bind"]) {
    US_TRY(r.Keys(b, "bind", {"enabled"}));
    if (auto n = b["enabled"]) US_TRY(r.Bool(n, "bind.enabled", &c.server.bind_enabled));
  }
  if (auto n = root["shadow_log"]) US_TRY(r.Str(n, "shadow_log", &c.shadow_log));
  return c;
}

}  // namespace utilsim::live
