// Progress of long runs (run, compare, demo, validate, plan, diagnose,
// fgd-experiment): a bar on stderr with simulated-time %, events/s and ETA
// when stderr is a terminal. --progress (ProgressMode) decides: auto (the
// default) draws the bar on a terminal and nothing otherwise; always also
// writes a plain line every 10 s, and one when done, when stderr is not a
// terminal (logs, CI); never prints nothing.
//
// How it hooks in: the engine already calls SimConfig::observer for every
// event it processes (arrival, start, finish, pass, ...). RunPolicies gives
// each simulation an observer that counts events and records the simulated
// time into a slot of a ProgressBoard (two relaxed atomic stores; no lock);
// a ProgressBar thread reads the board a few times a second and redraws one
// line. No engine change; without a bar, no observer is installed and runs
// cost exactly what they did.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "utilsim/engine/engine.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"

namespace utilsim {

enum class ProgressMode { kAuto, kAlways, kOff };  // kOff: --progress never
// "auto", "always" or "never"; the error names --progress and the three.
Result<ProgressMode> ParseProgressMode(const std::string& text);

// What one redraw shows.
struct ProgressTick {
  std::string label;     // e.g. "compare", "plan"
  double fraction = 0;   // 0..1 of the work known so far (see ProgressBoard)
  int64_t events = 0;    // simulation events observed so far, all runs
  double elapsed_s = 0;  // wall-clock seconds since the bar started
  size_t runs_done = 0;  // simulations finished
  size_t runs = 0;       // simulations known (registered or expected)
  bool final = false;    // the last line: "done in M:SS" instead of the ETA
};

// One line, no line end, at most `width` columns (>= 20), e.g.
//   "plan [########............]  34.0%  2/6 runs  1.2M ev  410k ev/s  ETA 0:42"
// Rate = events / elapsed; ETA = elapsed x (1 - f) / f, "--:--" while f or
// elapsed is 0; h:mm:ss from an hour up; a final tick ends in "done in
// M:SS" instead. Deterministic for a given tick.
std::string FormatProgress(const ProgressTick& t, int width = 80);

// The first simulated instant of a workload and an estimate of its last: the
// latest submit + recorded runtime (a lower bound on the makespan; queueing
// makes runs longer, so a run's fraction is capped below 1 until it ends),
// capped at `horizon`.
struct ProgressSpan {
  Micros start{0}, end{0};
};
ProgressSpan EstimateSpan(const Workload& w, Micros horizon);

// Where simulations on any threads report; read by a ProgressBar. Thread-safe.
class ProgressBoard {
 public:
  // Registers n runs over `span`; returns the index of the first slot.
  size_t AddRuns(size_t n, ProgressSpan span);
  // The bar's denominator is at least n runs (plan: the runs of the current
  // round, announced before they start).
  void ExpectRuns(size_t n);
  // An observer for SimConfig::observer that reports to `slot` and then calls
  // `inner` (may be empty). The board must outlive the simulation.
  EventObserver Observer(size_t slot, EventObserver inner);
  // Marks `slot` finished (fraction 1).
  void Done(size_t slot);
  // The tick now; fraction = sum of run fractions / max(registered, expected).
  ProgressTick Snapshot(const std::string& label, double elapsed_s) const;

 private:
  struct alignas(64) Slot {
    std::atomic<int64_t> events{0};
    std::atomic<int64_t> now_us{0};
    std::atomic<bool> done{false};
    int64_t start_us = 0, end_us = 0;
  };
  mutable std::mutex mu_;   // guards slots_' growth and expected_
  std::deque<Slot> slots_;  // deque: slots never move once added
  size_t expected_ = 0;
};

// Draws a ProgressBoard on a file descriptor every `period_ms` from its own
// thread. A bar overwrites one line ("\r"); Stop() (or the destructor)
// erases the line so that what follows prints on a clean line. Plain lines
// (for files and pipes) are written one after another, each ended by "\n",
// and Stop() writes a final one ("done in ...") when any run was registered.
class ProgressBar {
 public:
  static constexpr int kPlainPeriodMs = 10'000;
  // By `mode` (see the top of this file): a bar on stderr when it is a
  // terminal (auto, always), plain lines every kPlainPeriodMs when it is not
  // (always), else nullptr (print nothing).
  static std::unique_ptr<ProgressBar> ForStderr(const std::string& label,
                                                ProgressMode mode = ProgressMode::kAuto);
  // A bar on `fd` when isatty(fd), else nullptr.
  static std::unique_ptr<ProgressBar> ForTerminal(int fd, const std::string& label);
  // Always draws on `fd` (tests; ForTerminal decides whether to); `plain`:
  // lines instead of a bar.
  ProgressBar(int fd, std::string label, int period_ms = 250, bool plain = false);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  ProgressBoard* board() { return &board_; }
  // Stops the thread and erases the line. Idempotent.
  void Stop();

 private:
  void Draw(bool last);
  int fd_;
  std::string label_;
  int period_ms_;
  bool plain_;
  ProgressBoard board_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool drawn_ = false;
  std::thread thread_;
};

}  // namespace utilsim
