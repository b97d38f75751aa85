// PAI (cluster-trace-gpu-v2020): table schemas, table detection, and the
// machine spec reader.
#include <charconv>
#include <cmath>
#include <map>
#include <unordered_map>

#include "pai_internal.h"
#include "row_helpers.h"
#include "utilsim/engine/units.h"
#include "utilsim/traces/pai.h"

namespace utilsim::traces {

namespace {

bool IsNumber(std::string_view s) {
  s = internal::TrimBlanks(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc() && ptr == s.data() + s.size();
}
bool NumberOrEmpty(std::string_view s) { return internal::TrimBlanks(s).empty() || IsNumber(s); }
bool AllNumberOrEmpty(const std::vector<std::string>& r, size_t from, size_t to) {
  for (size_t i = from; i < to && i < r.size(); ++i)
    if (!NumberOrEmpty(r[i])) return false;
  return true;
}

}  // namespace

const std::vector<std::string>& PaiColumns(PaiTable table) {
  static const std::vector<std::string> kJob = {"job_name", "inst_id",    "user",
                                                "status",   "start_time", "end_time"};
  static const std::vector<std::string> kTask = {"job_name",   "task_name", "inst_num", "status",
                                                 "start_time", "end_time",  "plan_cpu", "plan_mem",
                                                 "plan_gpu",   "gpu_type"};
  static const std::vector<std::string> kInstance = {"job_name",    "task_name", "inst_name",
                                                     "worker_name", "inst_id",   "status",
                                                     "start_time",  "end_time",  "machine"};
  static const std::vector<std::string> kSensor = {
      "job_name", "task_name", "worker_name",     "inst_id",
      "machine",  "gpu_name",  "cpu_usage",       "gpu_wrk_util",
      "avg_mem",  "max_mem",   "avg_gpu_wrk_mem", "max_gpu_wrk_mem",
      "read",     "write",     "read_count",      "write_count"};
  static const std::vector<std::string> kGroupTag = {"inst_id", "user", "gpu_type_spec", "group",
                                                     "workload"};
  static const std::vector<std::string> kMachineSpec = {"machine", "gpu_type", "cap_cpu", "cap_mem",
                                                        "cap_gpu"};
  static const std::vector<std::string> kMachineMetric = {
      "worker_name",        "machine",
      "start_time",         "end_time",
      "machine_cpu_iowait", "machine_cpu_kernel",
      "machine_cpu_usr",    "machine_gpu",
      "machine_load_1",     "machine_net_receive",
      "machine_num_worker", "machine_cpu"};
  switch (table) {
    case PaiTable::kJob:
      return kJob;
    case PaiTable::kTask:
      return kTask;
    case PaiTable::kInstance:
      return kInstance;
    case PaiTable::kSensor:
      return kSensor;
    case PaiTable::kGroupTag:
      return kGroupTag;
    case PaiTable::kMachineSpec:
      return kMachineSpec;
    case PaiTable::kMachineMetric:
      break;
  }
  return kMachineMetric;
}

const char* PaiTableName(PaiTable table) {
  switch (table) {
    case PaiTable::kJob:
      return "pai_job_table";
    case PaiTable::kTask:
      return "pai_task_table";
    case PaiTable::kInstance:
      return "pai_instance_table";
    case PaiTable::kSensor:
      return "pai_sensor_table";
    case PaiTable::kGroupTag:
      return "pai_group_tag_table";
    case PaiTable::kMachineSpec:
      return "pai_machine_spec";
    case PaiTable::kMachineMetric:
      break;
  }
  return "pai_machine_metric";
}

std::optional<PaiTable> DetectPaiTable(const std::vector<std::string>& r) {
  static constexpr PaiTable kAll[] = {
      PaiTable::kJob,      PaiTable::kTask,        PaiTable::kInstance,     PaiTable::kSensor,
      PaiTable::kGroupTag, PaiTable::kMachineSpec, PaiTable::kMachineMetric};
  for (PaiTable t : kAll) {
    const auto& cols = PaiColumns(t);
    if (cols.size() != r.size()) continue;
    bool same = true;
    for (size_t i = 0; i < r.size(); ++i) same = same && internal::TrimBlanks(r[i]) == cols[i];
    if (same) return t;
  }
  switch (r.size()) {
    case 6:
      if (!IsNumber(r[3]) && AllNumberOrEmpty(r, 4, 6)) return PaiTable::kJob;
      break;
    case 10:
      if (IsNumber(r[2]) && AllNumberOrEmpty(r, 4, 9)) return PaiTable::kTask;
      break;
    case 9:
      if (AllNumberOrEmpty(r, 6, 8) && !IsNumber(r[5])) return PaiTable::kInstance;
      break;
    case 16:
      if (AllNumberOrEmpty(r, 6, 16)) return PaiTable::kSensor;
      break;
    case 12:
      if (AllNumberOrEmpty(r, 2, 12)) return PaiTable::kMachineMetric;
      break;
    case 5:
      if (IsNumber(r[2]) && IsNumber(r[3]) && IsNumber(r[4]) && !IsNumber(r[1])) {
        return PaiTable::kMachineSpec;
      }
      if (!IsNumber(r[0]) && !IsNumber(r[2])) return PaiTable::kGroupTag;
      break;
    default:
      break;
  }
  return std::nullopt;
}

bool LooksLikePai(const std::vector<std::string>& first_row) {
  return DetectPaiTable(first_row).has_value();
}

int64_t PaiGpuMemoryBytes(std::string_view t) {
  if (t == "P100" || t == "T4" || t == "V100") return 16 * kBytesPerGiB;
  if (t == "V100M32") return 32 * kBytesPerGiB;
  if (t == "MISC") return 12 * kBytesPerGiB;
  return 0;
}

Result<ClusterSpec> ReadPaiMachineSpec(const std::string& path, const PaiOptions& opt) {
  auto opened = internal::OpenPaiTable(path, PaiTable::kMachineSpec);
  if (!opened.ok()) return opened.status();
  internal::PaiTableReader& t = opened.value();
  const CsvReader& csv = t.csv();
  ClusterSpec spec;
  spec.name = internal::FileStem(path);
  std::unordered_map<std::string, int64_t> seen;
  std::map<std::string, size_t> shape;
  for (;;) {
    auto next = t.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    const std::string id(csv.field(0));
    if (id.empty()) return csv.FieldError(0, "a non-empty machine name");
    if (auto [it, ok] = seen.emplace(id, csv.line()); !ok) {
      return csv.FieldError(0,
                            "a machine not already listed on line " + std::to_string(it->second));
    }
    double cores = 0, gib = 0;
    int64_t gpus = 0;
    UTILSIM_RETURN_IF_ERROR(internal::DoubleIn(csv, 2, 1e-3, 1e6, "cores > 0", &cores));
    UTILSIM_RETURN_IF_ERROR(internal::DoubleIn(csv, 3, 1e-6, 1e7, "GB > 0", &gib));
    UTILSIM_RETURN_IF_ERROR(internal::IntIn(csv, 4, 0, 64, "an integer 0..64", &gpus));
    NodeGroup g;
    g.count = 1;
    g.gpus = static_cast<int32_t>(gpus);
    g.cpu_milli = std::llround(cores * kMilliPerUnit);
    g.mem_bytes = std::llround(gib * static_cast<double>(kBytesPerGiB));
    const std::string type(csv.field(1));
    if (gpus > 0) {
      if (type.empty() || type == "CPU") return csv.FieldError(1, "a GPU type for GPU machines");
      g.gpu_model = type;
      if (spec.FindModel(type) < 0) spec.models.push_back({type, PaiGpuMemoryBytes(type), 1.0});
    }
    if (!opt.group_machines) {
      g.name = id;
      spec.groups.push_back(std::move(g));
      continue;
    }
    g.name = (gpus > 0 ? type + "x" + std::to_string(gpus) : std::string("cpu")) + "-" +
             internal::Num(cores) + "c-" + internal::Num(gib) + "g";
    auto [it, added] = shape.emplace(g.name, spec.groups.size());
    if (added) {
      spec.groups.push_back(std::move(g));
    } else {
      ++spec.groups[it->second].count;
    }
  }
  if (seen.empty()) return Status::Error(path + ": no machines");
  return spec;
}

}  // namespace utilsim::traces
