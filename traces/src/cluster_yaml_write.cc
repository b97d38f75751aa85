// Writer of the YAML cluster spec (docs/trace-format.md). The text is built
// by hand (not with yaml-cpp's emitter) to control number formats exactly.
#include "jobs_columns.h"
#include "utilsim/engine/units.h"
#include "utilsim/traces/canonical.h"
#include "utilsim/traces/text_writer.h"

namespace utilsim::traces {

namespace {

using internal::kMiB;

// YAML double-quoted scalar.
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20 || c == 0x7f) {
      const char* hex = "0123456789abcdef";
      out += "\\x";
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out + "\"";
}

void AppendMemory(std::string* out, int64_t bytes) {
  if (bytes % kBytesPerGiB == 0) {
    *out += "memory_gib: ";
    AppendInt(out, bytes / kBytesPerGiB);
  } else {
    *out += "memory_mib: ";
    AppendDouble(out, static_cast<double>(bytes) / static_cast<double>(kMiB));
  }
}

void AppendList(std::string* out, const std::vector<std::string>& v) {
  *out += "[";
  for (size_t i = 0; i < v.size(); ++i) *out += (i ? ", " : "") + Quote(v[i]);
  *out += "]";
}

// The topology section; empty when every field has its default.
std::string FormatTopology(const TopologySpec& t) {
  const TopologySpec d;
  std::string out;
  auto real = [&](const char* key, double v, double def, double scale) {
    if (v == def) return;
    out += std::string("\n  ") + key + ": ";
    AppendDouble(&out, v / scale);
  };
  real("nvlink_gb_s", t.nvlink_bytes_s, d.nvlink_bytes_s, 1e9);
  real("pcie_gb_s", t.pcie_bytes_s, d.pcie_bytes_s, 1e9);
  real("nic_gb_s", t.nic_bytes_s, d.nic_bytes_s, 1e9);
  real("storage_gb_s", t.storage_bytes_s, d.storage_bytes_s, 1e9);
  if (t.nodes_per_rack > 0) {
    out += "\n  nodes_per_rack: ";
    AppendInt(&out, t.nodes_per_rack);
  }
  if (t.racks_per_switch > 0) {
    out += "\n  racks_per_switch: ";
    AppendInt(&out, t.racks_per_switch);
  }
  real("rack_oversubscription", t.rack_oversubscription, 1.0, 1.0);
  real("switch_oversubscription", t.switch_oversubscription, 1.0, 1.0);
  if (!t.racks.empty()) out += "\n  racks:";
  for (const RackSpec& r : t.racks) {
    out += "\n    - {name: " + Quote(r.name);
    if (!r.parent.empty()) out += ", switch: " + Quote(r.parent);
    if (r.oversubscription != 1.0) {
      out += ", oversubscription: ";
      AppendDouble(&out, r.oversubscription);
    }
    out += ", nodes: ";
    AppendList(&out, r.members);
    out += "}";
  }
  if (!t.switches.empty()) out += "\n  switches:";
  for (const SwitchSpec& s : t.switches) {
    out += "\n    - {name: " + Quote(s.name);
    if (!s.parent.empty()) out += ", parent: " + Quote(s.parent);
    if (s.oversubscription != 1.0) {
      out += ", oversubscription: ";
      AppendDouble(&out, s.oversubscription);
    }
    out += "}";
  }
  return out.empty() ? out : "topology:" + out + "\n";
}

}  // namespace

std::string FormatClusterYaml(const ClusterSpec& spec) {
  std::string out = "name: " + Quote(spec.name) + "\ngpu_models:";
  if (spec.models.empty()) out += " []";
  for (const GpuModelSpec& m : spec.models) {
    out += "\n  - {name: " + Quote(m.name) + ", ";
    if (m.memory_bytes > 0) {  // 0 = unknown: the key is left out
      AppendMemory(&out, m.memory_bytes);
      out += ", ";
    }
    out += "speed: ";
    AppendDouble(&out, m.speed);
    out += "}";
  }
  out += "\nnode_groups:";
  if (spec.groups.empty()) out += " []";
  for (const NodeGroup& g : spec.groups) {
    out += "\n  - {name: " + Quote(g.name) + ", count: ";
    AppendInt(&out, g.count);
    if (!g.gpu_model.empty() || g.gpus != 0) {
      out += ", gpu_model: " + Quote(g.gpu_model) + ", gpus: ";
      AppendInt(&out, g.gpus);
    }
    out += g.cpu_milli % kMilliPerUnit == 0 ? ", cpu_cores: " : ", cpu_milli: ";
    AppendInt(&out, g.cpu_milli % kMilliPerUnit == 0 ? g.cpu_milli / kMilliPerUnit : g.cpu_milli);
    out += ", ";
    AppendMemory(&out, g.mem_bytes);
    if (g.nvlink_domain != 0) {
      out += ", nvlink_domain: ";
      AppendInt(&out, g.nvlink_domain);
    }
    if (g.mig.size() == 1) {
      out += ", mig: " + Quote(g.mig[0]);
    } else if (!g.mig.empty()) {
      out += ", mig: ";
      AppendList(&out, g.mig);
    }
    out += "}";
  }
  return out + "\n" + FormatTopology(spec.topology);
}

Status WriteClusterYaml(const ClusterSpec& spec, const std::string& path) {
  return WriteFileAtomically(path, FormatClusterYaml(spec));
}

}  // namespace utilsim::traces
