// Safe outputs (docs/results.md, "How outputs are written"): every writer
// refuses to replace an input of the command, a symbolic link, a device, a
// FIFO or a folder, leaves the target exactly as it was when it refuses, and
// leaves no temporary file behind: not on errors, not on SIGINT/SIGTERM, and
// a kill -9 leftover is removed by the next write of the same path.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "testutil/testutil.h"
#include "utilsim/analysis/report.h"
#include "utilsim/io/output_path.h"
#include "utilsim/results/csv_export.h"
#include "utilsim/results/result_store.h"
#include "utilsim/traces/temp_file.h"

extern char** environ;

namespace utilsim {
namespace UTILSIM_UNITY_ID {

namespace fs = std::filesystem;
using testutil::RunCli;

std::vector<RunResult> Runs() {
  RunResult r;
  r.meta.label = "a";
  r.meta.utilsim_version = "0.1.0";
  r.summary.capacity_gpus = 8;
  return {r};
}

using testutil::Has;

// What a path is, compared before and after a refused write: its type (not
// following a link), inode, device number, a regular file's bytes, a link's
// target.
struct Snapshot {
  bool exists = false;
  mode_t type = 0;
  ino_t ino = 0;
  dev_t rdev = 0;
  std::string bytes, link;
  bool operator==(const Snapshot&) const = default;
};

Snapshot Snap(const std::string& p) {
  Snapshot s;
  struct stat st;
  if (::lstat(p.c_str(), &st) != 0) return s;
  s.exists = true;
  s.type = st.st_mode & S_IFMT;
  s.ino = st.st_ino;
  s.rdev = st.st_rdev;
  if (S_ISREG(st.st_mode)) s.bytes = testutil::ReadFile(p);
  if (S_ISLNK(st.st_mode)) s.link = fs::read_symlink(p).string();
  return s;
}

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

OutputGuard Guard(const std::string& option, std::vector<NamedPath> inputs = {}) {
  return OutputGuard{option, std::move(inputs), false, ""};
}

// A pid that no process has: a child that has exited and been reaped.
pid_t DeadPid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

TEST(SafeOutput, TemporaryFileIsHiddenBesideTheTarget) {
  const std::string pid = std::to_string(::getpid());
  EXPECT_EQ(traces::TempPathFor("/a/b/r.db"), "/a/b/.r.db.utilsim-tmp-" + pid);
  EXPECT_EQ(traces::TempPathFor("r.db"), ".r.db.utilsim-tmp-" + pid);
}

TEST(SafeOutput, OutputThatIsAnInputIsRefusedAndUntouched) {
  const std::string dir = testutil::TempDir();
  const std::string t = testutil::WriteFile(dir + "/t.csv", "id,submit_s,runtime_s\na,0,1\n");
  const Snapshot before = Snap(t);
  const OutputGuard g = Guard("--out", {{"--cluster", dir + "/c.yaml"}, {"--trace", t}});
  EXPECT_EQ(WriteResults(Runs(), t, g).message(), "--out: " + t + ": is the same file as --trace " +
                                                      t + "; refusing to replace an input");
  // Another spelling of the same name, and a hard link (same inode).
  EXPECT_EQ(WriteResults(Runs(), dir + "/./t.csv", g).message(),
            "--out: " + dir + "/./t.csv: is the same file as --trace " + t +
                "; refusing to replace an input");
  ASSERT_EQ(::link(t.c_str(), (dir + "/hard.db").c_str()), 0);
  EXPECT_EQ(WriteResults(Runs(), dir + "/hard.db", g).message(),
            "--out: " + dir + "/hard.db: is the same file as --trace " + t +
                "; refusing to replace an input");
  EXPECT_EQ(
      WriteReport(Runs(), t, {}, Guard("--report", {{"--trace", t}})).message(),
      "--report: " + t + ": is the same file as --trace " + t + "; refusing to replace an input");
  EXPECT_EQ(Snap(t), before);
  EXPECT_EQ(Entries(dir), (std::vector<std::string>{"hard.db", "t.csv"}));
}

TEST(SafeOutput, CsvExportRefusesToReplaceAnInputInItsFolder) {
  const std::string dir = testutil::TempDir();
  const std::string t = testutil::WriteFile(dir + "/jobs.csv", "id,submit_s,runtime_s\na,0,1\n");
  const Snapshot before = Snap(t);
  EXPECT_EQ(
      ExportCsv(Runs(), dir, Guard("--csv", {{"--trace", t}})).message(),
      "--csv: " + t + ": is the same file as --trace " + t + "; refusing to replace an input");
  EXPECT_EQ(Snap(t), before);
  // Checked before any of the three files is written.
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"jobs.csv"});
}

