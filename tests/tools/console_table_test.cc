#include "console_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace utilsim {
namespace UTILSIM_UNITY_ID {

RunResult MakeRun(const std::string& label, double scale) {
  RunResult r;
  r.meta.label = label;
  Summary& s = r.summary;
  s.jobs = 1000;
  s.finished = 990;
  s.rejected = 4;
  s.unfinished = 6;
  s.allocation_pct = 72.4;
  s.effective_util_pct = 40.1;
  s.alloc_gpu_h = 12000 * scale;
  s.useful_gpu_h = 5000;
  s.idle_alloc_gpu_h = s.alloc_gpu_h - s.useful_gpu_h;
  s.price_per_gpu_h = 2.5;
  s.idle_cost = s.idle_alloc_gpu_h * s.price_per_gpu_h;
  s.wait_p50_s = 252 * scale;  // 4.2 min
  s.wait_p95_s = 12600;        // 3.5 h
  s.wait_p99_s = 42;           // 42.0 s
  s.jct_mean_s = 5400 * scale;
  s.slowdown_mean = 1.8;
  s.makespan_s = 3 * 86400;
  s.energy_facility_kwh = 900 * scale;
  s.energy_alloc_idle_kwh = 300 * scale;
  return r;
}

// The line of `table` whose first column is `metric`.
std::string Row(const std::string& table, const std::string& metric) {
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(metric + "  ", 0) == 0) return line;
  }
  return "<no row " + metric + ">";
}

TEST(ConsoleTableTest, ComparesAgainstBaseline) {
  RunResult fifo = MakeRun("fifo", 1.0);
  RunResult best = MakeRun("best-fit", 0.88);
  best.summary.finished = 993;
  best.summary.unfinished = 3;
  best.summary.allocation_pct = 75.5;
  best.summary.effective_util_pct = 39.95;
  // Widths: "fifo (baseline)" 15, "best-fit" 8 (values up to 8), "vs fifo" 7.
  EXPECT_EQ(FormatComparison({fifo, best}, 0),
            "metric                  fifo (baseline)  best-fit  vs fifo\n"
            "----------------------  ---------------  --------  -------\n"
            "jobs finished                       990       993       +3\n"
            "jobs rejected                         4         4       +0\n"
            "jobs unfinished                       6         3       -3\n"
            "allocation                       72.4 %    75.5 %  +3.1 pp\n"
            "effective utilization            40.1 %    40.0 %  -0.1 pp\n"
            "allocated GPU-h                 12000.0   10560.0  -12.0 %\n"
            "useful GPU-h                     5000.0    5000.0   +0.0 %\n"
            "idle allocated GPU-h             7000.0    5560.0  -20.6 %\n"
            "idle cost @ 2.50/GPU-h         17500.00  13900.00  -20.6 %\n"
            "energy kWh (facility)             900.0     792.0  -12.0 %\n"
            "idle alloc kWh (IT)               300.0     264.0  -12.0 %\n"
            "wait p50                        4.2 min   3.7 min  -12.0 %\n"
            "wait p95                          3.5 h     3.5 h   +0.0 %\n"
            "wait p99                         42.0 s    42.0 s   +0.0 %\n"
            "queued p95                        0.0 s     0.0 s   +0.0 %\n"
            "mean JCT                          1.5 h     1.3 h  -12.0 %\n"
            "mean bounded slowdown              1.80      1.80   +0.0 %\n"
            "makespan                         72.0 h    72.0 h   +0.0 %\n");
}

TEST(ConsoleTableTest, BaselineNeedNotBeFirst) {
  std::string t = FormatComparison({MakeRun("a", 1.0), MakeRun("b", 0.5), MakeRun("", 2.0)}, 1);
  // The last column is 9 wide for "idle allocated GPU-h": 19000 vs 1000 = "+1800.0 %".
  EXPECT_EQ(Row(t, "metric"),
            "metric                         a      vs b  b (baseline)     run 3       "
            "vs b");
  EXPECT_EQ(Row(t, "wait p50"),
            "wait p50                 4.2 min  +100.0 %       2.1 min   8.4 min   "
            "+300.0 %");
}

