// Reader of the YAML cluster spec (docs/trace-format.md).
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "jobs_columns.h"
#include "utilsim/engine/mig.h"
#include "utilsim/engine/topology.h"
#include "utilsim/engine/units.h"
#include "utilsim/traces/canonical.h"

namespace utilsim::traces {

namespace {

using internal::kMiB;

// A mapping's entries by key, with the key's path for messages.
struct Entries {
  std::map<std::string, YAML::Node> values;
  YAML::Node map;
  std::string path;  // "node_groups[2]" or "" for the root
  bool has(const std::string& k) const { return values.count(k) > 0; }
};

class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  Status At(const YAML::Node& n, const std::string& message) const {
    // Empty documents and missing values have no position: say line 1.
    return Status::Error(source_ + ":" + std::to_string(std::max(n.Mark().line, 0) + 1) + ": " +
                         message);
  }
  std::string KeyName(const Entries& e, const std::string& k) const {
    return e.path.empty() ? k : e.path + "." + k;
  }
  Status Bad(const Entries& e, const std::string& k, const std::string& expected) const {
    const YAML::Node& n = e.values.at(k);
    std::string got = n.IsScalar()     ? n.Scalar()
                      : n.IsMap()      ? "<a mapping>"
                      : n.IsSequence() ? (n.size() == 0 ? "[]" : "<a list>")
                                       : "";
    return At(n, "key '" + KeyName(e, k) + "': expected " + expected + ", got '" + got + "'");
  }

  Status Read(const YAML::Node& map, const std::string& path, const std::vector<std::string>& known,
              Entries* out) const {
    out->map = map;
    out->path = path;
    if (!map.IsMap()) {
      return At(map, (path.empty() ? std::string("document") : "'" + path + "'") +
                         ": expected a mapping with keys " + Join(known));
    }
    for (auto it = map.begin(); it != map.end(); ++it) {
      // Copies: the iterator hands out a proxy that dies with the statement.
      const YAML::Node key = it->first;
      const YAML::Node value = it->second;
      std::string k = key.IsScalar() ? key.Scalar() : "<not a string>";
      if (std::find(known.begin(), known.end(), k) == known.end()) {
        return At(key, "unknown key '" + KeyName(*out, k) + "' (known: " + Join(known) + ")");
      }
      if (!out->values.emplace(k, value).second) {
        return At(key, "duplicate key '" + KeyName(*out, k) + "'");
      }
    }
    return Status::Ok();
  }

  Status Require(const Entries& e, const std::string& k) const {
    if (e.has(k)) return Status::Ok();
    return At(e.map, "missing required key '" + KeyName(e, k) + "'");
  }
  // Exactly one of a and b; sets *which.
  Status OneOf(const Entries& e, const std::string& a, const std::string& b,
               std::string* which) const {
    if (e.has(a) && e.has(b)) return Bad(e, b, "only one of " + a + ", " + b);
    if (!e.has(a) && !e.has(b)) {
      return At(e.map, "missing required key '" + KeyName(e, a) + "' (or " + b + ")");
    }
    *which = e.has(a) ? a : b;
    return Status::Ok();
  }

  Status String(const Entries& e, const std::string& k, std::string* out) const {
    const YAML::Node& n = e.values.at(k);
    if (!n.IsScalar() || n.Scalar().empty()) return Bad(e, k, "a non-empty string");
    *out = n.Scalar();
    return Status::Ok();
  }
  Status Int(const Entries& e, const std::string& k, int64_t lo, int64_t hi, int64_t* out) const {
    const YAML::Node& n = e.values.at(k);
    std::string expected = "an integer " + std::to_string(lo) + ".." + std::to_string(hi);
    if (!n.IsScalar()) return Bad(e, k, expected);
    const std::string& s = n.Scalar();
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    if (ec != std::errc() || p != s.data() + s.size() || *out < lo || *out > hi) {
      return Bad(e, k, expected);
    }
    return Status::Ok();
  }
  // A finite number > 0 and <= hi, times `scale`, rounded to an integer >= 1.
  Status Scaled(const Entries& e, const std::string& k, double scale, double hi,
                int64_t* out) const {
    const YAML::Node& n = e.values.at(k);
    double v = 0;
    bool ok = n.IsScalar();
    if (ok) {
      const std::string& s = n.Scalar();
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      ok = ec == std::errc() && p == s.data() + s.size() && v > 0 && v <= hi &&
           std::llround(v * scale) >= 1;
    }
    if (!ok) return Bad(e, k, "a number > 0");
    *out = std::llround(v * scale);
    return Status::Ok();
  }