TEST(SafeOutput, SymlinkToAnInputIsRefusedAndStaysALink) {
  const std::string dir = testutil::TempDir();
  const std::string t = testutil::WriteFile(dir + "/t.csv", "id\n");
  const std::string l = dir + "/l.db";
  ASSERT_EQ(::symlink(t.c_str(), l.c_str()), 0);
  const Snapshot link_before = Snap(l), input_before = Snap(t);
  EXPECT_EQ(
      WriteResults(Runs(), l, Guard("--out", {{"--trace", t}})).message(),
      "--out: " + l + ": is a symbolic link to --trace " + t + "; refusing to replace an input");
  EXPECT_EQ(Snap(l), link_before);
  EXPECT_EQ(link_before.type, S_IFLNK);
  EXPECT_EQ(Snap(t), input_before);
}

TEST(SafeOutput, SymlinkToAnotherFileIsRefusedButItsTargetCanBeNamed) {
  const std::string dir = testutil::TempDir();
  const std::string other = testutil::WriteFile(dir + "/other.db", "old");
  const std::string l = dir + "/l.db";
  ASSERT_EQ(::symlink("other.db", l.c_str()), 0);
  const Snapshot before = Snap(l);
  EXPECT_EQ(WriteResults(Runs(), l, Guard("--out")).message(),
            "--out: " + l +
                ": is a symbolic link (to other.db); refusing to replace it (give the target's "
                "path to write there)");
  EXPECT_EQ(Snap(l), before);
  EXPECT_EQ(testutil::ReadFile(other), "old");
  // A dangling link is not followed either.
  ASSERT_EQ(::symlink("missing.db", (dir + "/dangling.db").c_str()), 0);
  EXPECT_TRUE(Has(WriteResults(Runs(), dir + "/dangling.db", Guard("--out")).message(),
                  "dangling.db: is a symbolic link (to missing.db); refusing"));
  EXPECT_FALSE(fs::exists(dir + "/missing.db"));
  // The target itself is an ordinary output.
  ASSERT_EQ(WriteResults(Runs(), other, Guard("--out")).message(), "");
  EXPECT_EQ(ReadResults(l).value().size(), 1u);
  EXPECT_EQ(Snap(l), before);
}

TEST(SafeOutput, CharacterDeviceIsRefusedAndUntouched) {
  const std::string dir = testutil::TempDir();
  const std::string dev = dir + "/null";
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "mknod of a character device needs root (CAP_MKNOD): " << std::strerror(errno);
  const Snapshot before = Snap(dev);
  ASSERT_EQ(before.type, S_IFCHR);
  ASSERT_EQ(before.rdev, makedev(1, 3));
  const std::string refused =
      dev + ": is a character device (not a regular file); refusing to replace it";
  EXPECT_EQ(WriteResults(Runs(), dev, Guard("--out")).message(), "--out: " + refused);
  EXPECT_EQ(WriteReport(Runs(), dev, {}, Guard("-o")).message(), "-o: " + refused);
  EXPECT_EQ(Snap(dev), before);
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"null"});
}

