#include "utilsim/results/csv_export.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "testutil/testutil.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

namespace fs = std::filesystem;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::vector<RunResult> MakeRuns() {
  std::vector<RunResult> runs(2);
  runs[0].meta.label = "fifo";
  runs[0].meta.seed = 7;
  runs[0].meta.sample_interval = Seconds(30);
  runs[0].summary.jobs = 2;
  runs[0].summary.allocation_pct = 0.1 + 0.2;
  runs[0].summary.wait_p99_s = std::nan("");
  runs[1].meta.label = "best \"fit\", v2";
  runs[1].meta.notes = "two\nlines";

  JobRecord done;
  done.job = 0;
  done.name = "a,b";
  done.submit = Micros(1);
  done.start = Micros(2'500'001);
  done.finish = Seconds(100);
  done.recorded_runtime = Seconds(90);
  done.gpu_milli = 500;
  done.placement = "n0:3";
  done.alloc_gpu_s = 1e-7;
  done.useful_gpu_s = 123456789.125;
  done.idle_gpu_s = {0.25, 0, 0, 0, 0, 0};
  JobRecord waiting;
  waiting.job = 1;
  waiting.name = "w";
  waiting.outcome = JobOutcome::kUnfinished;
  waiting.submit = Seconds(5);
  runs[0].jobs = {done, waiting};

  Sample s;
  s.time = Micros(12'500'000);
  s.gpus_allocated = 3.5;
  s.gpus_busy = 2.25;
  s.queued = 4;
  s.running = 2;
  s.cpu_allocated_frac = 0.5;
  s.mem_allocated_frac = 0.25;
  s.gpus_free_whole = 10;
  s.gpus_stranded = 1;
  s.gpus_idle = {0, 0.75, 0.5, 0, 0, 0};  // input, communication
  runs[1].samples = {s};
  Sample p;  // a change point of run 1 (its form is not the export's concern)
  p.gpus_allocated = 1;
  p.gpus_busy = 0.5;
  p.power_w = 300;
  runs[0].changes = {p};
  return runs;
}

TEST(CsvExportTest, WritesFiveTablesWithHeaders) {
  std::string dir = testutil::TempDir();
  ASSERT_TRUE(ExportCsv(MakeRuns(), dir).ok());
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"change_points.csv", "jobs.csv", "runs.csv",
                                             "samples.csv", "waits.csv"}));
  EXPECT_EQ(Lines(testutil::ReadFile(dir + "/change_points.csv")),
            (std::vector<std::string>{
                "run_id,time_s,gpus_allocated,gpus_busy,queued,running,"
                "cpu_allocated_frac,mem_allocated_frac,gpus_free_whole,gpus_stranded,"
                "idle_unattributed_gpus,idle_input_gpus,idle_communication_gpus,"
                "idle_fixed_gpus,idle_sharing_gpus,idle_storage_gpus,frag_gpu_milli,"
                "power_w,gpus_down",
                "1,0,1,0.5,0,0,0,0,0,0,0,0,0,0,0,0,,300,0"}));

  std::vector<std::string> samples = Lines(testutil::ReadFile(dir + "/samples.csv"));
  EXPECT_EQ(samples, (std::vector<std::string>{
                         "run_id,time_s,gpus_allocated,gpus_busy,queued,running,"
                         "cpu_allocated_frac,mem_allocated_frac,gpus_free_whole,gpus_stranded,"
                         "idle_unattributed_gpus,idle_input_gpus,idle_communication_gpus,"
                         "idle_fixed_gpus,idle_sharing_gpus,idle_storage_gpus,frag_gpu_milli,"
                         "power_w,gpus_down",
                         "2,12.5,3.5,2.25,4,2,0.5,0.25,10,1,0,0.75,0.5,0,0,0,,0,0"}));

  std::vector<std::string> jobs = Lines(testutil::ReadFile(dir + "/jobs.csv"));
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0],
            "run_id,job_index,name,tenant,outcome,reason,submit_s,start_s,finish_s,wait_s,queued_s,"
            "jct_s,recorded_runtime_s,tasks,gpus,placement,preemptions,alloc_gpu_s,useful_gpu_s,"
            "idle_gpu_s,"
            "idle_unattributed_gpu_s,idle_input_gpu_s,idle_communication_gpu_s,idle_fixed_gpu_s,"
            "idle_sharing_gpu_s,idle_storage_gpu_s,energy_kwh,idle_energy_kwh,wait_capacity_s,"
            "wait_gpu_model_s,wait_fragmentation_s,wait_co_resource_s,wait_placement_s,"
            "wait_mig_layout_s,wait_reservation_s,wait_queue_order_s,wait_recorded_start_s,"
            "wait_preemption_s,wait_power_on_s,wait_power_budget_s,wait_nodes_down_s,interruptions,"
            "lost_gpu_s,ettr");
  // Shortest round-trip numbers; quoted text; never-reached times empty.
  EXPECT_EQ(jobs[1],
            "1,0,\"a,b\",0,finished,,1e-06,2.500001,100,2.5,,99.999999,90,1,0.5,n0:3,0,1e-07,"
            "123456789.125,0.25,0.25,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,");
  EXPECT_EQ(jobs[2],
            "1,1,w,0,unfinished,,5,,,,,,0,1,0,,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
            "0,");
  // One row per wait interval (none in these runs): the header only.
  EXPECT_EQ(
      Lines(testutil::ReadFile(dir + "/waits.csv")),
      std::vector<std::string>{
          "run_id,job_index,from_s,to_s,cause,blocker_index,nodes_model,"
          "nodes_gpus,nodes_cpu,nodes_mem,nodes_fit,nodes_unavailable,nodes_power,est_start_s"});
}

