// The progress bar: formatting, the board's arithmetic, the runner hook, and
// that nothing is printed when stderr is not a terminal.
#include "utilsim/analysis/progress.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "testutil/testutil.h"
#include "utilsim/analysis/runner.h"
#include "utilsim/io/inputs.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

TEST(ProgressFormat, FakeTick) {
  ProgressTick t;
  t.label = "compare";
  t.fraction = 0.25;
  t.events = 1'200'000;
  t.elapsed_s = 10;
  t.runs_done = 1;
  t.runs = 3;
  // 120k ev/s; ETA = 10 x 0.75 / 0.25 = 30 s; bar 40 cells, 10 full.
  EXPECT_EQ(FormatProgress(t, 120),
            "compare [##########..............................]   25.0%  1/3 runs  1.2M ev  "
            "120.0k ev/s  ETA 0:30");
  // Narrow terminals drop the bar, then cut the line.
  EXPECT_EQ(FormatProgress(t, 60), "compare   25.0%  1/3 runs  1.2M ev  120.0k ev/s  ETA 0:30");
  EXPECT_EQ(FormatProgress(t, 30).size(), 30u);
  // No ETA before any progress; hours past an hour; one run shows no run count.
  t.fraction = 0;
  t.runs = 1;
  EXPECT_EQ(FormatProgress(t, 60), "compare    0.0%  1.2M ev  120.0k ev/s  ETA --:--");
  t.fraction = 0.5;
  t.elapsed_s = 4000;
  t.events = 500;
  // 13 cells are left for the bar at width 60 without the run count.
  EXPECT_EQ(FormatProgress(t, 60), "compare [######.......]   50.0%  500 ev  0 ev/s  ETA 1:06:40");
}

TEST(ProgressBoard, FractionsEventsAndDone) {
  ProgressBoard b;
  const size_t first = b.AddRuns(2, {Micros(0), Seconds(100)});
  EXPECT_EQ(first, 0u);
  b.ExpectRuns(4);  // two more announced
  auto o0 = b.Observer(0, nullptr);
  int inner_calls = 0;
  auto o1 = b.Observer(1, [&](const EngineEvent&, RunControl&) { ++inner_calls; });
  // The board reads only the event's time; the control is not touched.
  struct : RunControl {
    void RequestStop() override {}
    Micros Now() const override { return Micros(0); }
  } run;
  o0(EngineEvent{Seconds(50), EventKind::kArrival, 0}, run);
  o0(EngineEvent{Seconds(50), EventKind::kStart, 0}, run);
  o1(EngineEvent{Seconds(10), EventKind::kArrival, 1}, run);
  ProgressTick t = b.Snapshot("x", 2.0);
  EXPECT_EQ(t.events, 3);
  EXPECT_EQ(inner_calls, 1);
  EXPECT_EQ(t.runs, 4u);
  EXPECT_EQ(t.runs_done, 0u);
  EXPECT_DOUBLE_EQ(t.fraction, (0.5 + 0.1) / 4);
  // Past the estimated end a running run stays below 1; done counts 1.
  o1(EngineEvent{Seconds(500), EventKind::kFinish, 1}, run);
  b.Done(0);
  t = b.Snapshot("x", 2.0);
  EXPECT_EQ(t.runs_done, 1u);
  EXPECT_DOUBLE_EQ(t.fraction, (1 + 0.99) / 4);
}

TEST(ProgressBar, NoBarWhenNotATerminal) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  EXPECT_EQ(ProgressBar::ForTerminal(fds[1], "run"), nullptr);
  const int null_fd = ::open("/dev/null", O_WRONLY);
  EXPECT_EQ(ProgressBar::ForTerminal(null_fd, "run"), nullptr);
  ::close(null_fd);
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST(ProgressBar, DrawsAndErasesItsLine) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    ProgressBar bar(fds[1], "plan", 5);
    bar.board()->AddRuns(1, {Micros(0), Seconds(10)});
    ::usleep(60'000);
    bar.Stop();
  }
  ::close(fds[1]);
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, n);
  ::close(fds[0]);
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got.rfind("\rplan ", 0), 0u) << got;
  EXPECT_NE(got.find("0.0%"), std::string::npos) << got;
  EXPECT_EQ(got.substr(got.size() - 4), "\r\033[K");  // the line is erased at the end
}

TEST(ProgressRunner, RunsReportToTheBoard) {
  InputOptions io;
  io.trace = "builtin:demo";
  io.jobs = 300;
  auto in = LoadInputs(io);
  ASSERT_TRUE(in.ok()) << in.status().message();
  ProgressBoard board;
  RunSpec s;
  s.progress = &board;
  int64_t seen = 0;
  s.observer = [&](const EngineEvent&, RunControl&) { ++seen; };
  s.threads = 1;
  auto r = RunPolicies(in.value(), BuiltinPolicies(), {"first-fit", "best-fit"}, s);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ProgressTick t = board.Snapshot("run", 1.0);
  EXPECT_EQ(t.runs, 2u);
  EXPECT_EQ(t.runs_done, 2u);
  EXPECT_DOUBLE_EQ(t.fraction, 1.0);
  EXPECT_EQ(t.events, seen);
  // Every job arrives and starts at least once in each run.
  EXPECT_GE(t.events, 2 * 2 * 300);
  // The hooks change nothing in the results.
  auto plain = RunPolicies(in.value(), BuiltinPolicies(), {"first-fit", "best-fit"}, RunSpec{});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain.value()[1].summary.wait_p95_s, r.value()[1].summary.wait_p95_s);
  EXPECT_EQ(plain.value()[1].summary.events, r.value()[1].summary.events);
}