TEST(SafeOutput, FifoIsRefusedWithoutBeingOpened) {
  const std::string dir = testutil::TempDir();
  const std::string fifo =
      dir + "/runs.csv";  // opening it to write would block: the test would hang
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0) << std::strerror(errno);
  const Snapshot before = Snap(fifo);
  const std::string refused = fifo + ": is a FIFO (not a regular file); refusing to replace it";
  EXPECT_EQ(WriteResults(Runs(), fifo, Guard("--out")).message(), "--out: " + refused);
  EXPECT_EQ(WriteReport(Runs(), fifo, {}, Guard("--report")).message(), "--report: " + refused);
  EXPECT_EQ(ExportCsv(Runs(), dir, Guard("--csv")).message(), "--csv: " + refused);
  EXPECT_EQ(Snap(fifo), before);
  EXPECT_EQ(before.type, S_IFIFO);
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"runs.csv"});
}

TEST(SafeOutput, DirectoryIsRefusedAndAFileIsNoCsvFolder) {
  const std::string dir = testutil::TempDir();
  fs::create_directory(dir + "/sub");
  testutil::WriteFile(dir + "/sub/x", "x");
  EXPECT_EQ(WriteResults(Runs(), dir + "/sub", Guard("--out")).message(),
            "--out: " + dir + "/sub: is a directory (not a regular file); refusing to replace it");
  EXPECT_EQ(Entries(dir + "/sub"), std::vector<std::string>{"x"});
  const std::string file = testutil::WriteFile(dir + "/file", "keep");
  EXPECT_EQ(ExportCsv(Runs(), file, Guard("--csv")).message(),
            "--csv: " + file + ": is a regular file (not a folder)");
  EXPECT_EQ(testutil::ReadFile(file), "keep");
  EXPECT_EQ(ExportCsv(Runs(), file + "/sub", Guard("--csv")).message(),
            "--csv: " + file + "/sub: cannot be created: " + file + " is not a directory");
}

TEST(SafeOutput, StandardOutputOnlyForTextOutputsThatAllowIt) {
  const bool dash_before = fs::exists("-");
  EXPECT_EQ(WriteResults(Runs(), "-", Guard("--out")).message(),
            "--out: -: a SQLite results database cannot be written to standard output; give a "
            "file path");
  // Even when the caller would allow it: a database is binary.
  EXPECT_EQ(WriteResults(Runs(), "-", OutputGuard{"--out", {}, true, ""}).message(),
            "--out: -: a SQLite results database cannot be written to standard output; give a "
            "file path");
  EXPECT_EQ(WriteReport(Runs(), "-", {}, Guard("--report")).message(),
            "--report: -: the HTML report cannot be written to standard output; give a file path");
  EXPECT_EQ(ExportCsv(Runs(), "-", Guard("--csv")).message(),
            "--csv: -: expected a folder, not standard output");
  EXPECT_EQ(fs::exists("-"), dash_before);
  testing::internal::CaptureStdout();
  const Status s = WriteReport(Runs(), "-", {}, OutputGuard{"-o", {}, true, ""});
  const std::string printed = testing::internal::GetCapturedStdout();
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(printed, BuildReportHtml(Runs()));
}

TEST(SafeOutput, MissingFolderIsAnErrorForAFileButCreatedForCsv) {
  const std::string dir = testutil::TempDir();
  EXPECT_EQ(WriteResults(Runs(), dir + "/nope/r.db", Guard("--out")).message(),
            "--out: " + dir + "/nope/r.db: directory " + dir + "/nope does not exist");
  EXPECT_FALSE(fs::exists(dir + "/nope"));
  ASSERT_EQ(ExportCsv(Runs(), dir + "/a/b", Guard("--csv")).message(), "");
  EXPECT_EQ(Entries(dir + "/a/b"),
            (std::vector<std::string>{"change_points.csv", "jobs.csv", "runs.csv", "samples.csv",
                                      "waits.csv"}));
}

