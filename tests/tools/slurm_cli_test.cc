// `utilsim slurm advise` and `utilsim shadow-report` on Slurm advice logs
// through the binary, without a Slurm: stand-in squeue/sinfo/scontrol
// scripts print the real 22.05 JSON of tests/fixtures/slurm/live. Usage
// errors exit 2 naming the option, runtime errors 1; outputs that are links
// or FIFOs are refused. (tests/live/slurm runs the same against a real
// Slurm.)
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "testutil/testutil.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::RunCli;

using testutil::Has;

// A folder of stand-in Slurm commands printing the recorded snapshot.
std::string FakeSlurm() {
  const std::string dir = testutil::TempDir();
  auto script = [&](const std::string& name, const std::string& body) {
    testutil::WriteFile(dir + "/" + name, "#!/bin/sh\n" + body);
    chmod((dir + "/" + name).c_str(), 0755);
  };
  script("squeue", "cat " + Fixture("slurm/live/squeue_22.05.json") + "\n");
  script("sinfo", "cat " + Fixture("slurm/live/sinfo_22.05.json") + "\n");
  script("scontrol", "echo \"scontrol: unrecognized option '--json'\" >&2; exit 1\n");
  return dir;
}

TEST(SlurmCli, OnceAdvisesTheRecordedSnapshot) {
  const std::string dir = testutil::TempDir(), bin = FakeSlurm();
  std::string out;
  ASSERT_EQ(RunCli("slurm advise --once --slurm-bin " + bin + " --log " + dir + "/a.jsonl", &out),
            0)
      << out;
  // Jobs 12-14 wait for b1-b3 (see tests/live/slurm_model_test.cc); the
  // het job and the array have no start while 12-14 (no limit) run.
  // Columns padded to the widest cell ("17_[0-2]").
  EXPECT_TRUE(Has(out, "job       partition  user  tasks x GPUs  start")) << out;
  EXPECT_TRUE(Has(out, "\n12        gpu        root  1 x 4 v100")) << out;
  EXPECT_TRUE(Has(out, "15+0")) << out;
  EXPECT_TRUE(Has(out, "no start while the jobs without a time limit run")) << out;
  const std::string log = testutil::ReadFile(dir + "/a.jsonl");
  EXPECT_TRUE(Has(log, "\"event\":\"start\"")) << log;
  EXPECT_TRUE(Has(log, "\"job\":\"12\"")) << log;
  EXPECT_TRUE(Has(log, "\"nodes\":[\"b1\"]")) << log;
}

TEST(SlurmCli, UsageErrorsExit2NamingTheOption) {
  std::string out;
  EXPECT_EQ(RunCli("slurm advise --apply --once", &out), 2);
  EXPECT_TRUE(Has(out, "--apply: needs --apply-partitions")) << out;
  EXPECT_EQ(RunCli("slurm advise --apply-partitions gpu --once", &out), 2);
  EXPECT_TRUE(Has(out, "--apply-partitions: only with --apply")) << out;
  EXPECT_EQ(RunCli("slurm advise --apply-deadline soon", &out), 2);
  EXPECT_TRUE(Has(out, "--apply-deadline: 'soon' is not a duration")) << out;
  EXPECT_EQ(RunCli("slurm advise --rest http://127.0.0.1:1", &out), 2);
  EXPECT_TRUE(Has(out, "--rest: needs --rest-user and --rest-token-file")) << out;
  EXPECT_EQ(RunCli("slurm advise --listen 127.0.0.1", &out), 2);
  EXPECT_TRUE(Has(out, "--listen:")) << out;
  EXPECT_EQ(RunCli("slurm advise --poll 0", &out), 2);
  EXPECT_EQ(RunCli("slurm advise --policy tightest --once", &out), 2);
  EXPECT_TRUE(Has(out, "unknown")) << out;
  EXPECT_EQ(RunCli("slurm advise --duration 0s", &out), 2);
  EXPECT_EQ(RunCli("slurm", &out), 2);
}

TEST(SlurmCli, RuntimeErrorsExit1AndOutputsAreGuarded) {
  const std::string dir = testutil::TempDir(), bin = FakeSlurm();
  std::string out;
  EXPECT_EQ(
      RunCli("slurm advise --once --slurm-bin " + dir + "/none --log " + dir + "/a.jsonl", &out),
      1);
  EXPECT_TRUE(Has(out, "cannot run " + dir + "/none/squeue")) << out;
  // The advice log may not be a FIFO or a link.
  ASSERT_EQ(mkfifo((dir + "/fifo").c_str(), 0644), 0);
  EXPECT_EQ(RunCli("slurm advise --once --slurm-bin " + bin + " --log " + dir + "/fifo", &out), 1);
  EXPECT_TRUE(Has(out, "fifo")) << out;
  testutil::WriteFile(dir + "/target", "keep\n");
  ASSERT_EQ(symlink((dir + "/target").c_str(), (dir + "/link").c_str()), 0);
  EXPECT_EQ(RunCli("slurm advise --once --slurm-bin " + bin + " --log " + dir + "/link", &out), 1);
  EXPECT_EQ(testutil::ReadFile(dir + "/target"), "keep\n");
  // slurmctld down: squeue fails, the message quotes it.
  testutil::WriteFile(bin + "/squeue",
                      "#!/bin/sh\necho 'squeue: error: Unable to contact slurm controller' >&2\n"
                      "exit 1\n");
  EXPECT_EQ(RunCli("slurm advise --once --slurm-bin " + bin + " --log " + dir + "/b.jsonl", &out),
            1);
  EXPECT_TRUE(Has(out, "Unable to contact slurm controller")) << out;
}

