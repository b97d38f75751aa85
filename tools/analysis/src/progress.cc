#include "utilsim/analysis/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace utilsim {
namespace {

// 1234 -> "1234", 12345 -> "12.3k", 1234567 -> "1.2M".
std::string Count(double v) {
  char buf[32];
  if (v < 10000)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (v < 1e6)
    std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
  else if (v < 1e9)
    std::snprintf(buf, sizeof buf, "%.1fM", v / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.1fG", v / 1e9);
  return buf;
}

std::string Clock(double s) {
  const int64_t t = static_cast<int64_t>(std::llround(std::max(0.0, s)));
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(t / 3600),
                  static_cast<long long>(t / 60 % 60), static_cast<long long>(t % 60));
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(t / 60),
                  static_cast<long long>(t % 60));
  return buf;
}

int TerminalWidth(int fd) {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 80;
}

}  // namespace

std::string FormatProgress(const ProgressTick& t, int width) {
  width = std::max(width, 20);
  const double f = std::clamp(std::isfinite(t.fraction) ? t.fraction : 0.0, 0.0, 1.0);
  char pct[16];
  std::snprintf(pct, sizeof pct, "%5.1f%%", f * 100);
  std::string tail = std::string("  ") + pct;
  if (t.runs > 1)
    tail += "  " + std::to_string(t.runs_done) + "/" + std::to_string(t.runs) + " runs";
  tail += "  " + Count(static_cast<double>(t.events)) + " ev";
  if (t.elapsed_s > 0) tail += "  " + Count(static_cast<double>(t.events) / t.elapsed_s) + " ev/s";
  if (t.final)
    tail += "  done in " + Clock(t.elapsed_s);
  else
    tail += "  ETA " + (f > 0 && t.elapsed_s > 0 ? Clock(t.elapsed_s * (1 - f) / f) : "--:--");
  // The bar takes what is left, 10..40 cells.
  const int room = width - static_cast<int>(t.label.size() + tail.size()) - 3;
  std::string line = t.label;
  if (room >= 10) {
    const int cells = std::min(room, 40);
    const int full = static_cast<int>(f * cells);
    line += " [" + std::string(full, '#') + std::string(cells - full, '.') + "]";
  }
  line += tail;
  if (static_cast<int>(line.size()) > width) line.resize(width);
  return line;
}

ProgressSpan EstimateSpan(const Workload& w, Micros horizon) {
  ProgressSpan s;
  if (w.jobs.empty()) return s;
  s.start = w.jobs.front().submit;
  s.end = s.start;
  for (const Job& j : w.jobs) s.end = std::max(s.end, j.submit + j.runtime);
  if (horizon != kNever) s.end = std::min(s.end, horizon);
  return s;
}

size_t ProgressBoard::AddRuns(size_t n, ProgressSpan span) {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t first = slots_.size();
  for (size_t i = 0; i < n; ++i) {
    Slot& s = slots_.emplace_back();
    s.start_us = span.start.us;
    s.end_us = span.end.us;
    s.now_us.store(span.start.us, std::memory_order_relaxed);
  }
  return first;
}

void ProgressBoard::ExpectRuns(size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  expected_ = std::max(expected_, n);
}

EventObserver ProgressBoard::Observer(size_t slot, EventObserver inner) {
  Slot* s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    s = &slots_.at(slot);
  }
  return [s, inner = std::move(inner)](const EngineEvent& e, RunControl& run) {
    s->events.fetch_add(1, std::memory_order_relaxed);
    s->now_us.store(e.time.us, std::memory_order_relaxed);
    if (inner) inner(e, run);
  };
}

void ProgressBoard::Done(size_t slot) {
  std::lock_guard<std::mutex> lock(mu_);
  slots_.at(slot).done.store(true, std::memory_order_relaxed);
}

ProgressTick ProgressBoard::Snapshot(const std::string& label, double elapsed_s) const {
  ProgressTick t;
  t.label = label;
  t.elapsed_s = elapsed_s;
  std::lock_guard<std::mutex> lock(mu_);
  double sum = 0;
  for (const Slot& s : slots_) {
    t.events += s.events.load(std::memory_order_relaxed);
    if (s.done.load(std::memory_order_relaxed)) {
      ++t.runs_done;
      sum += 1;
      continue;
    }
    const double span = static_cast<double>(s.end_us - s.start_us);
    const double at = static_cast<double>(s.now_us.load(std::memory_order_relaxed) - s.start_us);
    // Capped below 1: the estimated end is a lower bound on the real one.
    sum += span > 0 ? std::clamp(at / span, 0.0, 0.99) : 0.0;
  }
  t.runs = std::max(slots_.size(), expected_);
  t.fraction = t.runs > 0 ? sum / static_cast<double>(t.runs) : 0;
  return t;
}

Result<ProgressMode> ParseProgressMode(const std::string& text) {
  if (text == "auto") return ProgressMode::kAuto;
  if (text == "always") return ProgressMode::kAlways;
  if (text == "never") return ProgressMode::kOff;
  return Status::Error("--progress: expected auto, always or never, got '" + text + "'");
}

std::unique_ptr<ProgressBar> ProgressBar::ForStderr(const std::string& label, ProgressMode mode) {
  if (mode == ProgressMode::kOff) return nullptr;
  if (auto bar = ForTerminal(STDERR_FILENO, label)) return bar;
  if (mode != ProgressMode::kAlways) return nullptr;
  return std::make_unique<ProgressBar>(STDERR_FILENO, label, kPlainPeriodMs, /*plain=*/true);
}

std::unique_ptr<ProgressBar> ProgressBar::ForTerminal(int fd, const std::string& label) {
  if (::isatty(fd) != 1) return nullptr;
  return std::make_unique<ProgressBar>(fd, label);
}

ProgressBar::ProgressBar(int fd, std::string label, int period_ms, bool plain)
    : fd_(fd),
      label_(std::move(label)),
      period_ms_(std::max(period_ms, 1)),
      plain_(plain),
      start_(std::chrono::steady_clock::now()) {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(period_ms_), [this] { return stop_; }))
      Draw(false);
  });
}

ProgressBar::~ProgressBar() { Stop(); }

void ProgressBar::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  Draw(true);
}

// Called with mu_ held.
void ProgressBar::Draw(bool last) {
  std::string out;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (plain_) {
    ProgressTick t = board_.Snapshot(label_, elapsed);
    if (last && t.runs == 0) return;  // nothing ran: nothing to report
    t.final = last;
    out = FormatProgress(t, 100) + "\n";
  } else if (last) {
    if (!drawn_) return;
    out = "\r\033[K";  // erase the bar's line
  } else {
    const int width = ::isatty(fd_) == 1 ? TerminalWidth(fd_) - 1 : 79;
    out = "\r" + FormatProgress(board_.Snapshot(label_, elapsed), width) + "\033[K";
    drawn_ = true;
  }
  size_t off = 0;
  while (off < out.size()) {
    const ssize_t n = ::write(fd_, out.data() + off, out.size() - off);
    if (n <= 0) break;  // a progress line is not worth an error
    off += static_cast<size_t>(n);
  }
}

}  // namespace utilsim