TEST(SafeOutput, ExistingFileInsideAnInputFolderIsNotReplaced) {
  const std::string dir = testutil::TempDir();
  fs::create_directory(dir + "/trace");
  const std::string pods = testutil::WriteFile(dir + "/trace/pods.csv", "pods");
  const OutputGuard g = Guard("--out", {{"--trace", dir + "/trace"}});
  EXPECT_EQ(
      WriteResults(Runs(), pods, g).message(),
      "--out: " + pods + ": is inside --trace " + dir + "/trace; refusing to replace an input");
  EXPECT_EQ(testutil::ReadFile(pods), "pods");
  EXPECT_EQ(WriteResults(Runs(), dir + "/trace/new.db", g).message(), "");
}

TEST(SafeOutput, TwoOutputsOfOneCommandMustDiffer) {
  const std::string dir = testutil::TempDir();
  EXPECT_EQ(
      CheckDistinctOutputs({{"--out", dir + "/r.db"}, {"--report", dir + "/./r.db"}}).message(),
      "--report: " + dir + "/./r.db: is also --out; give each output its own path");
  EXPECT_EQ(CheckDistinctOutputs({{"--out", "-"}, {"--cluster-out", "-"}}).message(),
            "--cluster-out: -: is also --out; give each output its own path");
  EXPECT_EQ(
      CheckDistinctOutputs({{"--out", dir + "/r.db"}, {"--report", ""}, {"--csv", "-"}}).message(),
      "");
}

TEST(SafeOutput, CommitChecksTheTargetAgain) {
  const std::string dir = testutil::TempDir();
  const std::string path = dir + "/x";
  traces::TempFile tmp;
  ASSERT_EQ(tmp.Create(path).message(), "");
  ASSERT_EQ(::write(tmp.fd(), "new", 3), 3);
  EXPECT_EQ(Entries(dir), std::vector<std::string>{".x.utilsim-tmp-" + std::to_string(::getpid())});
  ASSERT_EQ(::mkfifo(path.c_str(), 0666), 0);  // appears while the output is written
  EXPECT_EQ(tmp.Commit().message(),
            path + ": is a FIFO (not a regular file); refusing to replace it");
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"x"});
  EXPECT_EQ(Snap(path).type, S_IFIFO);
}

TEST(SafeOutput, TemporariesOfDeadProcessesAreRemovedByTheNextWrite) {
  const std::string dir = testutil::TempDir();
  const std::string dead = std::to_string(DeadPid());
  const std::string alive = std::to_string(::getppid());
  for (const std::string& name :
       {".r.db.utilsim-tmp-" + dead, ".r.db.utilsim-tmp-" + alive, ".other.db.utilsim-tmp-" + dead,
        std::string(".r.db.utilsim-tmp-12x")})
    testutil::WriteFile(dir + "/" + name, "stale");
  ASSERT_EQ(WriteResults(Runs(), dir + "/r.db", Guard("--out")).message(), "");
  std::vector<std::string> want = {".other.db.utilsim-tmp-" + dead, ".r.db.utilsim-tmp-" + alive,
                                   ".r.db.utilsim-tmp-12x", "r.db"};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(Entries(dir), want);
}

// A child process runs `before` (if any), creates a temporary file and dies
// of `sig`.
void DieWithTemporary(const std::string& target, int sig,
                      void (*before)(const std::string&) = nullptr) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (before) before(target);
    traces::TempFile tmp;
    if (!tmp.Create(target).ok() || ::write(tmp.fd(), "partial", 7) != 7) ::_exit(3);
    ::raise(sig);
    ::_exit(4);  // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), sig);
}

TEST(SafeOutput, SigintAndSigtermRemoveTheTemporaryFileKillLeavesIt) {
  const std::string dir = testutil::TempDir();
  DieWithTemporary(dir + "/r.db", SIGINT);
  EXPECT_EQ(Entries(dir), std::vector<std::string>{});
  DieWithTemporary(dir + "/r.db", SIGTERM);
  EXPECT_EQ(Entries(dir), std::vector<std::string>{});
  // SIGKILL cannot be handled: the file stays until the next write.
  DieWithTemporary(dir + "/r.db", SIGKILL);
  ASSERT_EQ(Entries(dir).size(), 1u);
  EXPECT_EQ(Entries(dir)[0].rfind(".r.db.utilsim-tmp-", 0), 0u);
  EXPECT_EQ(traces::RemoveStaleTemps(dir + "/r.db"), 1);
  EXPECT_EQ(Entries(dir), std::vector<std::string>{});
}