TEST(ConsoleTableTest, UnitsChosenPerValue) {
  std::vector<RunResult> runs;
  for (double s : {0.04, 42.0, 59.96, 252.0, 3569.0, 3600.0 * 26}) {
    runs.push_back(MakeRun("r", 1.0));
    runs.back().summary.wait_p50_s = s;
  }
  EXPECT_EQ(Row(FormatComparison(runs, 99), "wait p50"),
            "wait p50                   0.0 s    42.0 s   1.0 min   4.2 min  59.5 min    "
            "26.0 h");
}

TEST(ConsoleTableTest, ZeroBaselineAndMissingValues) {
  RunResult base = MakeRun("base", 1.0), other = MakeRun("other", 1.0);
  base.summary.wait_p50_s = 0;
  base.summary.wait_p95_s = 0;
  other.summary.wait_p95_s = 0;
  other.summary.wait_p99_s = std::nan("");
  std::string t = FormatComparison({base, other}, 0);
  EXPECT_EQ(Row(t, "wait p50"), "wait p50                          0.0 s   4.2 min      n/a");
  EXPECT_EQ(Row(t, "wait p95"), "wait p95                          0.0 s     0.0 s   +0.0 %");
  EXPECT_EQ(Row(t, "wait p99"), "wait p99                         42.0 s       n/a      n/a");
}

TEST(ConsoleTableTest, PricesShownPerRunWhenTheyDiffer) {
  RunResult a = MakeRun("a", 1.0), b = MakeRun("b", 1.0);
  b.summary.price_per_gpu_h = 3;
  b.summary.idle_cost = 21000;
  std::string t = FormatComparison({a, b}, 0);
  EXPECT_EQ(Row(t, "idle cost"),
            "idle cost              17500.00 @ 2.50  21000.00 @ 3.00  +20.0 %");
}

TEST(ConsoleTableTest, NoRunsNoTable) { EXPECT_EQ(FormatComparison({}, 0), ""); }

TEST(ConsoleTableTest, SummaryListsIdentityAndFigures) {
  RunResult r = MakeRun("best-fit", 1.0);
  r.meta.queue_policy = "fifo";
  r.meta.queue_policy_version = std::string("1");  // not = "1": GCC 12 -Wrestrict false positive
  r.meta.placement_policy = "best-fit";
  r.meta.seed = 42;
  r.summary.capacity_gpus = 64;
  r.summary.window_end = Seconds(7200);
  r.summary.tenant_fairness = 0.9876;
  r.summary.events = 123456;
  std::string s = FormatSummary(r);
  EXPECT_EQ(s.substr(0, s.find("jobs ")),
            "run                            best-fit\n"
            "queue policy                   fifo 1\n"
            "placement policy               best-fit\n"
            "seed                           42\n"
            "workload                       -\n"
            "cluster                        -\n"
            "input digest                   -\n");
  EXPECT_EQ(Row(s, "jobs"),
            "jobs                           1000 (990 finished, 4 rejected, 6 unfinished)");
  EXPECT_EQ(Row(s, "window"), "window                         0.0 s to 2.0 h");
  EXPECT_EQ(Row(s, "idle cost"), "idle cost                      17500.00 at 2.50/GPU-h");
  EXPECT_EQ(Row(s, "wait mean/p50/p95/p99/max"),
            "wait mean/p50/p95/p99/max      0.0 s / 4.2 min / 3.5 h / 42.0 s / 0.0 s");
  EXPECT_EQ(Row(s, "tenant fairness (Jain)"), "tenant fairness (Jain)         0.988");
  EXPECT_EQ(Row(s, "events"), "events                         123456");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