  // A finite number in [lo, hi].
  Status Real(const Entries& e, const std::string& k, double lo, double hi, double* out) const {
    const YAML::Node& n = e.values.at(k);
    double v = 0;
    const std::string text = n.IsScalar() ? n.Scalar() : "";
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v) || v < lo ||
        v > hi) {
      char range[64];
      std::snprintf(range, sizeof range, "a number %g..%g", lo, hi);
      return Bad(e, k, range);
    }
    *out = v;
    return Status::Ok();
  }
  // "<file>:<line>: key '<path>'" for errors found later (Topology::Build).
  std::string WhereOf(const Entries& e) const {
    return source_ + ":" + std::to_string(std::max(e.map.Mark().line, 0) + 1) + ": key '" + e.path +
           "'";
  }

  Result<ClusterSpec> Parse(const YAML::Node& root) const;

 private:
  static std::string Join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  }
  Status ParseModel(const YAML::Node& n, size_t i, GpuModelSpec* m) const;
  Status ParseGroup(const YAML::Node& n, size_t i, const ClusterSpec& spec, NodeGroup* g) const;
  Status ParseMig(const Entries& e, NodeGroup* g) const;
  Status ParseTopology(const YAML::Node& n, TopologySpec* t) const;
  Status ParseRack(const YAML::Node& n, size_t i, RackSpec* r) const;
  Status ParseSwitch(const YAML::Node& n, size_t i, SwitchSpec* s) const;

  std::string source_;
};

#define UTILSIM_TRY(expr)               \
  do {                                  \
    if (Status _s = (expr); !_s.ok()) { \
      return _s;                        \
    }                                   \
  } while (0)

Status Parser::ParseModel(const YAML::Node& n, size_t i, GpuModelSpec* m) const {
  Entries e;
  UTILSIM_TRY(Read(n, "gpu_models[" + std::to_string(i) + "]",
                   {"name", "memory_gib", "memory_mib", "speed"}, &e));
  UTILSIM_TRY(Require(e, "name"));
  UTILSIM_TRY(String(e, "name", &m->name));
  // GPU memory is optional: some traces do not disclose it (0 = unknown).
  m->memory_bytes = 0;
  if (e.has("memory_gib") || e.has("memory_mib")) {
    std::string mem;
    UTILSIM_TRY(OneOf(e, "memory_gib", "memory_mib", &mem));
    UTILSIM_TRY(mem == "memory_gib"
                    ? Scaled(e, mem, double(kBytesPerGiB), 1 << 20, &m->memory_bytes)
                    : Scaled(e, mem, double(kMiB), 1 << 30, &m->memory_bytes));
  }
  if (e.has("speed")) {
    const YAML::Node& s = e.values.at("speed");
    double v = 0;
    const std::string text = s.IsScalar() ? s.Scalar() : "";
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size() || !(v > 0) || !std::isfinite(v)) {
      return Bad(e, "speed", "a number > 0");
    }
    m->speed = v;
  }
  return Status::Ok();
}