void IgnoreSignal(int) {}

// What `utilsim serve` does: SIGINT and SIGTERM handled by the program while
// a temporary file is made (so the temporary files' handler leaves them
// alone), then given back to the default.
void HandleThenGiveBack(const std::string& target) {
  std::signal(SIGINT, IgnoreSignal);
  std::signal(SIGTERM, IgnoreSignal);
  {
    traces::TempFile other;
    if (!other.Create(target + ".other").ok()) ::_exit(5);
  }  // not committed: removed
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

// The handler is installed for a signal at the default disposition whenever a
// temporary file is made, not only the first time in a process: a program
// that handled the signal while it wrote a first file and then gave it back
// to the default gets its later temporary files removed on the signal too.
TEST(SafeOutput, ASignalGivenBackToTheDefaultStillRemovesLaterTemporaryFiles) {
  const std::string dir = testutil::TempDir();
  DieWithTemporary(dir + "/r.db", SIGINT, HandleThenGiveBack);
  EXPECT_EQ(Entries(dir), std::vector<std::string>{});
  DieWithTemporary(dir + "/r.db", SIGTERM, HandleThenGiveBack);
  EXPECT_EQ(Entries(dir), std::vector<std::string>{});
}

// End to end, through the binary.

// Runs the binary with stderr discarded; *out = its standard output.
int RunStdout(const std::string& args, std::string* out) {
  FILE* p = ::popen((testutil::BinaryPath() + " " + args + " 2>/dev/null").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  out->clear();
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out->append(buf, n);
  const int rc = ::pclose(p);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string CliArgs(const std::string& trace) {
  return "--trace " + trace + " --cluster " + testutil::Fixture("cli/cluster.yaml");
}

TEST(SafeOutputCli, RunRefusesToReplaceItsInputs) {
  const std::string dir = testutil::TempDir();
  const std::string t = dir + "/victim.csv";
  fs::copy_file(testutil::Fixture("cli/jobs.csv"), t);
  const Snapshot before = Snap(t);
  std::string out;
  EXPECT_EQ(RunCli("run " + CliArgs(t) + " --out " + t, &out), 1);
  EXPECT_TRUE(Has(out, "utilsim: error: --out: " + t + ": is the same file as --trace " + t +
                           "; refusing to replace an input"))
      << out;
  EXPECT_EQ(Snap(t), before);
  const std::string c = dir + "/c.yaml";
  fs::copy_file(testutil::Fixture("cli/cluster.yaml"), c);
  EXPECT_EQ(RunCli("compare --trace " + t + " --cluster " + c +
                       " --policies best-fit,first-fit --report " + c,
                   &out),
            1);
  EXPECT_TRUE(Has(out, "--report: " + c + ": is the same file as --cluster " + c)) << out;
  EXPECT_EQ(testutil::ReadFile(c), testutil::ReadFile(testutil::Fixture("cli/cluster.yaml")));
  // --csv into the folder of a trace named jobs.csv.
  const std::string jobs = dir + "/jobs.csv";
  fs::copy_file(t, jobs);
  EXPECT_EQ(RunCli("run " + CliArgs(jobs) + " --csv " + dir, &out), 1);
  EXPECT_TRUE(Has(out, "--csv: " + jobs + ": is the same file as --trace " + jobs)) << out;
  EXPECT_EQ(testutil::ReadFile(jobs), before.bytes);
  EXPECT_EQ(Entries(dir), (std::vector<std::string>{"c.yaml", "jobs.csv", "victim.csv"}));
  // A database cannot go to standard output.
  EXPECT_EQ(RunCli("run " + CliArgs(t) + " --out -", &out), 1);
  EXPECT_TRUE(Has(out, "--out: -: a SQLite results database cannot be written to standard output"))
      << out;
}

TEST(SafeOutputCli, ReportRefusesToReplaceItsDatabase) {
  const std::string dir = testutil::TempDir();
  const std::string db = dir + "/r.db";
  std::string out;
  ASSERT_EQ(RunCli("run --trace builtin:demo --jobs 50 --out " + db, &out), 0) << out;
  const Snapshot before = Snap(db);
  EXPECT_EQ(RunCli("report " + db + " -o " + db, &out), 1);
  EXPECT_TRUE(Has(out, "utilsim: error: -o: " + db + ": is the same file as the results database " +
                           db + "; refusing to replace an input"))
      << out;
  EXPECT_EQ(Snap(db), before);
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"r.db"});
  if (Status built = CheckReportBuilt(); !built.ok())
    GTEST_SKIP() << "the rest writes a report: " << built.message();
  // "-": the HTML on standard output, the message on stderr.
  EXPECT_EQ(RunStdout("report " + db + " -o -", &out), 0);
  EXPECT_EQ(out.rfind("<!doctype html>\n<html", 0), 0u) << out.substr(0, 200);
  EXPECT_FALSE(Has(out, "Report written to"));
}

TEST(SafeOutputCli, ConvertWritesToStandardOutputAndNotOverItsTrace) {
  const std::string dir = testutil::TempDir();
  const std::string t = dir + "/t.csv";
  fs::copy_file(testutil::Fixture("cli/jobs.csv"), t);
  std::string out;
  ASSERT_EQ(RunStdout("convert --trace " + t + " --out -", &out), 0) << out;
  EXPECT_EQ(out.rfind("# signal: gpu_util\nid,submit_s,runtime_s,", 0), 0u) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 7) << out;  // signal, header, 5 jobs
  EXPECT_EQ(RunCli("convert --trace " + t + " --out " + t, &out), 1);
  EXPECT_TRUE(Has(out, "--out: " + t + ": is the same file as --trace " + t)) << out;
  EXPECT_EQ(testutil::ReadFile(t), testutil::ReadFile(testutil::Fixture("cli/jobs.csv")));
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"t.csv"});
}

