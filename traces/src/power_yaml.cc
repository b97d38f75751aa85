#include "utilsim/traces/power_yaml.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "telemetry_common.h"

namespace utilsim {
namespace {

class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  Status At(const YAML::Node& n, const std::string& message) const {
    return Status::Error(source_ + ":" + std::to_string(std::max(n.Mark().line, 0) + 1) + ": " +
                         message);
  }
  Status Keys(const YAML::Node& map, const std::string& path,
              const std::set<std::string>& known) const {
    if (!map.IsMap())
      return At(map, (path.empty() ? std::string("document") : "key '" + path + "'") +
                         ": expected a mapping");
    for (const auto& kv : map) {
      const std::string k = kv.first.Scalar();
      if (!known.count(k))
        return At(kv.first, "unknown key '" + (path.empty() ? k : path + "." + k) + "'");
    }
    return Status::Ok();
  }
  Status Number(const YAML::Node& n, const std::string& key, double min, const std::string& what,
                double* out) const {
    const std::string got = n.IsScalar() ? n.Scalar() : "<not a number>";
    double v = 0;
    bool ok = n.IsScalar();
    if (ok) {
      char* end = nullptr;
      v = std::strtod(got.c_str(), &end);
      ok = end != got.c_str() && *end == '\0' && std::isfinite(v) && v >= min;
    }
    if (!ok) return At(n, "key '" + key + "': expected " + what + ", got '" + got + "'");
    *out = v;
    return Status::Ok();
  }
  Status Gpu(const YAML::Node& n, const std::string& path, GpuPower* p) const {
    if (Status s = Keys(n, path, {"idle_w", "context_w", "active_w", "tdp_w"}); !s.ok()) return s;
    for (const char* k : {"idle_w", "context_w", "active_w"})
      if (!n[k]) return At(n, "key '" + path + "': missing '" + k + "'");
    if (Status s = Number(n["idle_w"], path + ".idle_w", 0, "watts >= 0", &p->idle_w); !s.ok())
      return s;
    char buf[64];
    std::snprintf(buf, sizeof buf, "watts >= idle_w (%g)", p->idle_w);
    if (Status s = Number(n["context_w"], path + ".context_w", p->idle_w, buf, &p->context_w);
        !s.ok())
      return s;
    std::snprintf(buf, sizeof buf, "watts >= context_w (%g)", p->context_w);
    if (Status s = Number(n["active_w"], path + ".active_w", p->context_w, buf, &p->active_w);
        !s.ok())
      return s;
    p->tdp_w = 0;  // unknown unless given
    if (n["tdp_w"]) {
      std::snprintf(buf, sizeof buf, "watts > context_w (%g)", p->context_w);
      if (Status s = Number(n["tdp_w"], path + ".tdp_w", p->context_w, buf, &p->tdp_w); !s.ok())
        return s;
      if (p->tdp_w <= p->context_w)
        return At(n["tdp_w"], "key '" + path + ".tdp_w': expected " + buf);
    }
    p->source = source_;
    return Status::Ok();
  }

  // cap_curve: a list of [g, time, energy] rows (power.h CapPoint).
  Status Curve(const YAML::Node& c, std::vector<CapPoint>* out) const {
    if (!c.IsSequence() || c.size() == 0)
      return At(c, "key 'cap_curve': expected a list of [g, time, energy] rows");
    out->clear();
    for (size_t i = 0; i < c.size(); ++i) {
      const YAML::Node row = c[i];
      const std::string key = "cap_curve[" + std::to_string(i) + "]";
      if (!row.IsSequence() || row.size() != 3)
        return At(row, "key '" + key + "': expected [g, time, energy]");
      CapPoint p;
      if (Status s = Number(row[0], key + ".g", 0, "a number > 0", &p.g); !s.ok()) return s;
      if (Status s = Number(row[1], key + ".time", 1, "a number >= 1", &p.time); !s.ok()) return s;
      if (Status s = Number(row[2], key + ".energy", 0, "a number > 0", &p.energy); !s.ok())
        return s;
      out->push_back(p);
    }
    if (std::string e = CheckCapCurve(*out); !e.empty()) return At(c, "key 'cap_curve': " + e);
    return Status::Ok();
  }

  Result<PowerModel> Parse(const YAML::Node& root) const {
    PowerModel m = DefaultPowerModel();
    if (!root || root.IsNull()) return m;
    if (Status s = Keys(root, "",
                        {"pue", "node_w_per_gpu", "cpu_node_w", "fallback", "models", "cap_curve"});
        !s.ok())
      return s;
    if (const YAML::Node c = root["cap_curve"]) {
      if (Status s = Curve(c, &m.cap_curve); !s.ok()) return s;
    }
    if (root["pue"])
      if (Status s = Number(root["pue"], "pue", 1, "a number >= 1", &m.pue); !s.ok()) return s;
    if (root["node_w_per_gpu"])
      if (Status s =
              Number(root["node_w_per_gpu"], "node_w_per_gpu", 0, "watts >= 0", &m.node_w_per_gpu);
          !s.ok())
        return s;
    if (root["cpu_node_w"])
      if (Status s = Number(root["cpu_node_w"], "cpu_node_w", 0, "watts >= 0", &m.cpu_node_w);
          !s.ok())
        return s;
    if (root["fallback"])
      if (Status s = Gpu(root["fallback"], "fallback", &m.fallback); !s.ok()) return s;
    if (const YAML::Node models = root["models"]) {
      if (!models.IsMap()) return At(models, "key 'models': expected a mapping of model names");
      for (const auto& kv : models) {
        const std::string name = kv.first.Scalar();
        GpuPower p;
        if (Status s = Gpu(kv.second, "models." + name, &p); !s.ok()) return s;
        auto it = std::find_if(m.models.begin(), m.models.end(),
                               [&](const auto& e) { return e.first == name; });
        if (it != m.models.end())
          it->second = p;
        else
          m.models.insert(m.models.begin(), {name, p});  // before the built-in aliases
      }
    }
    return m;
  }

 private:
  std::string source_;
};

}  // namespace

Result<PowerModel> ParsePowerYaml(const std::string& text, const std::string& source_name) {
  try {
    return Parser(source_name).Parse(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    return Status::Error(source_name + ":" + std::to_string(e.mark.line + 1) +
                         ": YAML error: " + e.msg);
  }
}

Result<PowerModel> ReadPowerYaml(const std::string& path) {
  auto text = traces::internal::ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParsePowerYaml(text.value(), path);
}

}  // namespace utilsim
