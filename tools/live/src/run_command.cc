#include "utilsim/live/run_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;

namespace utilsim::live::internal {
namespace {

using Clock = std::chrono::steady_clock;

void CloseFd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

// Waits for pid; past `deadline` kills the group (TERM, then KILL 2 s on).
int Reap(pid_t pid, Clock::time_point deadline, bool* timed_out) {
  int status = 0;
  bool termed = false;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return -1;
    const auto now = Clock::now();
    if (now >= deadline && !termed) {
      *timed_out = true;
      kill(-pid, SIGTERM);
      termed = true;
      deadline = now + std::chrono::seconds(2);
    } else if (now >= deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      return status;
    }
    usleep(2000);
  }
}

}  // namespace

Result<CommandResult> RunCommand(const std::vector<std::string>& argv, int timeout_ms,
                                 size_t max_bytes) {
  if (argv.empty()) return Status::Error(StatusCode::kInvalidArgument, "no command");
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    CloseFd(&out_pipe[0]);
    CloseFd(&out_pipe[1]);
    return Status::Error(StatusCode::kRuntime, std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  CloseFd(&out_pipe[1]);
  CloseFd(&err_pipe[1]);
  if (rc != 0) {
    CloseFd(&out_pipe[0]);
    CloseFd(&err_pipe[0]);
    return Status::Error(StatusCode::kNotFound, "cannot run " + argv[0] + ": " + std::strerror(rc));
  }
  CommandResult res;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  bool too_big = false;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&res.out, &res.err};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    const int n = poll(fds, 2, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, static_cast<size_t>(got));
        if (sinks[i]->size() > max_bytes) too_big = true;
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        CloseFd(&fds[i].fd);
        --open_fds;
      }
    }
    if (too_big) break;
  }
  if (too_big || open_fds > 0) kill(-pid, SIGTERM);
  CloseFd(&fds[0].fd);
  CloseFd(&fds[1].fd);
  const int status = Reap(pid, too_big ? Clock::now() : deadline, &res.timed_out);
  if (too_big)
    return Status::Error(StatusCode::kRuntime,
                         argv[0] + " printed more than " + std::to_string(max_bytes) + " bytes");
  if (open_fds > 0) res.timed_out = true;
  res.exit_code = (!res.timed_out && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
  return res;
}

}  // namespace utilsim::live::internal