// Starts `utilsim run` on a large built-in workload writing `db`, waits until
// its temporary file appears (the handler only matters while one exists),
// then sends `sig`. Returns the temporary file's name.
std::string KillWhileWriting(const std::string& db, int sig) {
  const std::string bin = testutil::BinaryPath();
  std::vector<std::string> args = {bin,      "run",    "--trace", "builtin:demo",
                                   "--jobs", "200000", "--out",   db};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, bin.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  EXPECT_EQ(rc, 0);
  if (rc != 0) return "";
  const std::string name = ".r.db.utilsim-tmp-" + std::to_string(pid);
  const fs::path tmp_path = fs::path(db).parent_path() / name;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  int status = 0;
  bool seen = false;
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::exists(tmp_path)) {
      seen = true;
      break;
    }
    if (::waitpid(pid, &status, WNOHANG) == pid) break;  // ended before writing
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (!seen) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    ADD_FAILURE() << "the run ended (or took 5 min) before its temporary file " << name
                  << " appeared";
    return "";
  }
  ::kill(pid, sig);
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig)
      << "the run finished before the signal arrived (status " << status << ")";
  return name;
}

TEST(SafeOutputCli, SigtermWhileWritingLeavesNoTemporaryAndKillLeftoversAreRemoved) {
  const std::string dir = testutil::TempDir();
  const std::string db = dir + "/r.db";
  ASSERT_NE(KillWhileWriting(db, SIGTERM), "");
  EXPECT_EQ(Entries(dir), std::vector<std::string>{});
  // kill -9 leaves the temporary file; the next write of the path removes it.
  const std::string left = KillWhileWriting(db, SIGKILL);
  ASSERT_NE(left, "");
  EXPECT_EQ(Entries(dir), std::vector<std::string>{left});
  std::string out;
  ASSERT_EQ(RunCli("run --trace builtin:demo --jobs 50 --out " + db, &out), 0) << out;
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"r.db"});
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
