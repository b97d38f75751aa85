// Reader of the openb node lists (openb_node_list_*.csv) into a ClusterSpec,
// and the GPU memory table of the openb GPU models.
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>

#include "name_index.h"
#include "utilsim/engine/units.h"
#include "utilsim/traces/csv.h"
#include "utilsim/traces/openb.h"

namespace utilsim::traces {

namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

enum NodeCol { kSn, kCpuMilli, kMemoryMib, kGpu, kModel, kNumNodeCols };
constexpr std::array<const char*, kNumNodeCols> kNodeColumns = {"sn", "cpu_milli", "memory_mib",
                                                                "gpu", "model"};

// Shape key of a node: (model, gpus, cpu_milli, memory_mib as bytes).
using Shape = std::tuple<std::string, int32_t, int64_t, int64_t>;

std::string GroupName(const Shape& s) {
  const auto& [model, gpus, cpu_milli, mem_bytes] = s;
  std::string name = model.empty() ? "cpu" : model + "x" + std::to_string(gpus);
  name += "-";
  name += cpu_milli % kMilliPerUnit == 0 ? std::to_string(cpu_milli / kMilliPerUnit) + "c"
                                         : std::to_string(cpu_milli) + "mc";
  name += "-";
  name += mem_bytes % kBytesPerGiB == 0 ? std::to_string(mem_bytes / kBytesPerGiB) + "g"
                                        : std::to_string(mem_bytes / kMiB) + "m";
  return name;
}

#define UTILSIM_TRY(expr)               \
  do {                                  \
    if (Status _s = (expr); !_s.ok()) { \
      return _s;                        \
    }                                   \
  } while (0)

// Parses one node row into its shape.
Status ParseNode(const CsvReader& csv, const std::array<int, kNumNodeCols>& idx, Shape* out) {
  auto at = [&](NodeCol c) { return static_cast<size_t>(idx[c]); };
  auto cpu = csv.Int(at(kCpuMilli));
  if (!cpu.ok() || cpu.value() <= 0) return csv.FieldError(at(kCpuMilli), "an integer > 0");
  auto mem = csv.Double(at(kMemoryMib));
  if (!mem.ok() || !(mem.value() > 0) || mem.value() > 8.0e12) {
    return csv.FieldError(at(kMemoryMib), "MiB > 0");
  }
  auto gpu = csv.Int(at(kGpu));
  if (!gpu.ok() || gpu.value() < 0 || gpu.value() > 64) {
    return csv.FieldError(at(kGpu), "an integer 0..64");
  }
  std::string_view model = csv.field(at(kModel));
  if (gpu.value() > 0 && model.empty()) {
    return csv.FieldError(at(kModel), "a GPU model name when gpu > 0");
  }
  if (gpu.value() == 0 && !model.empty()) {
    return csv.FieldError(at(kModel), "an empty model when gpu is 0 (CPU-only node)");
  }
  if (model.find('|') != std::string_view::npos) {
    return csv.FieldError(at(kModel), "a model name without '|'");
  }
  const int64_t mem_bytes = std::llround(mem.value() * static_cast<double>(kMiB));
  if (mem_bytes <= 0) return csv.FieldError(at(kMemoryMib), "MiB > 0");
  *out = Shape(std::string(model), static_cast<int32_t>(gpu.value()), cpu.value(), mem_bytes);
  return Status::Ok();
}

}  // namespace

int64_t OpenbGpuMemoryBytes(std::string_view model) {
  // Nominal capacities from the vendors' data sheets (GB read as GiB).
  if (model == "T4" || model == "P100" || model == "V100M16") return 16 * kBytesPerGiB;
  if (model == "V100M32") return 32 * kBytesPerGiB;
  if (model == "A10") return 24 * kBytesPerGiB;
  return 0;  // G1, G2, G3: undisclosed internal codes
}

Result<ClusterSpec> ReadOpenbNodes(const std::string& node_csv) {
  auto opened = CsvReader::Open(node_csv);
  if (!opened.ok()) return opened.status();
  CsvReader csv = std::move(opened).value();

  std::array<int, kNumNodeCols> idx{};
  for (int c = 0; c < kNumNodeCols; ++c) {
    idx[c] = csv.Find(kNodeColumns[c]);
    if (idx[c] < 0) {
      return Status::Error(node_csv + ":" + std::to_string(csv.line()) +
                           ": missing required column '" + kNodeColumns[c] + "'");
    }
  }

  ClusterSpec spec;
  spec.name = std::filesystem::path(node_csv).stem().string();
  std::map<Shape, size_t> group_of;  // shape -> index into spec.groups
  std::map<std::string, Shape> shape_of_name;
  std::vector<std::string> sns;
  std::vector<int64_t> sn_lines;
  internal::NameIndex ids;
  while (true) {
    auto more = csv.Next();
    if (!more.ok()) return more.status();
    if (!more.value()) break;
    const size_t sn_col = static_cast<size_t>(idx[kSn]);
    std::string_view sn = csv.field(sn_col);
    if (sn.empty()) return csv.FieldError(sn_col, "a non-empty node id");
    const auto index = static_cast<uint32_t>(sns.size());
    const int64_t prev = ids.FindOrInsert(sn, index, [&](uint32_t i) -> std::string_view {
      return i == index ? sn : std::string_view(sns[i]);
    });
    if (prev >= 0) {
      return csv.FieldError(sn_col, "a node id not already used on line " +
                                        std::to_string(sn_lines[static_cast<size_t>(prev)]));
    }
    sns.emplace_back(sn);
    sn_lines.push_back(csv.line());

    Shape shape;
    UTILSIM_TRY(ParseNode(csv, idx, &shape));
    auto it = group_of.find(shape);
    if (it != group_of.end()) {
      ++spec.groups[it->second].count;
      continue;
    }
    const auto& [model, gpus, cpu_milli, mem_bytes] = shape;
    if (!model.empty() && spec.FindModel(model) < 0) {
      spec.models.push_back({model, OpenbGpuMemoryBytes(model), 1.0});
    }
    // Shape names are distinct for distinct shapes unless a model name
    // mimics the pattern; a numeric suffix keeps group names unique then.
    std::string name = GroupName(shape);
    for (int k = 2; shape_of_name.count(name); ++k)
      name = GroupName(shape) + "-" + std::to_string(k);
    shape_of_name.emplace(name, shape);
    NodeGroup g;
    g.name = name;
    g.count = 1;
    g.gpu_model = model;
    g.gpus = gpus;
    g.cpu_milli = cpu_milli;
    g.mem_bytes = mem_bytes;
    group_of.emplace(shape, spec.groups.size());
    spec.groups.push_back(std::move(g));
  }
  if (spec.groups.empty()) return Status::Error(node_csv + ": no nodes listed");
  return spec;
}

}  // namespace utilsim::traces
