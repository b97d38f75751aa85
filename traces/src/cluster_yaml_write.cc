// Writer of the YAML cluster spec (docs/trace-format.md). The text is built
// by hand (not with yaml-cpp's emitter) to control number formats exactly.
#include "jobs_columns.h"
#include "utilsim/traces/canonical.h"
#include "utilsim/traces/text_writer.h"

namespace utilsim::traces {

namespace {

using internal::kGiB;
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
  if (bytes % kGiB == 0) {
    *out += "memory_gib: ";
    AppendInt(out, bytes / kGiB);
  } else {
    *out += "memory_mib: ";
    AppendDouble(out, static_cast<double>(bytes) / static_cast<double>(kMiB));
  }
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
    out += g.cpu_milli % 1000 == 0 ? ", cpu_cores: " : ", cpu_milli: ";
    AppendInt(&out, g.cpu_milli % 1000 == 0 ? g.cpu_milli / 1000 : g.cpu_milli);
    out += ", ";
    AppendMemory(&out, g.mem_bytes);
    if (g.nvlink_domain != 0) {
      out += ", nvlink_domain: ";
      AppendInt(&out, g.nvlink_domain);
    }
    if (!g.rack_prefix.empty()) out += ", rack_prefix: " + Quote(g.rack_prefix);
    out += "}";
  }
  return out + "\n";
}

Status WriteClusterYaml(const ClusterSpec& spec, const std::string& path) {
  return WriteFileAtomically(path, FormatClusterYaml(spec));
}

}  // namespace utilsim::traces
