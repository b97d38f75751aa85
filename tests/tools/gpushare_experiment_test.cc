// The openb gpushare study (docs/sharing.md "GPU sharing in the simulation:
// the openb gpushare study"): gpushare100 on the 1/20 GPU-node cluster with
// arrivals compressed 100x, under exclusive, fractional (best fit, FGD) and
// time-slicing (best fit, colocate). Pins the direction and rough size of
// the differences; skipped when the trace is absent.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "testutil/testutil.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testutil::RunCli;
using testutil::TracePath;

// Canonical CSV with submit_s / 100 and recorded_start_s blanked.
void Compress(const std::string& in, const std::string& out) {
  std::ifstream f(in);
  std::ofstream o(out);
  std::string line;
  std::getline(f, line);
  o << line << '\n';
  while (std::getline(f, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    if (line.back() == ',') cells.push_back("");
    cells[1] = std::to_string(std::stod(cells[1]) / 100.0);
    cells[14] = "";
    for (size_t i = 0; i < cells.size(); ++i) o << (i ? "," : "") << cells[i];
    o << '\n';
  }
}

// Every node group's count divided by 20, rounded up.
void Divide20(const std::string& in, const std::string& out) {
  std::ifstream f(in);
  std::ofstream o(out);
  const std::regex count("count: ([0-9]+)");
  for (std::string line; std::getline(f, line);) {
    std::smatch m;
    if (std::regex_search(line, m, count)) {
      const int c = (std::stoi(m[1]) + 19) / 20;
      line = m.prefix().str() + "count: " + std::to_string(c) + m.suffix().str();
    }
    o << line << '\n';
  }
}

TEST(SharingCli, OptionsAreListedAndBadValuesNamed) {
  const std::string args = "run --trace " + testutil::Fixture("cli/jobs.csv") + " --cluster " +
                           testutil::Fixture("cli/cluster.yaml");
  std::string out;
  ASSERT_EQ(RunCli("run --help", &out), 0);
  EXPECT_NE(out.find("--sharing TEXT=fractional"), std::string::npos);
  EXPECT_NE(out.find("--mps-thread-pct"), std::string::npos);
  EXPECT_EQ(RunCli(args + " --sharing shared", &out), 2);
  EXPECT_NE(out.find("utilsim: error: --sharing: expected fractional, exclusive, timeslice or "
                     "mps, got 'shared'"),
            std::string::npos)
      << out;
  EXPECT_EQ(RunCli(args + " --sharing mps --mps-thread-pct 0", &out), 2);
  EXPECT_NE(out.find("--mps-thread-pct: expected a percentage in (0, 100]"), std::string::npos)
      << out;
}

TEST(GpushareExperiment, SharingModesOnOpenbGpushare100) {
  const std::string pods = TracePath("alibaba-gpu-v2023/openb_pod_list_gpushare100.csv");
  const std::string nodes = TracePath("alibaba-gpu-v2023/openb_node_list_gpu_node.csv");
  if (pods.empty() || nodes.empty()) GTEST_SKIP() << "alibaba-gpu-v2023 not in $UTILSIM_TRACES";
  const std::string dir = testutil::TempDir();
  std::string out;
  ASSERT_EQ(RunCli("convert --trace " + pods + " --node-list " + nodes + " --out " + dir +
                       "/pods.csv --cluster-out " + dir + "/gpu_node.yaml",
                   &out),
            0)
      << out;
  Compress(dir + "/pods.csv", dir + "/x100.csv");
  Divide20(dir + "/gpu_node.yaml", dir + "/div20.yaml");
  const std::string a = " --trace " + dir + "/x100.csv --cluster " + dir + "/div20.yaml";
  ASSERT_EQ(
      RunCli("run" + a + " --policy fifo-skip+best-fit --sharing exclusive --out " + dir + "/ex.db",
             &out),
      0)
      << out;
  ASSERT_EQ(
      RunCli("compare" + a + " --policies fifo-skip+best-fit,fifo-skip+fgd --out " + dir + "/fr.db",
             &out),
      0)
      << out;
  ASSERT_EQ(RunCli("compare" + a +
                       " --policies fifo-skip+best-fit,fifo-skip+colocate --sharing timeslice "
                       "--out " +
                       dir + "/ts.db",
                   &out),
            0)
      << out;
  auto ex = ReadResults(dir + "/ex.db");
  auto fr = ReadResults(dir + "/fr.db");
  auto ts = ReadResults(dir + "/ts.db");
  ASSERT_TRUE(ex.ok() && fr.ok() && ts.ok());
  const Summary& e = ex.value()[0].summary;
  const Summary& bf = fr.value()[0].summary;
  const Summary& fgd = fr.value()[1].summary;
  const Summary& tbf = ts.value()[0].summary;
  const Summary& col = ts.value()[1].summary;
  // Every pod ends; under time-slicing a few slowed pods reach their
  // walltime limit (6 and 5) and are killed.
  for (const Summary* s : {&e, &bf, &fgd, &tbf, &col}) {
    EXPECT_EQ(s->finished + s->killed, 8152);
    EXPECT_EQ(s->unfinished + s->rejected, 0);
  }
  EXPECT_EQ(bf.finished, 8152);
  EXPECT_GT(tbf.killed, 0);
  EXPECT_TRUE(ex.value()[0].meta.notes.find("sharing exclusive: 7064 fractional") !=
              std::string::npos)
      << ex.value()[0].meta.notes;
  // Exclusive: whole GPUs held for fractional pods. Allocation 22.2 % vs
  // 14.3 %, effective utilization 10.1 % vs 14.3 %, mean wait 8,039 s vs 302 s.
  EXPECT_GT(e.allocation_pct, bf.allocation_pct + 5);
  EXPECT_LT(e.effective_util_pct, bf.effective_util_pct - 2);
  EXPECT_GT(e.wait_mean_s, 10 * bf.wait_mean_s);
  // Fractional: allocation = effective utilization (openb has no measured
  // utilization: busy = held), no sharing slowdown.
  EXPECT_NEAR(bf.allocation_pct, bf.effective_util_pct, 1e-9);
  EXPECT_EQ(bf.idle_sharing_gpu_h, 0);
  // FGD fragments less and waits less than best fit (22.3 % vs 26.4 %; 228 s
  // vs 302 s).
  EXPECT_LT(fgd.frag_mean_pct, bf.frag_mean_pct - 2);
  EXPECT_LT(fgd.wait_mean_s, bf.wait_mean_s);
  EXPECT_GT(bf.frag_mean_pct, 15);
  EXPECT_LT(bf.frag_mean_pct, 40);
  // Time-slicing costs sharing slowdown (43.8 GPU-h best fit, 42.5 colocate)
  // and a little effective utilization.
  EXPECT_GT(tbf.idle_sharing_gpu_h, 20);
  EXPECT_LT(tbf.idle_sharing_gpu_h, 80);
  EXPECT_LE(col.idle_sharing_gpu_h, tbf.idle_sharing_gpu_h);
  EXPECT_LT(tbf.effective_util_pct, bf.effective_util_pct);
  EXPECT_GT(tbf.wait_mean_s, bf.wait_mean_s);
  EXPECT_EQ(ts.value()[1].meta.progress_model, "whole-gpu comm=0.1 sharing=time-slice");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
