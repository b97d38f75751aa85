// gres.conf: GPU types and counts per node, checked against slurm.conf
// (slurm_conf_internal.h, utilsim/traces/slurm_conf.h).
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include "slurm_conf_internal.h"
#include "slurm_internal.h"
#include "utilsim/traces/slurm_text.h"

namespace utilsim::traces::internal {

namespace {

// What gres.conf says about one node's GPUs.
struct NodeGpus {
  std::vector<std::string> types;  // first-seen order
  int64_t count = 0;
  std::string where;  // its first line
};

// The GPUs one gres.conf line declares.
Result<int64_t> LineCount(const ConfLine& line) {
  if (const std::string* c = line.Find("Count")) {
    auto g = ParseGres("gpu:" + *c);
    if (!g.ok() || g.value().size() != 1 || !g.value()[0].type.empty())
      return AtField(line.where, "Count", Expected("a count (digits, optional K, M or G)", *c));
    return g.value()[0].count;
  }
  for (const char* key : {"File", "MultipleFiles"}) {
    if (const std::string* f = line.Find(key)) {
      auto files = CountHostlist(*f);
      if (!files.ok()) return AtField(line.where, key, files.status());
      return files.value();
    }
  }
  return int64_t{1};
}

}  // namespace

Status ApplyGresConf(const std::string& path, SlurmConf* conf) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  auto lexed = LexConf(path, dir.empty() ? "." : dir);
  if (!lexed.ok()) return lexed.status();
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < conf->nodes.size(); ++i) index.emplace(conf->nodes[i].name, i);
  std::map<size_t, NodeGpus> by_node;
  std::set<std::string> unknown;
  std::string autodetect;
  for (const ConfLine& line : lexed.value()) {
    const std::string* name = line.Find("Name");
    if (const std::string* a = line.Find("AutoDetect"); a && autodetect.empty())
      autodetect = *a + " (" + line.where + ")";
    if (name == nullptr) {
      if (line.Find("AutoDetect")) continue;
      return AtField(line.where, "Name", Expected("a GRES name (as Name=gpu)", ""));
    }
    if (*name != "gpu") continue;
    auto count = LineCount(line);
    if (!count.ok()) return count.status();
    const std::string* type = line.Find("Type");
    std::vector<std::string> nodes;
    if (const std::string* n = line.Find("NodeName")) {
      auto named = CountHostlist(*n);
      if (!named.ok()) return AtField(line.where, "NodeName", named.status());
      if (named.value() > static_cast<int64_t>(conf->nodes.size()) + 100000)
        return AtField(line.where, "NodeName",
                       Expected("at most 100000 names beyond slurm.conf's nodes", *n));
      auto names = ExpandHostlist(*n);
      if (!names.ok()) return AtField(line.where, "NodeName", names.status());
      nodes = std::move(names).value();
    } else {
      for (const SlurmConf::Node& node : conf->nodes) nodes.push_back(node.name);
    }
    for (const std::string& n : nodes) {
      auto it = index.find(n);
      if (it == index.end()) {
        unknown.insert(n);
        continue;
      }
      NodeGpus& g = by_node[it->second];
      const std::string t = type ? *type : "";
      if (std::find(g.types.begin(), g.types.end(), t) == g.types.end()) g.types.push_back(t);
      g.count += count.value();
      if (g.where.empty()) g.where = line.where;
    }
  }
  int64_t filled = 0;
  for (const auto& [i, g] : by_node) {
    SlurmConf::Node& node = conf->nodes[i];
    if (g.types.size() > 1)
      return Status::Error(StatusCode::kInvalidArgument,
                           g.where + ": node '" + node.name + "': GPUs of two types ('" +
                               g.types[0] + "', '" + g.types[1] +
                               "') in gres.conf: utilsim models one GPU model per node");
    const std::string& type = g.types[0];
    if (node.gpus == 0) {
      conf->warnings.Add(kSlurmConfWarnGresNode, g.where + ": node " + node.name);
      continue;
    }
    if (node.gpu_type.empty() && !type.empty()) {
      node.gpu_type = type;
      ++filled;
    } else if (!type.empty() && type != node.gpu_type) {
      conf->warnings.Add(kSlurmConfWarnGresType, g.where + ": node " + node.name + ": gres.conf '" +
                                                     type + "', slurm.conf '" + node.gpu_type +
                                                     "'");
    }
    if (g.count != node.gpus)
      conf->warnings.Add(kSlurmConfWarnGresCount, g.where + ": node " + node.name + ": gres.conf " +
                                                      std::to_string(g.count) +
                                                      " GPUs, slurm.conf " +
                                                      std::to_string(node.gpus));
  }
  if (filled > 0)
    conf->notes.push_back("gres.conf: GPU types of " + std::to_string(filled) +
                          " nodes with an untyped Gres in slurm.conf");
  if (!unknown.empty())
    conf->notes.push_back("gres.conf: " + std::to_string(unknown.size()) +
                          " node names not in slurm.conf ignored (first " + *unknown.begin() + ")");
  if (!autodetect.empty())
    conf->notes.push_back("gres.conf: AutoDetect=" + autodetect +
                          (autodetect.rfind("off", 0) == 0 || autodetect.rfind("none", 0) == 0
                               ? ""
                               : ": slurmd finds the GPUs itself; slurm.conf's counts are used"));
  return Status::Ok();
}

}  // namespace utilsim::traces::internal
