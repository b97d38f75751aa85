#include "utilsim/io/inputs.h"

#include <filesystem>

#include "utilsim/engine/units.h"
#include "utilsim/traces/canonical.h"
#include "utilsim/traces/slurm_conf.h"
#include "utilsim/traces/telemetry_join.h"
#include "utilsim/workloads/profile_library.h"
#include "utilsim/workloads/synthetic.h"

namespace utilsim {

namespace {

Status LoadBuiltin(const InputOptions& opt, Inputs* in) {
  SyntheticParams p;
  if (opt.trace == "builtin:demo" || opt.trace == "builtin") {
    p = DemoParams();
  } else if (opt.trace == "builtin:bench") {
    p = BenchParams();
  } else {
    return Status::Error("--trace: unknown built-in workload '" + opt.trace +
                         "' (expected builtin:demo or builtin:bench)");
  }
  if (opt.jobs >= 0) p.jobs = opt.jobs;
  if (Status s = ValidateSyntheticParams(p); !s.ok())
    return Status::Error("--jobs: " + s.message());
  ClusterSpec cluster = SyntheticCluster(p);
  if (opt.before_generate)
    if (Status s = opt.before_generate(p.jobs, opt.cluster.empty() ? cluster.total_nodes() : 0);
        !s.ok())
      return s;
  in->workload = GenerateSynthetic(p, opt.seed);
  in->cluster = std::move(cluster);
  return Status::Ok();
}

// A profile library from telemetry tracks: one entry per track, its series
// relative to its first sample, its span as duration.
ProfileLibrary LibraryFromTelemetry(const traces::TelemetryData& t, const std::string& source) {
  ProfileLibrary lib;
  lib.source = source;
  for (const auto& tr : t.tracks) {
    if (tr.time.size() < 2) continue;
    if (lib.signal == UtilSignal::kUnknown) lib.signal = tr.signal;
    ProfileEntry e;
    e.key = tr.job.empty() ? tr.host + ":" + std::to_string(tr.gpu) : tr.job;
    e.gpu_milli = kMilliPerUnit;
    // The last sample holds for the median sampling step.
    const Micros step = tr.time[tr.time.size() / 2] - tr.time[tr.time.size() / 2 - 1];
    e.duration = tr.time.back() - tr.time.front() + step;
    for (size_t i = 0; i < tr.time.size(); ++i) {
      e.series.offset.push_back(tr.time[i] - tr.time.front());
      e.series.busy.push_back(tr.busy[i]);
    }
    (void)lib.Add(std::move(e));  // tracks are validated by their readers
  }
  return lib;
}

}  // namespace

std::vector<NamedPath> InputPaths(const InputOptions& opt, const std::string& profiles) {
  std::vector<NamedPath> out;
  auto add = [&](const char* option, const std::string& list) {
    for (const auto& p : SplitPaths(list)) out.push_back({option, p});
  };
  if (opt.trace.rfind("builtin", 0) != 0) {
    add("--trace", opt.trace);
    // The openb reader's default node list (formats.cc); listed whatever the
    // format, since a wrong guess only protects one more file.
    if (opt.reader.node_list.empty())
      for (const auto& p : SplitPaths(opt.trace))
        out.push_back(
            {"the node list beside --trace",
             (std::filesystem::path(p).parent_path() / "openb_node_list_all_node.csv").string()});
  }
  add("--cluster", opt.cluster);
  if (!opt.cluster.empty() && traces::LooksLikeSlurmConf(opt.cluster))
    out.push_back({"the gres.conf beside --cluster",
                   (std::filesystem::path(opt.cluster).parent_path() / "gres.conf").string()});
  add("--telemetry", opt.telemetry);
  add("--util-library", opt.util_library);
  add("--node-list", opt.reader.node_list);
  if (!profiles.empty()) out.push_back({"--profiles", profiles});
  return out;
}

Result<Inputs> LoadInputs(const InputOptions& opt) {
  Inputs in;
  // --cluster is a slurm.conf (by name or first line) rather than YAML.
  const bool slurm_cluster = !opt.cluster.empty() && traces::LooksLikeSlurmConf(opt.cluster);
  const std::vector<std::string> paths = opt.trace.rfind("builtin", 0) == 0
                                             ? std::vector<std::string>{opt.trace}
                                             : SplitPaths(opt.trace);
  if (opt.format.empty()) {
    auto f = DetectTraceFormat(paths);
    if (!f.ok()) return f.status();
    in.format = f.value();
  } else {
    in.format = opt.format;
  }
  if (in.format == "builtin") {
    if (Status s = LoadBuiltin(opt, &in); !s.ok()) return s;
  } else {
    for (const auto& p : paths)
      if (!std::filesystem::exists(p)) return Status::Error("--trace: " + p + ": no such file");
    ReaderOptions reader = opt.reader;
    if (slurm_cluster && reader.slurm_conf.empty()) reader.slurm_conf = opt.cluster;
    auto d = ReadTrace(in.format, paths, reader);
    if (!d.ok()) return d.status();
    in.trace_info = std::move(d).value();
    in.workload = std::move(in.trace_info.workload);
    in.trace_info.workload = Workload{};
    if (in.trace_info.cluster) in.cluster = *in.trace_info.cluster;
    for (const auto& line : in.trace_info.warnings.Lines()) in.notes.push_back("input: " + line);
  }
  if (slurm_cluster) {
    auto c = traces::ReadSlurmConf(opt.cluster);
    if (!c.ok()) return c.status();
    in.cluster = std::move(c.value().cluster);
    for (const auto& n : c.value().notes) in.notes.push_back("cluster: " + n);
    for (const auto& line : c.value().warnings.Lines()) in.notes.push_back("cluster: " + line);
  } else if (!opt.cluster.empty()) {
    auto c = traces::ReadClusterYaml(opt.cluster);
    if (!c.ok()) return c.status();
    in.cluster = std::move(c).value();
  } else if (in.cluster.groups.empty() && opt.require_cluster) {
    return Status::Error("--cluster: required: format " + in.format +
                         " does not describe the cluster (a YAML cluster spec)");
  }
  if (!opt.telemetry.empty()) {
    const auto tpaths = SplitPaths(opt.telemetry);
    std::string fmt = opt.telemetry_format;
    if (fmt.empty()) {
      auto f = DetectTelemetryFormat(tpaths);
      if (!f.ok()) return f.status();
      fmt = f.value();
    }
    auto t = ReadTelemetry(fmt, tpaths, in.workload);
    if (!t.ok()) return t.status();
    traces::JoinOptions jo;
    auto off = FromSeconds(opt.telemetry_offset_s);
    if (!off) return Status::Error("--telemetry-offset: expected seconds");
    jo.time_offset = *off;
    traces::Warnings jw;
    if (Status s = traces::AttachTelemetry(&in.workload, t.value(), jo, &jw); !s.ok())
      return Status::Error("--telemetry: " + s.message());
    in.notes.push_back("telemetry: " + opt.telemetry + " (" + fmt + ") joined by job id or host");
    for (const auto& line : jw.Lines()) in.notes.push_back("telemetry join: " + line);
  }
  if (!opt.util_library.empty()) {
    const auto lpaths = SplitPaths(opt.util_library);
    std::string fmt = opt.util_library_format;
    if (fmt.empty()) {
      auto f = DetectTelemetryFormat(lpaths, "--util-library");
      if (!f.ok()) return f.status();
      fmt = f.value();
    }
    auto t = ReadTelemetry(fmt, lpaths, in.workload, "--util-library");
    if (!t.ok()) return t.status();
    ProfileLibrary lib = LibraryFromTelemetry(t.value(), opt.util_library + " (" + fmt + ")");
    if (lib.size() == 0)
      return Status::Error("--util-library: " + opt.util_library + ": no usable series");
    AttachMode mode;
    if (opt.attach == "series")
      mode = AttachMode::kSeries;
    else if (opt.attach == "mean")
      mode = AttachMode::kMean;
    else
      return Status::Error("--attach: expected series or mean, got '" + opt.attach + "'");
    AttachReport rep = AttachProfiles(&in.workload, lib, mode, opt.seed);
    in.notes.push_back("derived utilization: " + rep.rule + "; attached to " +
                       std::to_string(rep.attached) + " jobs (" + std::to_string(rep.exact_class) +
                       " same class, " + std::to_string(rep.gpu_bucket_only) + " same GPU size, " +
                       std::to_string(rep.any_class) + " any), " + std::to_string(rep.kept) +
                       " kept their own");
  }
  in.digest = traces::DigestWorkload(in.workload) + "-" + traces::DigestCluster(in.cluster);
  return in;
}

}  // namespace utilsim