Status Parser::ParseGroup(const YAML::Node& n, size_t i, const ClusterSpec& spec,
                          NodeGroup* g) const {
  Entries e;
  UTILSIM_TRY(Read(n, "node_groups[" + std::to_string(i) + "]",
                   {"name", "count", "gpu_model", "gpus", "cpu_cores", "cpu_milli", "memory_gib",
                    "memory_mib", "nvlink_domain", "mig"},
                   &e));
  UTILSIM_TRY(Require(e, "name"));
  UTILSIM_TRY(String(e, "name", &g->name));
  UTILSIM_TRY(Require(e, "count"));
  int64_t v = 0;
  UTILSIM_TRY(Int(e, "count", 1, 1000000, &v));
  g->count = static_cast<int32_t>(v);
  if (e.has("gpus")) {
    UTILSIM_TRY(Int(e, "gpus", 0, 64, &v));
    g->gpus = static_cast<int32_t>(v);
  }
  if (e.has("gpu_model")) {
    UTILSIM_TRY(String(e, "gpu_model", &g->gpu_model));
    if (spec.FindModel(g->gpu_model) < 0) {
      return Bad(e, "gpu_model", "a model declared under gpu_models");
    }
    if (!e.has("gpus")) return At(e.map, "missing required key '" + KeyName(e, "gpus") + "'");
    if (g->gpus == 0) return Bad(e, "gpus", "an integer 1..64 (gpu_model is set)");
  } else if (g->gpus > 0) {
    return At(e.map, "missing required key '" + KeyName(e, "gpu_model") + "' (gpus > 0)");
  }
  std::string key;
  UTILSIM_TRY(OneOf(e, "cpu_cores", "cpu_milli", &key));
  if (key == "cpu_cores") {
    UTILSIM_TRY(Scaled(e, key, 1000.0, 1e9, &g->cpu_milli));
  } else {
    UTILSIM_TRY(Int(e, key, 1, int64_t{1} << 50, &g->cpu_milli));
  }
  UTILSIM_TRY(OneOf(e, "memory_gib", "memory_mib", &key));
  UTILSIM_TRY(key == "memory_gib" ? Scaled(e, key, double(kBytesPerGiB), 1 << 30, &g->mem_bytes)
                                  : Scaled(e, key, double(kMiB), 1e12, &g->mem_bytes));
  if (e.has("nvlink_domain")) {
    UTILSIM_TRY(Int(e, "nvlink_domain", 0, g->gpus, &v));
    if (v > 0 && g->gpus % v != 0) {
      return Bad(e, "nvlink_domain", "a divisor of gpus (" + std::to_string(g->gpus) + ")");
    }
    g->nvlink_domain = static_cast<int32_t>(v);
  }
  if (e.has("mig")) UTILSIM_TRY(ParseMig(e, g));
  return Status::Ok();
}

// `mig`: one layout string for every GPU, or a list of one per GPU
// (docs/mig.md). Stored canonical.
Status Parser::ParseMig(const Entries& e, NodeGroup* g) const {
  const YAML::Node& n = e.values.at("mig");
  const std::string key = KeyName(e, "mig");
  if (g->gpu_model.empty()) return At(n, "key '" + key + "': needs gpu_model (a MIG GPU model)");
  const mig::GpuModel* model = mig::FindGpuModel(g->gpu_model);
  if (model == nullptr) {
    return At(n, "key '" + key + "': gpu_model '" + g->gpu_model +
                     "' has no MIG profiles (MIG models: " + mig::GpuModelNames() + ")");
  }
  std::vector<std::pair<YAML::Node, std::string>> items;  // node, path
  if (n.IsSequence()) {
    if (n.size() != static_cast<size_t>(g->gpus)) {
      const std::string count = std::to_string(g->gpus);
      return Bad(e, "mig", "one layout or a list of " + count + " layouts (one per GPU)");
    }
    for (size_t k = 0; k < n.size(); ++k) {
      items.emplace_back(n[k], key + "[" + std::to_string(k) + "]");
    }
  } else {
    items.emplace_back(n, key);
  }
  for (const auto& [item, path] : items) {
    const std::string text = item.IsScalar()     ? item.Scalar()
                             : item.IsMap()      ? "<a mapping>"
                             : item.IsSequence() ? "<a list>"
                                                 : "";
    const std::string expected =
        "key '" + path + "': expected a MIG layout valid on " + std::string(model->name);
    if (!item.IsScalar() || text.find_first_not_of(" \t") == std::string::npos) {
      return At(item, expected + " (e.g. '" + std::string(model->profiles[4].name) + "," +
                          std::string(model->profiles[3].name) + "'), got '" + text + "'");
    }
    Result<mig::Layout> layout = mig::ParseLayout(*model, text);
    if (!layout.ok()) {
      return At(item, expected + ", got '" + text + "': " + layout.status().message());
    }
    g->mig.push_back(mig::FormatLayout(*model, layout.value()));
  }
  return Status::Ok();
}

