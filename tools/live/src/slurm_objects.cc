// Readers of Slurm's JSON nodes and jobs (slurm_objects.h).
#include "utilsim/live/slurm_objects.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "slurm_json.h"

namespace utilsim::live {

using namespace internal;  // NOLINT: the readers of slurm_json.h and k8s_json.h

namespace {

Status ReadNode(const json& n, const std::string& path, SlurmNodeInfo* out) {
  if (!n.is_object()) return Expected(path, "a node object", n);
  if (Status s = ReadString(n, path, "name", &out->name); !s.ok()) return s;
  if (out->name.empty()) return Expected(Sub(path, "name"), "a node name", n.value("name", json()));
  int64_t mem = 0, alloc_mem = 0;
  std::string gres, gres_used;
  std::vector<Status> st = {
      ReadInt32(n, path, "cpus", &out->cpus),
      ReadNumber(n, path, "real_memory", &mem),
      ReadNumber(n, path, "alloc_memory", &alloc_mem),
      ReadInt32(n, path, "alloc_cpus", &out->alloc_cpus),
      ReadStringOrList(n, path, "gres", &gres),
      ReadStringOrList(n, path, "gres_used", &gres_used),
      ReadStateWords(n, path, "state", &out->state),
      ReadStateWords(n, path, "state_flags", &out->state),
  };
  for (const Status& s : st)
    if (!s.ok()) return s;
  out->real_memory_mib = mem;
  out->alloc_memory_mib = alloc_mem;
  if (Status s = GpusOf(gres, Sub(path, "gres"), &out->gpus, &out->gpu_type); !s.ok()) return s;
  if (Status s = GpusOf(gres_used, Sub(path, "gres_used"), &out->gpus_used, nullptr); !s.ok())
    return s;
  std::string parts;
  if (Status s = ReadStringOrList(n, path, "partitions", &parts); !s.ok()) return s;
  for (size_t b = 0; b < parts.size();) {
    size_t e = parts.find(',', b);
    if (e == std::string::npos) e = parts.size();
    if (e > b) out->partitions.push_back(parts.substr(b, e - b));
    b = e + 1;
  }
  return Status::Ok();
}

}  // namespace

bool SlurmNodeInfo::HasState(std::string_view word) const {
  return std::find(state.begin(), state.end(), word) != state.end();
}

bool SlurmNodeInfo::Schedulable() const {
  static const char* const kOut[] = {"DOWN",         "DRAIN",         "DRAINING",
                                     "DRAINED",      "FAIL",          "FAILING",
                                     "FUTURE",       "MAINTENANCE",   "NOT_RESPONDING",
                                     "POWERED_DOWN", "POWERING_DOWN", "REBOOT_REQUESTED",
                                     "RESERVED",     "UNKNOWN",       "INVALID",
                                     "POWER_DOWN",   "NO_RESPOND",    "PLANNED_DOWN"};
  if (state.empty()) return false;
  for (const char* w : kOut)
    if (HasState(w)) return false;
  return true;
}

Result<std::vector<SlurmNodeInfo>> ParseSlurmNodes(std::string_view text, SlurmMeta* meta) {
  auto doc = OpenDocument(text, "nodes", meta);
  if (!doc.ok()) return doc.status();
  const json& arr = doc.value()["nodes"];
  std::vector<SlurmNodeInfo> out;
  out.reserve(arr.size());
  for (size_t i = 0; i < arr.size(); ++i) {
    SlurmNodeInfo node;
    if (Status s = ReadNode(arr[i], At("nodes", i), &node); !s.ok()) return s;
    out.push_back(std::move(node));
  }
  return out;
}

}  // namespace utilsim::live
