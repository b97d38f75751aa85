// YAML placement profiles (see registry.h for the format).
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "utilsim/policies/framework.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace {

std::string At(const std::string& source, const YAML::Node& n, const std::string& key) {
  return source + ":" + std::to_string(n.Mark().line + 1) + ": " + key + ": ";
}

struct ProfileSpec {
  std::string name, description, queue;
  std::vector<std::string> filters;
  std::vector<std::pair<std::string, int64_t>> scores;
};

Status ParseProfile(const YAML::Node& p, const std::string& src, const PolicyRegistry& reg,
                    ProfileSpec* out) {
  static const std::set<std::string> kKeys = {"name", "description", "queue", "filters", "scores"};
  if (!p.IsMap()) return Status::Error(At(src, p, "profiles") + "each profile must be a map");
  for (const auto& kv : p) {
    const std::string key = kv.first.as<std::string>();
    if (!kKeys.count(key))
      return Status::Error(At(src, kv.first, key) +
                           "unknown key (expected name, description, queue, filters, scores)");
  }
  if (!p["name"]) return Status::Error(At(src, p, "name") + "missing");
  out->name = p["name"].as<std::string>();
  out->description = p["description"] ? p["description"].as<std::string>() : "profile " + out->name;
  out->queue = p["queue"] ? p["queue"].as<std::string>() : "fifo";
  if (reg.Has(out->name))
    return Status::Error(At(src, p["name"], "name") + "'" + out->name + "' is already registered");
  const std::string queue = SplitPolicyRef(out->queue).name;  // it may carry parameters
  if (auto q = reg.List(); std::none_of(q.begin(), q.end(), [&](const PolicyInfo& i) {
        return i.kind == "queue" && i.name == queue;
      }))
    return Status::Error(At(src, p["queue"], "queue") + "unknown queue policy '" + queue + "'");
  if (auto params = reg.Params(out->queue); !params.ok())
    return Status::Error(At(src, p["queue"], "queue") + params.status().message());
  if (!p["filters"] || !p["filters"].IsSequence())
    return Status::Error(At(src, p, "filters") + "missing (a list of filter plugins)");
  for (const auto& f : p["filters"]) {
    const std::string name = f.as<std::string>();
    if (!reg.MakeFilter(name))
      return Status::Error(At(src, f, "filters") + "unknown filter plugin '" + name + "'");
    out->filters.push_back(name);
  }
  if (std::find(out->filters.begin(), out->filters.end(), "resources-fit") == out->filters.end())
    return Status::Error(At(src, p["filters"], "filters") +
                         "profile has no resources-fit filter, so it could over-commit a node");
  if (p["scores"]) {
    if (!p["scores"].IsSequence())
      return Status::Error(At(src, p["scores"], "scores") + "must be a list");
    for (const auto& s : p["scores"]) {
      if (!s.IsMap() || !s["plugin"])
        return Status::Error(At(src, s, "scores") + "each entry needs plugin (and weight)");
      for (const auto& kv : s) {
        const std::string key = kv.first.as<std::string>();
        if (key != "plugin" && key != "weight")
          return Status::Error(At(src, kv.first, key) + "unknown key (expected plugin, weight)");
      }
      const std::string name = s["plugin"].as<std::string>();
      if (!reg.MakeScore(name))
        return Status::Error(At(src, s["plugin"], "plugin") + "unknown score plugin '" + name +
                             "'");
      int64_t weight = 1;
      if (s["weight"]) {
        try {
          weight = s["weight"].as<int64_t>();
        } catch (const YAML::Exception&) {
          return Status::Error(At(src, s["weight"], "weight") + "expected an integer 1..100");
        }
      }
      if (weight < 1 || weight > 100)
        return Status::Error(At(src, s["weight"], "weight") + "expected 1..100, got " +
                             std::to_string(weight));
      out->scores.emplace_back(name, weight);
    }
  }
  return Status::Ok();
}

}  // namespace

Status LoadProfilesFromString(const std::string& text, const std::string& source,
                              PolicyRegistry* reg) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status::Error(source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.IsMap() || !root["profiles"] || !root["profiles"].IsSequence())
    return Status::Error(source + ": expected a top-level 'profiles:' list");
  for (const auto& kv : root) {
    if (kv.first.as<std::string>() != "profiles")
      return Status::Error(At(source, kv.first, kv.first.as<std::string>()) +
                           "unknown key (expected profiles)");
  }
  try {
    for (const auto& p : root["profiles"]) {
      ProfileSpec spec;
      if (Status s = ParseProfile(p, source, *reg, &spec); !s.ok()) return s;
      // The plugins as registered now (a copy of the factories: the profile
      // does not depend on the registry living on).
      std::map<std::string, PolicyRegistry::FilterFactory> fmake;
      std::map<std::string, PolicyRegistry::ScoreFactory> smake;
      for (const auto& f : spec.filters) fmake[f] = reg->FilterFactoryOf(f);
      for (const auto& [n, w] : spec.scores) smake[n] = reg->ScoreFactoryOf(n);
      auto factory = [spec, fmake, smake]() -> std::unique_ptr<PlacementPolicy> {
        std::vector<std::unique_ptr<FilterPlugin>> filters;
        for (const auto& f : spec.filters) filters.push_back(fmake.at(f)());
        std::vector<WeightedScore> scores;
        for (const auto& [n, w] : spec.scores) scores.push_back({smake.at(n)(), w});
        return std::make_unique<FrameworkPlacement>(spec.name, "1", std::move(filters),
                                                    std::move(scores));
      };
      if (Status s =
              reg->AddProfile({spec.name, "profile", "", spec.description}, spec.queue, factory);
          !s.ok())
        return Status::Error(source + ": " + s.message());
    }
  } catch (const YAML::Exception& e) {
    return Status::Error(source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return Status::Ok();
}

Status LoadProfiles(const std::string& path, PolicyRegistry* reg) {
  std::ifstream in(path);
  if (!in) return Status::Error(path + ": cannot read profile file");
  std::stringstream ss;
  ss << in.rdbuf();
  return LoadProfilesFromString(ss.str(), path, reg);
}

}  // namespace utilsim