TEST(ProgressCli, NothingExtraWhenStderrIsNotATerminal) {
  // RunCli captures stdout and stderr through a pipe: not a terminal.
  std::string out;
  ASSERT_EQ(testutil::RunCli("run --trace builtin:demo --jobs 200 --policy best-fit", &out), 0)
      << out;
  EXPECT_EQ(out.find('\r'), std::string::npos);
  EXPECT_EQ(out.find("ev/s"), std::string::npos);
  EXPECT_EQ(out.rfind("utilsim run: best-fit\n", 0), 0u) << out;
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim

namespace utilsim {
namespace UTILSIM_UNITY_ID {

TEST(ProgressFormat, FinalTickSaysDone) {
  ProgressTick t;
  t.label = "run";
  t.fraction = 1;
  t.events = 500;
  t.elapsed_s = 65;
  t.runs = t.runs_done = 1;
  t.final = true;
  EXPECT_EQ(FormatProgress(t, 60), "run [################]  100.0%  500 ev  8 ev/s  done in 1:05");
}

TEST(ProgressMode, Parses) {
  EXPECT_EQ(ParseProgressMode("auto").value(), ProgressMode::kAuto);
  EXPECT_EQ(ParseProgressMode("always").value(), ProgressMode::kAlways);
  EXPECT_EQ(ParseProgressMode("never").value(), ProgressMode::kOff);
  EXPECT_EQ(ParseProgressMode("yes").status().message(),
            "--progress: expected auto, always or never, got 'yes'");
}

TEST(ProgressBar, PlainLinesForLogs) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    ProgressBar bar(fds[1], "compare", 5, /*plain=*/true);
    const size_t slot = bar.board()->AddRuns(1, {Micros(0), Seconds(10)});
    ::usleep(40'000);
    bar.board()->Done(slot);
    bar.Stop();
  }
  ::close(fds[1]);
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, n);
  ::close(fds[0]);
  EXPECT_EQ(got.find('\r'), std::string::npos) << got;
  EXPECT_EQ(got.find('\033'), std::string::npos) << got;
  EXPECT_EQ(got.rfind("compare ", 0), 0u) << got;
  EXPECT_GE(std::count(got.begin(), got.end(), '\n'), 2) << got;  // periodic + final
  const std::string last = got.substr(got.rfind('\n', got.size() - 2) + 1);
  EXPECT_NE(last.find("100.0%"), std::string::npos) << last;
  EXPECT_NE(last.find("done in 0:00"), std::string::npos) << last;
}

TEST(ProgressCli, AlwaysWritesPlainLinesNeverNothing) {
  // RunCli's stderr is a pipe: auto prints nothing (above), always a plain
  // line (the last one at least), never nothing.
  std::string out;
  ASSERT_EQ(testutil::RunCli("run --trace builtin:demo --jobs 200 --progress always", &out), 0)
      << out;
  EXPECT_EQ(out.find('\r'), std::string::npos) << out;
  EXPECT_NE(out.find("run [########################################]  100.0%"), std::string::npos)
      << out;
  EXPECT_NE(out.find("done in "), std::string::npos) << out;
  ASSERT_EQ(testutil::RunCli("compare --jobs 200 --policies best-fit,fgd --progress always", &out),
            0)
      << out;
  EXPECT_NE(out.find("2/2 runs"), std::string::npos) << out;
  ASSERT_EQ(testutil::RunCli("fgd-experiment --jobs 200 --policies best-fit --seeds 2 "
                             "--progress always",
                             &out),
            0)
      << out;
  EXPECT_NE(out.find("fgd-experiment [#"), std::string::npos) << out;
  EXPECT_NE(out.find("2/2 runs"), std::string::npos) << out;
  ASSERT_EQ(testutil::RunCli("plan --jobs 200 --target 'p95-wait<=1h' --progress always", &out), 0)
      << out;
  EXPECT_NE(out.find("plan [#"), std::string::npos) << out;
  ASSERT_EQ(testutil::RunCli("validate --trace " + testutil::Fixture("aaic/q1.csv") +
                                 " --nodes-list 40,50 --progress always",
                             &out),
            0)
      << out;
  EXPECT_NE(out.find("validate [#"), std::string::npos) << out;
  EXPECT_NE(out.find("2/2 runs"), std::string::npos) << out;
  for (const char* cmd : {"run --jobs 200", "compare --jobs 200 --policies best-fit,fgd",
                          "plan --jobs 200 --target 'p95-wait<=1h'"}) {
    ASSERT_EQ(testutil::RunCli(std::string(cmd) + " --progress never", &out), 0) << out;
    EXPECT_EQ(out.find("ev/s"), std::string::npos) << cmd << "\n" << out;
    EXPECT_EQ(out.find("done in"), std::string::npos) << cmd << "\n" << out;
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
