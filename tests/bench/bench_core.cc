// `make bench` core benchmark: one million synthetic jobs on 10,000 GPUs
// (BenchParams) under a placement policy, end to end: generate, simulate,
// write the SQLite results (total_s: the three). Before the simulation the
// same jobs go through the bare FIFO + best-fit reference loop
// (reference_loop.h, not counted in total_s), whose CPU time the
// simulation's is divided by (ref_ratio): the distance to the limit,
// measured in one run.
// Prints one machine-readable line.
//
// By default the rows stream into the database while the run goes
// (ResultWriter, a writer thread; the run keeps no rows): simulate_s (wall)
// then includes the writer thread's work where it shares the core, and
// write_s is the rest (the runs row, commit, rename). sim_cpu_s is the
// engine thread's own CPU time, without the writer's; ref_s is the
// reference loop's (best of three) and ref_ratio = sim_cpu_s / ref_s. With
// --stream 0 the run keeps its rows and WriteResults writes them after.
//
// Usage: bench_core [--policy NAME] [--out FILE] [--jobs N] [--model M]
//                   [--shared-storage 0|1] [--stream 0|1] [--nodes N]
// The scale test of issue 18: --jobs 10000000 --nodes 12500 (100,000 GPUs).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "reference_loop.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/engine/stall_model.h"
#include "utilsim/policies/registry.h"
#include "utilsim/results/result_store.h"
#include "utilsim/results/result_writer.h"
#include "utilsim/workloads/synthetic.h"

namespace {
double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
// Resident memory now, MiB (/proc/self/statm; 0 where there is none).
double RssMiB() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%lld %lld", &size, &resident);
  std::fclose(f);
  return n == 2 ? static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) /
                      (1024.0 * 1024.0)
                : 0;
}
// CPU time of the calling thread, seconds: the engine's own work, whatever
// the writer thread does beside it (or, on one core, between its slices).
double ThreadCpu() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}
double PeakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}
}  // namespace

