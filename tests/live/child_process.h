// A child process for the live-mode tests (utilsim exporter, Prometheus):
// started in its own process group with PR_SET_PDEATHSIG, so neither it nor
// anything it starts outlives the test, even when the test fails or
// crashes. Its standard output is a pipe read line by line; its standard
// error goes to a log file (shown by the tests on failure). The destructor
// sends SIGTERM to the group, waits up to 3 s, then SIGKILLs it.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace utilsim::testutil {

class ChildProcess {
 public:
  // argv[0] is a path (no PATH search). Null and *error set on failure.
  static std::unique_ptr<ChildProcess> Start(const std::vector<std::string>& argv,
                                             const std::string& log_path, std::string* error);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // The next line of standard output (without '\n') within timeout_ms;
  // false at end of output or on timeout.
  bool ReadLine(std::string* line, int timeout_ms);
  // Sends `sig` to the child (not the group) and waits up to timeout_ms for
  // it to exit. Returns its wait status, or -1 on timeout.
  int Signal(int sig, int timeout_ms);
  // True (and *wait_status) once the child has exited.
  bool Exited(int* wait_status);
  std::string Log() const;  // the log file's contents
  pid_t pid() const { return pid_; }

 private:
  ChildProcess() = default;
  void KillGroup();
  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string buffered_, log_path_;
  bool reaped_ = false;
  int status_ = 0;
};

// A TCP port on 127.0.0.1 free at the time of the call (bound to 0, read,
// closed): a small race with other processes, fine for tests.
int FreeLocalPort();

}  // namespace utilsim::testutil
