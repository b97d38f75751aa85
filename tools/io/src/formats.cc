#include "utilsim/io/formats.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <sstream>

#include "utilsim/traces/aaic.h"
#include "utilsim/traces/canonical.h"
#include "utilsim/traces/csv.h"
#include "utilsim/traces/dlrm.h"
#include "utilsim/traces/itp.h"
#include "utilsim/traces/k8s_shadow.h"
#include "utilsim/traces/openb.h"
#include "utilsim/traces/pai.h"
#include "utilsim/traces/philly.h"
#include "utilsim/traces/sacct.h"
#include "utilsim/traces/slurm_conf.h"
#include "utilsim/traces/swf.h"
#include "utilsim/traces/telemetry.h"

namespace utilsim {

namespace fs = std::filesystem;

std::vector<std::string> SplitPaths(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  std::string p;
  while (std::getline(ss, p, ','))
    if (!p.empty()) out.push_back(p);
  return out;
}

std::vector<std::pair<std::string, std::string>> TraceFormatList() {
  return {
      {"builtin", "builtin:demo or builtin:bench: the seeded synthetic workload (no file)"},
      {"canonical", "utilsim jobs CSV (docs/trace-format.md); needs --cluster"},
      {"openb", "Alibaba cluster-trace-gpu-v2023 pod list (+ node list beside it)"},
      {"aaic", "AIST AAIC quarter files, one or several (comma-separated), 50 x 8 GPUs"},
      {"swf", "Standard Workload Format v2.2 (Parallel Workloads Archive)"},
      {"itp", "Microsoft ITP elasticflow raw traces, one or several cluster files"},
      {"philly", "Philly derived folder: machine list, sampled jobs, util windows"},
      {"pai", "Alibaba cluster-trace-gpu-v2020 (PAI) folder of pai_*.csv tables"},
      {"dlrm", "Alibaba cluster-trace-gpu-v2025 DLRM instances"},
      {"k8s-shadow",
       "the Kubernetes extender's shadow log (JSON lines): bound pods replayed (docs/live-k8s.md)"},
      {"sacct",
       "Slurm job history: sacct --parsable2 or --json output, one or several (comma-separated); "
       "cluster from --cluster slurm.conf"},
  };
}

std::vector<std::pair<std::string, std::string>> TelemetryFormatList() {
  return {
      {"dcgm-exporter", "dcgm-exporter Prometheus text (.prom), one or several scrapes"},
      {"prom-json", "Prometheus query_range JSON"},
      {"nvidia-smi", "nvidia-smi --query-gpu CSV, with or without units"},
      {"dcgm-csv", "DCGM field CSV (dcgmi dmon recordings as in migprofiler)"},
      {"genai", "per-pod duty cycle CSV[,GPU memory CSV] (alibaba-genai-v2026)"},
      {"philly-windows", "Philly per-job GPU util windows (gpu_util_window.csv)"},
  };
}

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<std::vector<std::string>> Header(const std::string& path) {
  traces::CsvOptions o;
  o.comment_prefix = "#";
  auto r = traces::CsvReader::Open(path, o);
  if (!r.ok()) return r.status();
  return r.value().columns();
}

std::string FirstLine(const std::string& path) {
  auto r = traces::CsvReader::Open(path, traces::CsvOptions{'\n', false, "", false, {}, 1 << 16});
  if (!r.ok()) return "";
  auto next = r.value().Next();
  if (!next.ok() || !next.value() || r.value().size() == 0) return "";
  return std::string(r.value().field(0));
}

traces::PhillyPaths PhillyLayout(const std::string& dir) {
  traces::PhillyPaths p;
  p.machines = dir + "/machine_list/cluster_machine_list.csv";
  p.jobs = dir + "/dre_job_windows/sampled_jobs.json";
  p.gpu_window = dir + "/dre_job_windows/gpu_util_window.csv";
  p.cpu_window = dir + "/dre_job_windows/cpu_util_window.csv";
  p.mem_free_window = dir + "/dre_job_windows/mem_free_pct_window.csv";
  return p;
}

traces::PaiPaths PaiLayout(const std::string& dir) {
  traces::PaiPaths p;
  auto pick = [&](const std::string& stem) {
    for (const char* ext : {".csv", ".csv.gz"})
      if (fs::exists(dir + "/" + stem + ext)) return dir + "/" + stem + ext;
    return std::string();
  };
  p.job = pick("pai_job_table");
  p.task = pick("pai_task_table");
  p.instance = pick("pai_instance_table");
  p.sensor = pick("pai_sensor_table");
  p.group_tag = pick("pai_group_tag_table");
  p.machine_spec = pick("pai_machine_spec");
  return p;
}

Result<traces::TraceData> ReadSacctTrace(const std::vector<std::string>& paths,
                                         const ReaderOptions& opt) {
  traces::SacctOptions o;
  if (opt.sacct_tenant == "user")
    o.tenant = traces::SacctTenant::kUser;
  else if (opt.sacct_tenant != "account")
    return Status::Error("--sacct-tenant: expected account or user, got '" + opt.sacct_tenant +
                         "'");
  if (opt.sacct_submit == "submit")
    o.submit_from = traces::SacctSubmit::kSubmit;
  else if (opt.sacct_submit != "eligible")
    return Status::Error("--sacct-submit: expected eligible or submit, got '" + opt.sacct_submit +
                         "'");
  std::optional<traces::SlurmConf> conf;
  if (!opt.slurm_conf.empty()) {
    auto c = traces::ReadSlurmConf(opt.slurm_conf);
    if (!c.ok()) return c.status();
    conf = std::move(c).value();
    o.conf = &*conf;
  }
  auto d = traces::ReadSacct(paths, o);
  if (d.ok() && conf)
    d.value().notes.push_back("jobs checked against " + opt.slurm_conf +
                              " (recorded nodes, GPUs per node, partitions)");
  return d;
}

}  // namespace

