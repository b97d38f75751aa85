// The command source of the Slurm advisor (slurm_source.h) against stand-in
// squeue, scontrol and sinfo scripts: the commands and arguments it runs,
// the fallback to sinfo where scontrol has no --json (Slurm 22.05), errors
// quoting Slurm's message, and the time limit on a command that hangs.
#include "utilsim/live/slurm_source.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <string>

#include "testutil/testutil.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

std::string Script(const std::string& dir, const std::string& name, const std::string& body) {
  const std::string path = dir + "/" + name;
  testutil::WriteFile(path, "#!/bin/sh\n" + body);
  chmod(path.c_str(), 0755);
  return path;
}

TEST(SlurmCommandSource, RunsTheCommandsAndFallsBackToSinfo) {
  const std::string dir = testutil::TempDir();
  Script(dir, "squeue", "echo \"$@\" > " + dir + "/squeue.args\necho '{\"jobs\":[]}'\n");
  // 22.05's scontrol: no --json; updates are recorded.
  Script(dir, "scontrol",
         "case \"$1\" in show) echo \"scontrol: unrecognized option '--json'\" >&2; exit 1;;\n"
         "update) echo \"$@\" >> " +
             dir + "/scontrol.args; exit 0;; esac\n");
  Script(dir, "sinfo", "echo '{\"nodes\":[{\"name\":\"a1\",\"cpus\":4}]}'\n");
  SlurmCommandOptions o;
  o.bin_dir = dir;
  auto src = MakeCommandSource(o);
  auto jobs = src->Jobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  EXPECT_EQ(jobs.value(), "{\"jobs\":[]}\n");
  EXPECT_EQ(testutil::ReadFile(dir + "/squeue.args"), "--all --json\n");
  auto nodes = src->Nodes();
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  EXPECT_NE(nodes.value().find("\"a1\""), std::string::npos);
  ASSERT_TRUE(src->SetRequiredNodes(42, "a[1-2]").ok());
  ASSERT_TRUE(src->SetRequiredNodes(42, "").ok());
  EXPECT_EQ(testutil::ReadFile(dir + "/scontrol.args"),
            "update JobId=42 ReqNodeList=a[1-2]\nupdate JobId=42 ReqNodeList=\n");
  EXPECT_EQ(src->Describe(), "commands");
}

TEST(SlurmCommandSource, ErrorsQuoteSlurmAndHangsAreCut) {
  const std::string dir = testutil::TempDir();
  Script(dir, "squeue",
         "echo 'squeue: error: Unable to contact slurm controller (connect failure)' >&2\n"
         "exit 1\n");
  Script(dir, "scontrol", "sleep 30\n");
  Script(dir, "sinfo", "exit 0\n");
  SlurmCommandOptions o;
  o.bin_dir = dir;
  o.timeout_ms = 300;
  auto src = MakeCommandSource(o);
  auto jobs = src->Jobs();
  ASSERT_FALSE(jobs.ok());
  EXPECT_EQ(jobs.status().message(),
            dir +
                "/squeue --all --json: exit 1: squeue: error: Unable to contact slurm "
                "controller (connect failure)");
  const auto t0 = std::chrono::steady_clock::now();
  auto nodes = src->Nodes();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(nodes.ok());
  EXPECT_NE(nodes.status().message().find("no answer within the time limit (killed)"),
            std::string::npos)
      << nodes.status().message();
  EXPECT_LT(secs, 10.0);  // killed, not waited for (30 s)
  SlurmCommandOptions none;
  none.bin_dir = dir + "/missing";
  auto err = MakeCommandSource(none)->Jobs();
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find("cannot run"), std::string::npos);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
