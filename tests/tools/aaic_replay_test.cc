// Issue 3 acceptance: as-recorded replay of AAIC 2017Q3, with sampled GPU
// allocation checked against the busy GPUs computed directly from the file's
// start and end times at every sample.
//
// The file cannot be replayed exactly on the installed 50 nodes x 8 GPUs: on
// 2017-09-27 one user's burst of 2-16-node jobs (termcode 1, minutes each)
// took the recorded demand to 882 GPUs (inspect reports it). So: on 111 nodes
// (882 / 8 rounded up) every job starts on time and every sample matches; on
// 50 nodes exactly the 15 burst jobs start late and every sample outside the
// burst matches.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "testutil/testutil.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"
#include "utilsim/traces/aaic.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

struct RawJob {
  int64_t start, end, gpus;
};

// Independent of the reader: splits each line on ',' and trims blanks.
std::vector<RawJob> ReadRaw(const std::string& path, int64_t* first_submit) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header: id, user, group, queue, nodes, gpus, ..., time_submit(8)
  std::vector<RawJob> out;
  *first_submit = INT64_MAX;
  while (std::getline(in, line)) {
    std::vector<int64_t> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) f.push_back(std::stoll(cell));
    // nodes 4, gpus 5, time_submit 8, time_start 9, time_end 10
    out.push_back({f[9], f[10], f[4] * f[5]});
    *first_submit = std::min(*first_submit, f[8]);
  }
  return out;
}

struct Replay {
  std::vector<std::string> late;                    // jobs not started at their recorded time
  Micros perturbed_from = kNever, perturbed_to{0};  // recorded start .. actual end of late jobs
  size_t samples = 0, matched = 0, mismatched_outside = 0;
};

Replay RunReplay(const std::string& path, int nodes) {
  Replay out;
  auto trace = traces::ReadAaic({path});
  EXPECT_TRUE(trace.ok()) << trace.status().message();
  const Workload& w = trace.value().workload;
  EXPECT_EQ(w.jobs.size(), 13712u);
  auto sched = BuiltinPolicies().Make("as-recorded");
  SimConfig cfg;
  cfg.sample_interval = Seconds(600);
  auto r = Simulate(traces::AaicCluster(nodes), w, *sched.value(), cfg);
  EXPECT_TRUE(r.ok()) << r.status().message();
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    const JobRecord& rec = r.value().jobs[i];
    EXPECT_EQ(rec.finish, rec.start + w.jobs[i].runtime);
    if (rec.start != *w.jobs[i].recorded_start) {
      out.late.push_back(w.jobs[i].name);
      out.perturbed_from = std::min(out.perturbed_from, *w.jobs[i].recorded_start);
      out.perturbed_to = std::max(out.perturbed_to, rec.finish);
    }
  }
  int64_t origin = 0;
  const std::vector<RawJob> raw = ReadRaw(path, &origin);
  EXPECT_EQ(raw.size(), 13712u);
  for (const Sample& s : r.value().samples) {
    EXPECT_EQ(s.time.us % 1000000, 0);  // samples fall on whole seconds
    const int64_t t = origin + s.time.us / 1000000;
    int64_t busy = 0;
    for (const RawJob& j : raw)
      // A zero-length recorded run (end == start) is simulated as 1 s.
      if (j.start <= t && (t < j.end || (j.end == j.start && t == j.start))) busy += j.gpus;
    ++out.samples;
    if (s.gpus_allocated == static_cast<double>(busy)) {
      ++out.matched;
    } else if (s.time < out.perturbed_from || s.time > out.perturbed_to) {
      ++out.mismatched_outside;
      ADD_FAILURE() << "sample at " << t << ": simulated " << s.gpus_allocated << ", file " << busy;
    }
  }
  return out;
}

TEST(AaicReplay, SizedForTheRecordedPeakEveryJobOnTimeEverySampleMatches) {
  const std::string path = testutil::TracePath("aist-aaic/aaicwl-2017Q3.csv");
  if (path.empty()) GTEST_SKIP() << "aist-aaic/aaicwl-2017Q3.csv not in $UTILSIM_TRACES";
  Replay r = RunReplay(path, 111);
  EXPECT_TRUE(r.late.empty()) << r.late.size() << " late, first " << r.late.front();
  EXPECT_GT(r.samples, 10000u);  // ~79 days at 10 min
  EXPECT_EQ(r.matched, r.samples);
}

TEST(AaicReplay, InstalledFiftyNodesOnlyTheOverCapacityBurstIsLate) {
  const std::string path = testutil::TracePath("aist-aaic/aaicwl-2017Q3.csv");
  if (path.empty()) GTEST_SKIP() << "aist-aaic/aaicwl-2017Q3.csv not in $UTILSIM_TRACES";
  Replay r = RunReplay(path, 50);
  ASSERT_EQ(r.late.size(), 15u);
  EXPECT_EQ(r.late.front(), "aaicwl-2017Q3:13186");
  EXPECT_EQ(r.mismatched_outside, 0u);
  // The burst perturbs well under 1% of the samples.
  EXPECT_GT(r.matched, r.samples - r.samples / 100);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