TEST(CsvExportTest, RunsRowsQuoteTextAndLeaveNanEmpty) {
  std::string dir = testutil::TempDir();
  ASSERT_TRUE(ExportCsv(MakeRuns(), dir).ok());
  std::string text = testutil::ReadFile(dir + "/runs.csv");
  EXPECT_EQ(text.rfind("run_id,label,utilsim_version,queue_policy,", 0), 0u);
  // The header names every Summary column; notes with a line break are quoted.
  EXPECT_NE(text.find(",allocation_pct,effective_util_pct,"), std::string::npos);
  EXPECT_NE(text.find("\n2,\"best \"\"fit\"\", v2\","), std::string::npos) << text;
  EXPECT_NE(text.find(",\"two\nlines\","), std::string::npos) << text;
  EXPECT_NE(text.find("\n1,fifo,,,,,,7,,,,30,samples,0,0,,,2,0,0,0,0,0,0,0,0,0,0,"
                      "0.30000000000000004,"),
            std::string::npos)
      << text;
  // wait_p95_s (0), wait_p99_s (NaN -> empty), wait_max_s (0).
  EXPECT_NE(text.find(",0,,0,"), std::string::npos) << text;
}

TEST(CsvExportTest, ReplacesFilesAndLeavesNoTemporaries) {
  std::string dir = testutil::TempDir();
  testutil::WriteFile(dir + "/runs.csv", "old\n");
  ASSERT_TRUE(ExportCsv({}, dir).ok());
  EXPECT_EQ(Lines(testutil::ReadFile(dir + "/runs.csv")).size(), 1u);  // header only
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_EQ(e.path().string().find(".utilsim-tmp-"), std::string::npos) << e.path();
    ++files;
  }
  EXPECT_EQ(files, 5u);
}

TEST(CsvExportTest, CreatesAMissingDirectoryButNotUnderAFile) {
  const std::string base = testutil::TempDir();
  const std::string dir = base + "/nope/deeper";
  ASSERT_EQ(ExportCsv(MakeRuns(), dir).message(), "");
  for (const char* f :
       {"/runs.csv", "/jobs.csv", "/samples.csv", "/waits.csv", "/change_points.csv"})
    EXPECT_EQ(testutil::ReadFile(dir + f).rfind("run_id,", 0), 0u) << f;
  testutil::WriteFile(base + "/file", "x");
  EXPECT_EQ(ExportCsv(MakeRuns(), base + "/file/sub").message(),
            base + "/file/sub: cannot be created: " + base + "/file is not a directory");
  EXPECT_EQ(testutil::ReadFile(base + "/file"), "x");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
