// The Philly CPU-starvation scenario: Philly readers + the calibration
// estimator (philly_scenario.h).
#include "utilsim/io/philly_scenario.h"

#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "utilsim/engine/units.h"
#include "utilsim/traces/philly.h"

namespace utilsim {

namespace {

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

Result<std::vector<JobWindows>> PhillyCalibrationWindows(const std::string& dir,
                                                         const Workload& jobs,
                                                         const ClusterSpec* cluster) {
  const std::string base = dir + "/dre_job_windows/";
  auto gpu = traces::ReadPhillyWindows(base + "gpu_util_window.csv", jobs);
  if (!gpu.ok()) return gpu.status();
  traces::Warnings warnings;
  auto cpu = traces::ReadPhillyHostWindows(base + "cpu_util_window.csv", &warnings);
  if (!cpu.ok()) return cpu.status();
  const std::vector<traces::PhillyStartWindow> rows =
      traces::PhillyStartWindows(gpu.value(), cpu.value(), jobs, cluster);
  std::unordered_map<std::string_view, const Job*> by_name;
  for (const Job& j : jobs.jobs) by_name.emplace(j.name, &j);
  std::vector<JobWindows> out;
  for (const traces::PhillyStartWindow& r : rows) {
    if (out.empty() || out.back().job != r.job) {
      if (!out.empty() && out.back().windows.empty()) out.pop_back();
      JobWindows jw;
      jw.job = r.job;
      const Job* job = by_name.at(r.job);
      jw.gpus = job->tasks * job->task.gpus;
      out.push_back(std::move(jw));
    }
    for (int m = 0; m < 4; ++m) {
      const float g = r.gpu_busy[static_cast<size_t>(m)];
      const float c = r.cpu_busy[static_cast<size_t>(m)];
      if (std::isnan(g) || std::isnan(c)) continue;
      CalibrationWindow w;
      w.minute = m;
      w.host = r.host;
      w.gpu_busy = g;
      w.cpu_busy = c;
      w.host_gpus_used = r.gpus_used;
      w.host_gpus = r.host_gpus;
      out.back().windows.push_back(std::move(w));
    }
  }
  if (!out.empty() && out.back().windows.empty()) out.pop_back();
  return out;
}

Result<PhillyScenario> BuildPhillyCpuScenario(const PhillyScenarioOptions& opt) {
  if (opt.cpu_milli_per_gpu <= 0) {
    return Status::Error("Philly scenario: cpu_milli_per_gpu must be > 0");
  }
  traces::PhillyOptions popt;
  popt.cpu_milli_per_gpu = opt.cpu_milli_per_gpu;
  popt.skip_failed = opt.skip_failed;
  auto machines =
      traces::ReadPhillyMachines(opt.dir + "/machine_list/cluster_machine_list.csv", popt);
  if (!machines.ok()) return machines.status();
  auto jobs = traces::ReadPhillyJobs(opt.dir + "/dre_job_windows/sampled_jobs.json", popt);
  if (!jobs.ok()) return jobs.status();

  PhillyScenario s;
  s.cluster = std::move(machines).value();
  s.cluster.name = "philly-cpu";
  s.workload = std::move(jobs).value().workload;
  s.jobs_read = static_cast<int64_t>(s.workload.jobs.size());
  auto windows = PhillyCalibrationWindows(opt.dir, s.workload, &s.cluster);
  if (!windows.ok()) return windows.status();
  s.windows = std::move(windows).value();
  auto fit = FitInputStalls(s.windows, opt.fit);
  if (!fit.ok()) return fit.status();
  s.fit = std::move(fit).value();

  if (opt.calibrated_only) {
    std::unordered_map<std::string_view, bool> has;
    for (const JobWindows& jw : s.windows) has.emplace(jw.job, true);
    std::vector<Job> kept;
    for (Job& j : s.workload.jobs) {
      if (has.count(j.name)) kept.push_back(std::move(j));
    }
    s.workload.jobs = std::move(kept);  // order (by submit) is kept
  }
  for (Job& j : s.workload.jobs) j.task.cpu_milli = opt.cpu_milli_per_gpu * j.task.gpus;
  ApplyOptions aopt;
  aopt.rule = opt.rule;
  aopt.cpu_milli_per_gpu = opt.cpu_milli_per_gpu;
  s.applied = ApplyInputStalls(s.fit, s.windows, &s.workload, aopt);
  s.workload.signal = UtilSignal::kGpuUtil;
  s.workload.source = "philly-cpu-scenario:" + opt.dir;

  s.notes.push_back("jobs: " + std::to_string(s.jobs_read) + " read, " +
                    std::to_string(s.windows.size()) +
                    " with GPU and CPU windows at minutes 0..3, " +
                    std::to_string(s.workload.jobs.size()) + " in the scenario");
  s.notes.push_back("fit: " + s.fit.Summary());
  s.notes.push_back(std::string("attribution: ") +
                    (opt.rule == Attribution::kFit ? "fit (b x max(0, cpu - theta))"
                                                   : "saturated idle (upper bound)") +
                    "; input_cpu set for " + std::to_string(s.applied.input_set) +
                    " jobs, > 0.1 for " + std::to_string(s.applied.above_0_1) + ", mean " +
                    Fixed(s.applied.mean_input_cpu, 4));
  s.notes.push_back(
      "assumed: " + Fixed(static_cast<double>(opt.cpu_milli_per_gpu) / kMilliPerUnit, 2) +
      " cores per GPU (8-GPU server with 2 x 12-core CPUs); every task gets "
      "that x its GPUs (GPU-proportional baseline)");
  return s;
}

}  // namespace utilsim