TEST(SlurmCli, ShadowReportOfAnAdviceLogWithItsHistory) {
  const std::string dir = testutil::TempDir();
  // Jobs 12 and 13 of the recorded history (sacct_epoch.txt: 12 ran on b1
  // from 111 s after the origin, 13 on b2), advised b1 and b3.
  const std::string log = testutil::WriteFile(
      dir + "/advice.jsonl",
      "{\"v\":1,\"t\":1000,\"event\":\"start\",\"policy\":\"best-fit\",\"slurm\":\"22.05.8\"}\n"
      "{\"v\":1,\"t\":1000,\"event\":\"advice\",\"job\":\"12\",\"nodes\":[\"b1\"],"
      "\"est_start\":5,\"stranded_after\":0}\n"
      "{\"v\":1,\"t\":1000,\"event\":\"advice\",\"job\":\"13\",\"nodes\":[\"b3\"],"
      "\"ranked\":[[\"b3\"],[\"b2\"]],\"est_start\":5,\"stranded_after\":1}\n"
      "{\"v\":1,\"t\":2000,\"event\":\"started\",\"job\":\"12\",\"slurm_nodes\":[\"b1\"],"
      "\"advised\":[\"b1\"],\"agree\":true,\"in_ranked\":true,\"stranded_slurm\":0,"
      "\"advised_stranded\":0}\n"
      "{\"v\":1,\"t\":2000,\"event\":\"started\",\"job\":\"13\",\"slurm_nodes\":[\"b2\"],"
      "\"advised\":[\"b3\"],\"agree\":false,\"in_ranked\":true,\"stranded_slurm\":2,"
      "\"advised_stranded\":1}\n");
  std::string out;
  ASSERT_EQ(
      RunCli("shadow-report " + log + " --sacct " + Fixture("slurm/sacct_epoch.txt") + " --pods",
             &out),
      0)
      << out;
  EXPECT_TRUE(Has(out,
                  "agreement             1 of 2 on the advised nodes (50.0 %), 2 on one of "
                  "the ranked choices (100.0 %)"))
      << out;
  EXPECT_TRUE(Has(out,
                  "stranded GPUs         2 on Slurm's nodes after its starts, 1 had the "
                  "jobs gone to the advised nodes"))
      << out;
  // Recorded waits: 12 and 13 waited 21 s each (eligible 05:17:45, start
  // 05:18:06).
  EXPECT_TRUE(Has(out, "2 advised jobs in the history: mean 21.0 s")) << out;
  // With the cluster: the offline replay under the three default policies.
  ASSERT_EQ(RunCli("shadow-report " + log + " --sacct " + Fixture("slurm/sacct_epoch.txt") +
                       " --cluster " + Fixture("slurm/slurm.conf"),
                   &out),
            0)
      << out;
  EXPECT_TRUE(Has(out, "as-recorded (baseline)  as-recorded+best-fit")) << out;
  EXPECT_TRUE(Has(out, "easy-backfill+best-fit")) << out;
  // A broken line that is not the last is an error naming it.
  testutil::WriteFile(dir + "/bad.jsonl",
                      "{\"v\":1,\"t\":1,\"event\":\"start\"}\n{oops\n{\"v\":1,\"t\":2,"
                      "\"event\":\"gone\",\"job\":\"1\"}\n");
  EXPECT_EQ(RunCli("shadow-report " + dir + "/bad.jsonl", &out), 1);
  EXPECT_TRUE(Has(out, dir + "/bad.jsonl:2: not a JSON object")) << out;
  // --sacct is for advice logs only.
  testutil::WriteFile(dir + "/k8s.jsonl",
                      "{\"v\":1,\"t\":1,\"event\":\"finished\",\"pod\":\"a/b\",\"node\":\"n\"}\n");
  EXPECT_EQ(
      RunCli("shadow-report " + dir + "/k8s.jsonl --sacct " + Fixture("slurm/sacct_epoch.txt"),
             &out),
      1);
  EXPECT_TRUE(Has(out, "are for Slurm advice logs")) << out;
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
