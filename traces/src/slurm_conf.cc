// ReadSlurmConf (utilsim/traces/slurm_conf.h): global keys, NodeName,
// NodeSet and PartitionName lines, then gres.conf (slurm_gres_conf.cc) and
// the ClusterSpec.
#include "utilsim/traces/slurm_conf.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>

#include "slurm_conf_internal.h"
#include "slurm_internal.h"
#include "utilsim/traces/slurm_text.h"

namespace utilsim::traces {

namespace {

using internal::AtField;
using internal::ConfInt;
using internal::ConfLine;
using internal::ConfPair;
using internal::Expected;
using internal::IEquals;

namespace fs = std::filesystem;

constexpr int64_t kMaxCount = 1'000'000'000;
// Limits that keep hostile input from exhausting memory (documented in
// docs/formats/slurm-conf.md): nodes, and node-in-partition entries.
constexpr size_t kMaxNodes = 100'000;
constexpr int64_t kMaxNameBytes = int64_t{64} << 20;  // names x their list's length
constexpr int64_t kMaxMemberships = 1'000'000;

// Node index by name, kept beside SlurmConf::nodes while reading.
using NodeIndex = std::unordered_map<std::string, size_t>;

// A NodeSet or PartitionName line, resolved once every node is known.
struct Pending {
  const ConfLine* line;
  std::vector<ConfPair> pairs;  // DEFAULT pairs first, then the line's
};

Status ReadNodeLine(const ConfLine& line, const std::vector<ConfPair>& defaults,
                    std::map<std::string, std::string>* gres_ignored, NodeIndex* index,
                    int64_t* name_bytes, SlurmConf* conf) {
  SlurmConf::Node proto;
  proto.where = line.where;
  bool cpus_given = false, memory_given = false, spb_given = false;
  int64_t spb = 1;
  std::string gres;
  std::vector<ConfPair> pairs = defaults;
  pairs.insert(pairs.end(), line.pairs.begin() + 1, line.pairs.end());
  for (const ConfPair& p : pairs) {
    int64_t v = 0;
    auto num = [&](int64_t lo, int64_t hi) { return ConfInt(line, p, lo, hi, &v); };
    if (IEquals(p.key, "CPUs") || IEquals(p.key, "Procs")) {
      if (Status s = num(1, kMaxCount); !s.ok()) return s;
      proto.cpus = v;
      cpus_given = true;
    } else if (IEquals(p.key, "Boards") || IEquals(p.key, "Sockets") ||
               IEquals(p.key, "SocketsPerBoard") || IEquals(p.key, "CoresPerSocket") ||
               IEquals(p.key, "ThreadsPerCore")) {
      if (Status s = num(1, 1'000'000); !s.ok()) return s;
      const auto i = static_cast<int32_t>(v);
      if (IEquals(p.key, "Boards")) proto.boards = i;
      if (IEquals(p.key, "Sockets")) proto.sockets = i;
      if (IEquals(p.key, "SocketsPerBoard")) {
        spb = i;
        spb_given = true;
      }
      if (IEquals(p.key, "CoresPerSocket")) proto.cores_per_socket = i;
      if (IEquals(p.key, "ThreadsPerCore")) proto.threads_per_core = i;
    } else if (IEquals(p.key, "RealMemory")) {
      if (Status s = num(1, int64_t{1} << 40); !s.ok()) return s;
      proto.real_memory_mib = v;
      memory_given = true;
    } else if (IEquals(p.key, "Weight")) {
      if (Status s = num(0, 4294967295); !s.ok()) return s;
      proto.weight = v;
    } else if (IEquals(p.key, "Gres")) {
      gres = p.value;
    } else if (IEquals(p.key, "Feature") || IEquals(p.key, "Features")) {
      proto.features.clear();
      size_t pos = 0;
      while (pos <= p.value.size()) {
        size_t comma = p.value.find(',', pos);
        if (comma == std::string::npos) comma = p.value.size();
        if (comma > pos) proto.features.push_back(p.value.substr(pos, comma - pos));
        pos = comma + 1;
      }
    } else if (IEquals(p.key, "State")) {
      proto.state = p.value;
    }
  }
  if (spb_given) proto.sockets = proto.boards * spb;
  if (!cpus_given)
    proto.cpus = int64_t{proto.sockets} * proto.cores_per_socket * proto.threads_per_core;
  auto parsed = ParseGres(gres);
  if (!parsed.ok()) return AtField(line.where, "Gres", parsed.status());
  for (const SlurmGres& g : parsed.value()) {
    if (g.name != "gpu") {
      (*gres_ignored)[g.name] = line.where;
      continue;
    }
    if (proto.gpus > 0 && g.type != proto.gpu_type)
      return Status::Error(StatusCode::kInvalidArgument,
                           line.where + ": field 'Gres': GPUs of two types ('" + proto.gpu_type +
                               "', '" + g.type + "'): utilsim models one GPU model per node");
    if (g.count > 64 || proto.gpus + g.count > 64)
      return AtField(line.where, "Gres",
                     Expected("at most 64 GPUs per node (utilsim's limit)", gres));
    proto.gpus += static_cast<int32_t>(g.count);
    proto.gpu_type = g.type;
  }
  if (proto.gpus == 0) proto.gpu_type.clear();
  auto count = internal::CountHostlist(line.pairs[0].value);
  if (!count.ok()) return AtField(line.where, line.pairs[0].key, count.status());
  if (conf->nodes.size() + static_cast<size_t>(count.value()) > kMaxNodes)
    return AtField(line.where, line.pairs[0].key,
                   Expected("at most 100000 nodes in all (utilsim's limit)", line.pairs[0].value));
  *name_bytes += count.value() * static_cast<int64_t>(line.pairs[0].value.size());
  if (*name_bytes > kMaxNameBytes)
    return AtField(
        line.where, line.pairs[0].key,
        Expected("node names of at most 64 MiB in all (utilsim's limit)", line.pairs[0].value));
  auto names = ExpandHostlist(line.pairs[0].value);
  if (!names.ok()) return AtField(line.where, line.pairs[0].key, names.status());
  for (std::string& n : names.value()) {
    if (auto it = index->find(n); it != index->end())
      return AtField(line.where, line.pairs[0].key,
                     Expected("nodes not defined before (" + n + " is defined at " +
                                  conf->nodes[it->second].where + ")",
                              line.pairs[0].value));
    index->emplace(n, conf->nodes.size());
    SlurmConf::Node node = proto;
    node.name = std::move(n);
    if (!memory_given) conf->warnings.Add(kSlurmConfWarnNoMemory, line.where + ": " + node.name);
    conf->nodes.push_back(std::move(node));
  }
  return Status::Ok();
}

Status ReadGlobal(const ConfLine& line, SlurmConf* conf) {
  for (const ConfPair& p : line.pairs) {
    if (IEquals(p.key, "ClusterName")) conf->cluster_name = p.value;
    if (IEquals(p.key, "GresTypes")) conf->gres_types = p.value;
    if (IEquals(p.key, "SelectType")) conf->select_type = p.value;
    if (IEquals(p.key, "SelectTypeParameters")) conf->select_type_parameters = p.value;
    if (IEquals(p.key, "SchedulerType")) conf->scheduler_type = p.value;
    if (IEquals(p.key, "MaxArraySize")) {
      int64_t v = 0;
      if (Status s = ConfInt(line, p, 0, 4000001, &v); !s.ok()) return s;
      conf->max_array_size = static_cast<int32_t>(v);
    }
  }
  return Status::Ok();
}

// Node names of a Nodes= value: host lists, NodeSet names and ALL.
Status ResolveNodes(const ConfLine& line, const ConfPair& p,
                    const std::map<std::string, std::vector<std::string>>& sets,
                    const SlurmConf& conf, const NodeIndex& index, std::vector<std::string>* out) {
  // More names than nodes can only be a mistake; refused before making them.
  auto count = internal::CountHostlist(p.value);
  if (!count.ok()) return AtField(line.where, p.key, count.status());
  if (static_cast<size_t>(count.value()) > kMaxNodes)
    return AtField(line.where, p.key,
                   Expected("at most 100000 names (utilsim's node limit)", p.value));
  auto names = ExpandHostlist(p.value);
  if (!names.ok()) return AtField(line.where, p.key, names.status());
  std::set<std::string> seen(out->begin(), out->end());
  auto add = [&](const std::string& n) {
    if (seen.insert(n).second) out->push_back(n);
  };
  for (const std::string& n : names.value()) {
    if (IEquals(n, "ALL")) {
      for (const SlurmConf::Node& node : conf.nodes) add(node.name);
    } else if (auto it = sets.find(n); it != sets.end()) {
      for (const std::string& m : it->second) add(m);
    } else if (index.count(n)) {
      add(n);
    } else {
      return AtField(line.where, p.key,
                     Expected("node names of NodeName lines, NodeSet names or ALL ('" + n +
                                  "' is none of them)",
                              p.value));
    }
  }
  return Status::Ok();
}

Status ReadNodeSet(const Pending& ps, std::map<std::string, std::vector<std::string>>* sets,
                   const SlurmConf& conf, const NodeIndex& index) {
  std::vector<std::string> nodes;
  for (const ConfPair& p : ps.pairs) {
    if (IEquals(p.key, "Nodes")) {
      if (Status s = ResolveNodes(*ps.line, p, *sets, conf, index, &nodes); !s.ok()) return s;
    } else if (IEquals(p.key, "Feature")) {
      std::set<std::string> seen(nodes.begin(), nodes.end());
      for (const SlurmConf::Node& n : conf.nodes)
        if (std::find(n.features.begin(), n.features.end(), p.value) != n.features.end() &&
            seen.insert(n.name).second)
          nodes.push_back(n.name);
    }
  }
  (*sets)[ps.line->pairs[0].value] = std::move(nodes);
  return Status::Ok();
}

Status ReadPartition(const Pending& ps, const std::map<std::string, std::vector<std::string>>& sets,
                     const NodeIndex& index, int64_t* memberships, SlurmConf* conf) {
  const ConfLine& line = *ps.line;
  SlurmConf::Partition part;
  part.name = line.pairs[0].value;
  if (conf->FindPartition(part.name) >= 0)
    return AtField(line.where, line.pairs[0].key,
                   Expected("a partition name not used before", part.name));
  for (const ConfPair& p : ps.pairs) {
    auto duration = [&](std::optional<Micros>* out) {
      auto d = ParseSlurmDuration(p.value);
      if (!d.ok()) return AtField(line.where, p.key, d.status());
      *out = d.value();
      return Status::Ok();
    };
    Status s;
    if (IEquals(p.key, "Nodes")) {
      part.nodes.clear();
      s = ResolveNodes(line, p, sets, *conf, index, &part.nodes);
    } else if (IEquals(p.key, "Default")) {
      part.is_default = IEquals(p.value, "YES");
    } else if (IEquals(p.key, "MaxTime")) {
      s = duration(&part.max_time);
    } else if (IEquals(p.key, "DefaultTime")) {
      s = duration(&part.default_time);
    } else if (IEquals(p.key, "State")) {
      part.state = p.value;
    } else if (IEquals(p.key, "PriorityTier")) {
      int64_t v = 0;
      s = ConfInt(line, p, 0, 65533, &v);
      part.priority_tier = static_cast<int32_t>(v);
    }
    if (!s.ok()) return s;
  }
  *memberships += static_cast<int64_t>(part.nodes.size());
  if (*memberships > kMaxMemberships)
    return AtField(
        line.where, "Nodes",
        Expected("at most 1000000 nodes over all partitions (utilsim's limit)", part.name));
  for (const std::string& n : part.nodes) conf->nodes[index.at(n)].partitions.push_back(part.name);
  conf->partitions.push_back(std::move(part));
  return Status::Ok();
}

void BuildCluster(SlurmConf* conf) {
  ClusterSpec& c = conf->cluster;
  c.name = conf->cluster_name.empty() ? "slurm" : conf->cluster_name;
  for (const SlurmConf::Node& n : conf->nodes) {
    NodeGroup g;
    g.name = n.name;
    g.count = 1;
    g.gpus = n.gpus;
    if (n.gpus > 0) {
      g.gpu_model = n.gpu_type.empty() ? "gpu" : n.gpu_type;
      if (c.FindModel(g.gpu_model) < 0) c.models.push_back({g.gpu_model, 0, 1.0});
    }
    g.cpu_milli = n.cpus * kMilliPerUnit;
    g.mem_bytes = n.real_memory_mib << 20;
    c.groups.push_back(std::move(g));
  }
}

}  // namespace

int SlurmConf::FindNode(const std::string& name) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

int SlurmConf::FindPartition(const std::string& name) const {
  for (size_t i = 0; i < partitions.size(); ++i)
    if (partitions[i].name == name) return static_cast<int>(i);
  return -1;
}

Result<SlurmConf> ReadSlurmConf(const std::string& slurm_conf, const std::string& gres_conf) {
  const std::string dir = fs::path(slurm_conf).parent_path().string();
  auto lexed = internal::LexConf(slurm_conf, dir.empty() ? "." : dir);
  if (!lexed.ok()) return lexed.status();
  const std::vector<ConfLine>& lines = lexed.value();
  SlurmConf conf;
  std::vector<ConfPair> node_defaults, part_defaults;
  std::vector<Pending> sets, parts;
  std::map<std::string, std::string> gres_ignored;  // name -> a line using it
  NodeIndex index;
  int64_t name_bytes = 0;
  for (const ConfLine& line : lines) {
    if (line.pairs.empty()) continue;
    const ConfPair& first = line.pairs[0];
    const bool is_default = IEquals(first.value, "DEFAULT");
    Status s;
    if (IEquals(first.key, "NodeName")) {
      if (is_default)
        node_defaults.insert(node_defaults.end(), line.pairs.begin() + 1, line.pairs.end());
      else
        s = ReadNodeLine(line, node_defaults, &gres_ignored, &index, &name_bytes, &conf);
    } else if (IEquals(first.key, "PartitionName")) {
      if (is_default)
        part_defaults.insert(part_defaults.end(), line.pairs.begin() + 1, line.pairs.end());
      else {
        Pending ps{&line, part_defaults};
        ps.pairs.insert(ps.pairs.end(), line.pairs.begin() + 1, line.pairs.end());
        parts.push_back(std::move(ps));
      }
    } else if (IEquals(first.key, "NodeSet")) {
      sets.push_back({&line, {line.pairs.begin() + 1, line.pairs.end()}});
    } else if (!IEquals(first.key, "DownNodes") && !IEquals(first.key, "FrontendName") &&
               !IEquals(first.key, "SwitchName")) {
      s = ReadGlobal(line, &conf);
    }
    if (!s.ok()) return s;
  }
  if (conf.nodes.empty())
    return Status::Error(StatusCode::kInvalidArgument,
                         slurm_conf + ": no NodeName lines (utilsim needs the cluster's nodes)");
  std::map<std::string, std::vector<std::string>> set_nodes;
  for (const Pending& ps : sets)
    if (Status s = ReadNodeSet(ps, &set_nodes, conf, index); !s.ok()) return s;
  int64_t memberships = 0;
  for (const Pending& ps : parts)
    if (Status s = ReadPartition(ps, set_nodes, index, &memberships, &conf); !s.ok()) return s;
  std::string gres_path = gres_conf;
  if (gres_path.empty()) {
    const std::string beside = (dir.empty() ? "." : dir) + "/gres.conf";
    std::error_code ec;
    if (fs::is_regular_file(beside, ec)) gres_path = beside;
  }
  if (!gres_path.empty()) {
    if (Status s = internal::ApplyGresConf(gres_path, &conf); !s.ok()) return s;
  }
  for (const auto& [name, where] : gres_ignored)
    conf.notes.push_back("GRES '" + name + "' ignored (utilsim models GPUs only; first at " +
                         where + ")");
  BuildCluster(&conf);
  int64_t gpus = 0;
  for (const SlurmConf::Node& n : conf.nodes) gpus += n.gpus;
  conf.notes.insert(conf.notes.begin(),
                    "slurm.conf " + slurm_conf + ": cluster " + conf.cluster.name + ", " +
                        std::to_string(conf.nodes.size()) + " nodes, " + std::to_string(gpus) +
                        " GPUs, " + std::to_string(conf.partitions.size()) + " partitions" +
                        (gres_path.empty() ? "" : "; gres.conf " + gres_path));
  return conf;
}

bool LooksLikeSlurmConf(const std::string& path) {
  if (fs::path(path).filename() == "slurm.conf") return true;
  std::ifstream in(path, std::ios::binary);
  std::string line;
  for (int n = 0; n < 1000 && std::getline(in, line); ++n) {
    const size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos || line[b] == '#') continue;
    const size_t eq = line.find('=', b);
    if (eq == std::string::npos) return false;
    const std::string key = line.substr(b, eq - b);
    for (const char* k : {"ClusterName", "ControlMachine", "SlurmctldHost", "NodeName",
                          "PartitionName", "SlurmUser", "SlurmctldPort", "AuthType", "SelectType",
                          "SchedulerType", "StateSaveLocation"})
      if (IEquals(key, k)) return true;
    return false;
  }
  return false;
}

}  // namespace utilsim::traces