int main(int argc, char** argv) {
  std::string policy = "best-fit", out = "/tmp/utilsim-bench.db", model = "whole-gpu";
  int64_t jobs = -1;
  int nodes = -1;  // of 8 GPUs; -1 = BenchParams' 1,250
  bool shared_storage = false, stream = true;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--policy"))
      policy = argv[i + 1];
    else if (!std::strcmp(argv[i], "--out"))
      out = argv[i + 1];
    else if (!std::strcmp(argv[i], "--jobs"))
      jobs = std::stoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--nodes"))
      nodes = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--model"))
      model = argv[i + 1];
    else if (!std::strcmp(argv[i], "--shared-storage"))
      shared_storage = !std::strcmp(argv[i + 1], "1");
    else if (!std::strcmp(argv[i], "--stream"))
      stream = !std::strcmp(argv[i + 1], "1");
  }
  using namespace utilsim;
  SyntheticParams p = BenchParams();
  if (jobs >= 0) p.jobs = jobs;
  if (nodes > 0) p.nodes = nodes;
  const double rss0 = RssMiB();
  const double t0 = Now();
  Workload w = GenerateSynthetic(p, 1);
  ClusterSpec c = SyntheticCluster(p);
  if (shared_storage) {
    // Every job reads 0.5 GB/s and spent a tenth of its recorded runtime on
    // storage; a node serves 2 GB/s: co-runners share it and re-rate each
    // other on every start and finish (the stall model's worst case here).
    c.topology.storage_bytes_s = 2e9;
    for (Job& j : w.jobs) {
      j.storage_bytes_s = 0.5e9;
      if (j.util <= 0.9f) j.stalls.input_storage = 0.1f;
    }
  }
  const double t1 = Now();
  const double rss1 = RssMiB();
  // The reference first, on the fresh workload (best of three: it is short;
  // the best is the least disturbed by the machine), so that it runs in the
  // same memory state whatever the run below keeps.
  double ref_s = 1e300;
  bench::ReferenceResult ref;
  for (int rep = 0; rep < 3; ++rep) {
    const double a = ThreadCpu();
    ref = bench::ReferenceLoop(c).Run(w);
    ref_s = std::min(ref_s, ThreadCpu() - a);
  }
  const double ts = Now();  // the simulation starts
  auto sched = BuiltinPolicies().Make(policy);
  if (!sched.ok()) {
    std::fprintf(stderr, "%s\n", sched.status().message().c_str());
    return 1;
  }
  SimConfig cfg;
  std::unique_ptr<ProgressModel> stall;
  if (model == "stall-serial" || model == "stall-overlapped") {
    stall = std::make_unique<StallProgress>(
        model == "stall-serial" ? Composition::kSerial : Composition::kOverlapped,
        WholeGpuProgress::kDefaultCommFraction);
    cfg.progress = stall.get();
  } else if (model != "whole-gpu") {
    std::fprintf(stderr, "--model: expected whole-gpu, stall-serial or stall-overlapped\n");
    return 1;
  }
  std::unique_ptr<ResultWriter> writer;
  if (stream) {
    auto opened = ResultWriter::Open(out);
    if (!opened.ok()) {
      std::fprintf(stderr, "%s\n", opened.status().message().c_str());
      return 1;
    }
    writer = std::move(opened.value());
    cfg.sink = writer.get();
    cfg.keep_rows = false;
  }
  const double cpu1 = ThreadCpu();
  auto r = Simulate(c, w, *sched.value(), cfg);
  const double sim_cpu = ThreadCpu() - cpu1;
  if (!r.ok()) {
    std::fprintf(stderr, "%s\n", r.status().message().c_str());
    return 1;
  }
  const double t2 = Now();
  std::vector<RunResult> runs;
  if (!stream) runs.push_back(std::move(r.value()));
  Status s = stream ? writer->Commit() : WriteResults(runs, out);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  const double t3 = Now();
  const RunResult& summary_of = stream ? r.value() : runs.front();
  // Bytes per job: the workload (resident growth while generating), the
  // run (peak above that: engine state, results, SQLite's cache) and in all.
  const double peak = PeakRssMiB();
  auto per_job = [&](double mib) {
    return w.jobs.empty() ? 0.0 : mib * 1024 * 1024 / static_cast<double>(w.jobs.size());
  };
  const double events = static_cast<double>(summary_of.summary.events);
  std::printf(
      "policy=%s model=%s stream=%d jobs=%zu gpus=%lld generate_s=%.3f simulate_s=%.3f "
      "write_s=%.3f "
      "total_s=%.3f sim_cpu_s=%.3f "
      "events=%.0f events_per_s=%.0f jobs_per_s=%.0f peak_rss_mib=%.0f allocation_pct=%.2f "
      "effective_util_pct=%.2f wait_p95_s=%.0f ref_s=%.3f ref_ratio=%.2f ref_started=%lld "
      "workload_bytes_per_job=%.0f run_bytes_per_job=%.0f bytes_per_job=%.0f series=%s "
      "ticks=%lld\n",
      policy.c_str(), summary_of.meta.progress_model.c_str(), stream ? 1 : 0, w.jobs.size(),
      static_cast<long long>(c.total_gpus()), t1 - t0, t2 - ts, t3 - t2, (t1 - t0) + (t3 - ts),
      sim_cpu, events, events / (t2 - ts), static_cast<double>(w.jobs.size()) / (t2 - ts), peak,
      summary_of.summary.allocation_pct, summary_of.summary.effective_util_pct,
      summary_of.summary.wait_p95_s, ref_s, sim_cpu / ref_s, static_cast<long long>(ref.started),
      per_job(rss1 - rss0), per_job(peak - rss1), per_job(peak), summary_of.meta.series.c_str(),
      static_cast<long long>(summary_of.meta.sample_count));
  return 0;
}