Result<std::string> DetectTraceFormat(const std::vector<std::string>& paths) {
  if (paths.empty()) return Status::Error("--trace: no file given");
  const std::string& p = paths.front();
  if (p.rfind("builtin", 0) == 0) return std::string("builtin");
  if (!fs::exists(p)) return Status::Error("--trace: " + p + ": no such file");
  if (fs::is_directory(p)) {
    if (fs::exists(p + "/dre_job_windows/sampled_jobs.json")) return std::string("philly");
    if (!PaiLayout(p).task.empty()) return std::string("pai");
    return Status::Error(
        "--trace: " + p +
        ": a folder, but neither a Philly-derived nor a PAI layout (use --format)");
  }
  if (EndsWith(p, ".swf") || EndsWith(p, ".swf.gz") || FirstLine(p).rfind(";", 0) == 0)
    return std::string("swf");
  if (traces::LooksLikeK8sShadow(FirstLine(p))) return std::string("k8s-shadow");
  if (traces::LooksLikeSacct(p)) return std::string("sacct");
  auto h = Header(p);
  if (!h.ok()) return Status::Error("--trace: " + h.status().message());
  const auto& cols = h.value();
  auto has = [&](const char* c) { return std::find(cols.begin(), cols.end(), c) != cols.end(); };
  if (has("id") && has("submit_s") && has("runtime_s")) return std::string("canonical");
  if (traces::LooksLikeOpenbPods(cols)) return std::string("openb");
  if (traces::LooksLikeAaic(cols)) return std::string("aaic");
  if (traces::LooksLikeItp(cols)) return std::string("itp");
  if (traces::LooksLikeDlrm(cols)) return std::string("dlrm");
  return Status::Error("--trace: " + p +
                       ": format not recognised from its header (use --format; `utilsim formats`)");
}