Status Parser::ParseRack(const YAML::Node& n, size_t i, RackSpec* r) const {
  Entries e;
  UTILSIM_TRY(Read(n, "topology.racks[" + std::to_string(i) + "]",
                   {"name", "switch", "oversubscription", "nodes"}, &e));
  r->where = WhereOf(e);
  UTILSIM_TRY(Require(e, "name"));
  UTILSIM_TRY(String(e, "name", &r->name));
  if (e.has("switch")) UTILSIM_TRY(String(e, "switch", &r->parent));
  if (e.has("oversubscription"))
    UTILSIM_TRY(Real(e, "oversubscription", 1, 1e6, &r->oversubscription));
  UTILSIM_TRY(Require(e, "nodes"));
  const YAML::Node& list = e.values.at("nodes");
  if (!list.IsSequence() || list.size() == 0)
    return Bad(e, "nodes", "a non-empty list of node or group names");
  for (size_t k = 0; k < list.size(); ++k) {
    if (!list[k].IsScalar() || list[k].Scalar().empty())
      return Bad(e, "nodes", "a list of node or group names");
    r->members.push_back(list[k].Scalar());
  }
  return Status::Ok();
}

Status Parser::ParseSwitch(const YAML::Node& n, size_t i, SwitchSpec* s) const {
  Entries e;
  UTILSIM_TRY(Read(n, "topology.switches[" + std::to_string(i) + "]",
                   {"name", "parent", "oversubscription"}, &e));
  s->where = WhereOf(e);
  UTILSIM_TRY(Require(e, "name"));
  UTILSIM_TRY(String(e, "name", &s->name));
  if (e.has("parent")) UTILSIM_TRY(String(e, "parent", &s->parent));
  if (e.has("oversubscription"))
    UTILSIM_TRY(Real(e, "oversubscription", 1, 1e6, &s->oversubscription));
  return Status::Ok();
}

Status Parser::ParseTopology(const YAML::Node& n, TopologySpec* t) const {
  Entries e;
  UTILSIM_TRY(Read(
      n, "topology",
      {"nvlink_gb_s", "pcie_gb_s", "nic_gb_s", "storage_gb_s", "nodes_per_rack", "racks_per_switch",
       "rack_oversubscription", "switch_oversubscription", "racks", "switches"},
      &e));
  // Bandwidths in GB/s (1e9 bytes per second).
  const std::pair<const char*, double*> bandwidths[] = {{"nvlink_gb_s", &t->nvlink_bytes_s},
                                                        {"pcie_gb_s", &t->pcie_bytes_s},
                                                        {"nic_gb_s", &t->nic_bytes_s}};
  for (const auto& [key, field] : bandwidths) {
    if (!e.has(key)) continue;
    double v = 0;
    UTILSIM_TRY(Real(e, key, 1e-6, 1e6, &v));
    *field = v * 1e9;
  }
  if (e.has("storage_gb_s")) {
    double v = 0;
    UTILSIM_TRY(Real(e, "storage_gb_s", 1e-6, 1e6, &v));
    t->storage_bytes_s = v * 1e9;
  }
  int64_t v = 0;
  if (e.has("nodes_per_rack")) {
    UTILSIM_TRY(Int(e, "nodes_per_rack", 1, 1000000, &v));
    t->nodes_per_rack = static_cast<int32_t>(v);
  }
  if (e.has("racks_per_switch")) {
    UTILSIM_TRY(Int(e, "racks_per_switch", 1, 1000000, &v));
    t->racks_per_switch = static_cast<int32_t>(v);
  }
  if (e.has("rack_oversubscription"))
    UTILSIM_TRY(Real(e, "rack_oversubscription", 1, 1e6, &t->rack_oversubscription));
  if (e.has("switch_oversubscription"))
    UTILSIM_TRY(Real(e, "switch_oversubscription", 1, 1e6, &t->switch_oversubscription));
  const bool listed = e.has("racks") || e.has("switches");
  for (const char* k : {"nodes_per_rack", "racks_per_switch"}) {
    if (listed && e.has(k))
      return Bad(e, k, "no generated layout when racks or switches are listed");
  }
  if (e.has("racks_per_switch") && !e.has("nodes_per_rack"))
    return Bad(e, "racks_per_switch", "nodes_per_rack to be set too");
  if (e.has("racks")) {
    const YAML::Node& list = e.values.at("racks");
    if (!list.IsSequence() || list.size() == 0) return Bad(e, "racks", "a non-empty list");
    for (size_t i = 0; i < list.size(); ++i) {
      RackSpec r;
      UTILSIM_TRY(ParseRack(list[i], i, &r));
      t->racks.push_back(std::move(r));
    }
  }
  if (e.has("switches")) {
    const YAML::Node& list = e.values.at("switches");
    if (!list.IsSequence() || list.size() == 0) return Bad(e, "switches", "a non-empty list");
    for (size_t i = 0; i < list.size(); ++i) {
      SwitchSpec s;
      UTILSIM_TRY(ParseSwitch(list[i], i, &s));
      t->switches.push_back(std::move(s));
    }
  }
  if (!t->switches.empty() && t->racks.empty())
    return At(e.map, "key 'topology': switches need racks under them (add topology.racks)");
  return Status::Ok();
}

