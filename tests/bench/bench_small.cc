// `make bench` small-trace benchmark (issue 18): a trace the size of a
// Philly virtual cluster — 2,000 synthetic jobs on 24 nodes x 8 GPUs (192
// GPUs) arriving over about 160 days — under strict FIFO + best-fit with the
// default 300 s sample ticks and the default --series auto (change points
// here), end to end: generate, simulate, write the results database
// (streamed, as `utilsim run --out` does). --series samples|changes forces
// the form. On small traces fixed
// costs dominate; the figure is CPU time (user + system, every thread of the
// process), the best of --reps runs, so that it does not depend on the
// machine's other load. Prints one machine-readable line.
//
// Usage: bench_small [--out FILE] [--reps N] [--load L] [--series auto|changes|samples]
//                    [--sample-interval SECONDS]
#include <sqlite3.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"
#include "utilsim/results/result_writer.h"
#include "utilsim/workloads/synthetic.h"

namespace {
// The first column of the first row of `sql` on the database at `path`.
long long CountRows(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  long long n = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}
double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  return s(u.ru_utime) + s(u.ru_stime);
}
double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

int main(int argc, char** argv) {
  using namespace utilsim;
  std::string out = "/tmp/utilsim-bench-small.db";
  int reps = 5;
  // Offered load that spreads 2,000 jobs of the default mix over ~160 days
  // on 192 GPUs.
  double load = 0.0186;
  SeriesForm form = SeriesForm::kAuto;
  double interval_s = 300;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--out"))
      out = argv[i + 1];
    else if (!std::strcmp(argv[i], "--reps"))
      reps = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--load"))
      load = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--sample-interval"))
      interval_s = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--series"))
      form = !std::strcmp(argv[i + 1], "changes")   ? SeriesForm::kChanges
             : !std::strcmp(argv[i + 1], "samples") ? SeriesForm::kSamples
                                                    : SeriesForm::kAuto;
  }
  SyntheticParams p = DemoParams();
  p.name = "small";
  p.jobs = 2000;
  p.nodes = 24;
  p.target_load = load;
  double best_cpu = 1e300, best_wall = 1e300, span_days = 0;
  int64_t ticks = 0;
  std::string series;
  for (int rep = 0; rep < reps; ++rep) {
    const double c0 = CpuSeconds(), w0 = Now();
    Workload w = GenerateSynthetic(p, 1);
    ClusterSpec c = SyntheticCluster(p);
    auto sched = BuiltinPolicies().Make("fifo+best-fit");
    auto writer = ResultWriter::Open(out);
    if (!sched.ok() || !writer.ok()) {
      std::fprintf(stderr, "%s\n",
                   (!sched.ok() ? sched.status() : writer.status()).message().c_str());
      return 1;
    }
    SimConfig cfg;
    cfg.sink = writer.value().get();
    cfg.keep_rows = false;
    cfg.series = form;
    cfg.sample_interval = Micros(static_cast<int64_t>(interval_s * 1e6));
    auto r = Simulate(c, w, *sched.value(), cfg);
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().message().c_str());
      return 1;
    }
    if (Status s = writer.value()->Commit(&r.value()); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      return 1;
    }
    writer.value().reset();  // joins the writer thread: its CPU time counts
    best_cpu = std::min(best_cpu, CpuSeconds() - c0);
    best_wall = std::min(best_wall, Now() - w0);
    span_days = (w.jobs.back().submit - w.jobs.front().submit).seconds() / 86400;
    ticks = r.value().meta.sample_count;
    series = r.value().meta.series;
  }
  const long long rows =
      CountRows(out, series == "changes" ? "SELECT count(*) FROM change_points"
                                         : "SELECT count(*) FROM interval_samples");
  std::printf(
      "jobs=%lld gpus=%lld arrival_span_days=%.1f series=%s ticks=%lld series_rows=%lld "
      "cpu_ms=%.1f wall_ms=%.1f reps=%d\n",
      static_cast<long long>(p.jobs), static_cast<long long>(p.nodes) * p.gpus_per_node, span_days,
      series.c_str(), static_cast<long long>(ticks), rows, best_cpu * 1e3, best_wall * 1e3, reps);
  return 0;
}