Result<traces::TraceData> ReadTrace(const std::string& format,
                                    const std::vector<std::string>& paths,
                                    const ReaderOptions& opt) {
  if (paths.empty()) return Status::Error("--trace: no file given");
  const std::string& p = paths.front();
  auto one = [&]() -> Status {
    if (paths.size() > 1)
      return Status::Error("--trace: format " + format + " reads one file, got " +
                           std::to_string(paths.size()));
    return Status::Ok();
  };
  if (format == "canonical") {
    if (Status s = one(); !s.ok()) return s;
    auto w = traces::ReadJobsCsv(p);
    if (!w.ok()) return w.status();
    traces::TraceData d;
    d.workload = std::move(w).value();
    d.rows_read = static_cast<int64_t>(d.workload.jobs.size());
    return d;
  }
  if (format == "openb") {
    if (Status s = one(); !s.ok()) return s;
    traces::OpenbOptions o;
    if (opt.pending == "skip")
      o.pending = traces::OpenbPending::kSkip;
    else if (opt.pending != "run")
      return Status::Error("--pending: expected run or skip, got '" + opt.pending + "'");
    auto d = traces::ReadOpenbPods(p, o);
    if (!d.ok()) return d.status();
    std::string nodes = opt.node_list;
    if (nodes.empty()) {
      const std::string beside =
          fs::path(p).parent_path().string() + "/openb_node_list_all_node.csv";
      if (fs::exists(beside)) nodes = beside;
    }
    if (!nodes.empty()) {
      auto c = traces::ReadOpenbNodes(nodes);
      if (!c.ok()) return c.status();
      d.value().cluster = std::move(c).value();
      d.value().notes.push_back("cluster: node list " + nodes);
    }
    return d;
  }
  if (format == "aaic") {
    traces::AaicOptions o;
    if (opt.nodes > 0) o.nodes = opt.nodes;
    return traces::ReadAaic(paths, o);
  }
  if (format == "swf") {
    if (Status s = one(); !s.ok()) return s;
    traces::SwfOptions o;
    o.gpus_per_node = opt.gpus_per_node;
    if (opt.swf_unit == "cpu")
      o.unit = traces::SwfUnit::kCpu;
    else if (opt.swf_unit != "gpu")
      return Status::Error("--swf-unit: expected gpu or cpu, got '" + opt.swf_unit + "'");
    return traces::ReadSwf(p, o);
  }
  if (format == "itp") {
    traces::ItpOptions o;
    o.gpus_per_node = opt.gpus_per_node;
    return traces::ReadItp(paths, o);
  }
  if (format == "philly") {
    if (Status s = one(); !s.ok()) return s;
    return traces::ReadPhilly(PhillyLayout(p));
  }
  if (format == "pai") {
    if (Status s = one(); !s.ok()) return s;
    return traces::ReadPai(PaiLayout(p));
  }
  if (format == "dlrm") {
    if (Status s = one(); !s.ok()) return s;
    return traces::ReadDlrm(p);
  }
  if (format == "sacct") return ReadSacctTrace(paths, opt);
  if (format == "k8s-shadow") {
    if (Status s = one(); !s.ok()) return s;
    return traces::ReadK8sShadow(p);
  }
  std::string known;
  for (const auto& [n, d] : TraceFormatList()) known += (known.empty() ? "" : ", ") + n;
  return Status::Error("--format: unknown trace format '" + format + "' (known: " + known + ")");
}

Result<std::string> DetectTelemetryFormat(const std::vector<std::string>& paths,
                                          const std::string& option) {
  if (paths.empty()) return Status::Error(option + ": no file given");
  const std::string& p = paths.front();
  if (!fs::exists(p)) return Status::Error(option + ": " + p + ": no such file");
  if (EndsWith(p, ".prom") || EndsWith(p, ".prom.gz") || fs::is_directory(p))
    return std::string("dcgm-exporter");
  if (EndsWith(p, ".json")) return std::string("prom-json");
  auto h = Header(p);
  if (!h.ok()) return Status::Error(option + ": " + h.status().message());
  for (const auto& c : h.value()) {
    if (c.rfind("utilization.gpu", 0) == 0) return std::string("nvidia-smi");
    if (c == "EntityId") return std::string("dcgm-csv");
  }
  if (traces::LooksLikeGenAiPodSeries(h.value())) return std::string("genai");
  if (traces::LooksLikePhillyWindow(h.value())) return std::string("philly-windows");
  return Status::Error(option + ": " + p + ": format not recognised from its header (use " +
                       option + "-format; `utilsim formats`)");
}

Result<traces::TelemetryData> ReadTelemetry(const std::string& format,
                                            const std::vector<std::string>& paths,
                                            const Workload& jobs, const std::string& option) {
  if (paths.empty()) return Status::Error(option + ": no file given");
  const std::string& p = paths.front();
  traces::TelemetryOptions o;
  if (format == "dcgm-exporter") {
    if (fs::is_directory(p)) {
      auto files = traces::ListScrapeFiles(p);
      if (!files.ok()) return files.status();
      return traces::ReadDcgmScrapes(std::move(files).value(), o);
    }
    return traces::ReadDcgmExposition(p, o);
  }
  if (format == "prom-json") return traces::ReadPromQueryRange(p, o);
  if (format == "nvidia-smi") return traces::ReadNvidiaSmiCsv(p, o);
  if (format == "dcgm-csv") return traces::ReadDcgmFieldCsv(p, o);
  if (format == "genai") return traces::ReadGenAiPodUtil(p, paths.size() > 1 ? paths[1] : "", o);
  if (format == "philly-windows") return traces::ReadPhillyWindows(p, jobs);
  std::string known;
  for (const auto& [n, d] : TelemetryFormatList()) known += (known.empty() ? "" : ", ") + n;
  return Status::Error(option + "-format: unknown telemetry format '" + format +
                       "' (known: " + known + ")");
}

}  // namespace utilsim