Result<ClusterSpec> Parser::Parse(const YAML::Node& root) const {
  Entries e;
  UTILSIM_TRY(Read(root, "", {"name", "gpu_models", "node_groups", "topology"}, &e));
  ClusterSpec spec;
  UTILSIM_TRY(Require(e, "name"));
  UTILSIM_TRY(String(e, "name", &spec.name));
  if (e.has("gpu_models")) {
    const YAML::Node& list = e.values.at("gpu_models");
    if (!list.IsSequence() && !list.IsNull()) return Bad(e, "gpu_models", "a list");
    for (size_t i = 0; i < list.size(); ++i) {
      GpuModelSpec m;
      UTILSIM_TRY(ParseModel(list[i], i, &m));
      if (spec.FindModel(m.name) >= 0) {
        return At(list[i], "key 'gpu_models[" + std::to_string(i) + "].name': expected a new " +
                               "model name, got '" + m.name + "'");
      }
      spec.models.push_back(std::move(m));
    }
  }
  UTILSIM_TRY(Require(e, "node_groups"));
  const YAML::Node& groups = e.values.at("node_groups");
  if (!groups.IsSequence() || groups.size() == 0) return Bad(e, "node_groups", "a non-empty list");
  std::set<std::string> names;
  for (size_t i = 0; i < groups.size(); ++i) {
    NodeGroup g;
    UTILSIM_TRY(ParseGroup(groups[i], i, spec, &g));
    if (!names.insert(g.name).second) {
      return At(groups[i], "key 'node_groups[" + std::to_string(i) + "].name': expected a new " +
                               "group name, got '" + g.name + "'");
    }
    spec.groups.push_back(std::move(g));
  }
  if (e.has("topology")) {
    UTILSIM_TRY(ParseTopology(e.values.at("topology"), &spec.topology));
    // Names, membership and reachability: the entry at fault leads the message.
    Result<Topology> topo = Topology::Build(spec);
    if (!topo.ok()) return topo.status();
  }
  return spec;
}

}  // namespace

#undef UTILSIM_TRY

Result<ClusterSpec> ParseClusterYaml(const std::string& text, const std::string& source_name) {
  try {
    YAML::Node root = YAML::Load(text);
    return Parser(source_name).Parse(root);
  } catch (const YAML::Exception& e) {
    return Status::Error(source_name + ":" + std::to_string(e.mark.line + 1) +
                         ": YAML error: " + e.msg);
  } catch (const std::exception& e) {
    return Status::Error(source_name + ": " + e.what());
  }
}

Result<ClusterSpec> ReadClusterYaml(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::Error(path + ": cannot open: " + std::strerror(errno));
  std::string text;
  char buf[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  const int saved = errno;
  std::fclose(f);
  if (failed) return Status::Error(path + ": read error: " + std::strerror(saved));
  return ParseClusterYaml(text, path);
}

}  // namespace utilsim::traces
