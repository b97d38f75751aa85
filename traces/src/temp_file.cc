#include "utilsim/traces/temp_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <system_error>

namespace utilsim::traces {
namespace {

namespace fs = std::filesystem;

constexpr char kTag[] = ".utilsim-tmp-";

// fsync()s the folder holding `path`, so that a rename into it is on disk.
Status SyncFolderOf(const std::string& path) {
  std::string dir = fs::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int err = fd < 0 ? errno : 0;
  if (fd >= 0) {
    if (::fsync(fd) != 0) err = errno;
    ::close(fd);
  }
  if (err == 0 || err == EINVAL) return Status::Ok();
  return Status::Error(path + ": cannot flush the directory " + dir +
                       " to disk: " + std::strerror(err));
}

// The registry the signal handler reads: a fixed array of C strings, so the
// handler needs no allocation or lock. A slot's path is written while `used`
// is false and published by setting it (release); the handler reads only
// slots it sees used (acquire). More live temporaries than slots at once go
// unregistered (they are then left to RemoveStaleTemps).
constexpr int kSlots = 64;
constexpr size_t kPathMax = 4096;
struct Slot {
  std::atomic<bool> used{false};
  char path[kPathMax];
};
static_assert(std::atomic<bool>::is_always_lock_free, "the handler reads `used`");
Slot g_slots[kSlots];
std::mutex g_mu;  // serialises Register; the handler never takes it
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Async-signal-safe only: unlink, sigaction, raise. The signal stays blocked
// while the handler runs, so raise() delivers it, with the default action
// (termination), as soon as the handler returns.
void RemoveTempsAndDie(int sig) {
  for (Slot& s : g_slots)
    if (s.used.load(std::memory_order_acquire)) ::unlink(s.path);
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);
}

// Called with g_mu held, at every registration: only signals at their
// default disposition now get the handler (one a program ignores or handles
// itself is left alone). Looked at each time, not once per process: a
// program may handle a signal for a while and then give it back to the
// default (`utilsim serve` does, on its way out), and a temporary file made
// after that is removed on the signal like any other.
void InstallHandlers() {
  for (int sig : kSignals) {
    struct sigaction old;
    if (::sigaction(sig, nullptr, &old) != 0) continue;
    if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = RemoveTempsAndDie;
    sigfillset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

int Register(const std::string& path) {
  if (path.size() >= kPathMax) return -1;
  std::lock_guard<std::mutex> lock(g_mu);
  InstallHandlers();
  for (int k = 0; k < kSlots; ++k) {
    Slot& s = g_slots[k];
    if (s.used.load(std::memory_order_relaxed)) continue;
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    s.used.store(true, std::memory_order_release);
    return k;
  }
  return -1;
}

void Unregister(int* slot) {
  if (*slot < 0) return;
  std::lock_guard<std::mutex> lock(g_mu);
  g_slots[*slot].used.store(false, std::memory_order_release);
  *slot = -1;
}

}  // namespace

std::string TempPathFor(const std::string& path) {
  const fs::path p(path);
  const std::string name = "." + p.filename().string() + kTag + std::to_string(::getpid());
  return p.has_parent_path() ? (p.parent_path() / name).string() : name;
}

int RemoveStaleTemps(const std::string& path) {
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const std::string prefix = "." + p.filename().string() + kTag;
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const char* first = name.data() + prefix.size();
    const char* last = name.data() + name.size();
    long long pid = 0;
    const auto r = std::from_chars(first, last, pid);
    if (r.ec != std::errc() || r.ptr != last || pid <= 0 || pid > INT_MAX) continue;
    if (pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours
    if (::unlink(it->path().c_str()) == 0) ++removed;
  }
  return removed;
}

std::string NonRegularKind(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return "";
  if (S_ISREG(st.st_mode)) return "";
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  return "a special file";
}

Status CheckReplaceable(const std::string& path, const std::string& prefix) {
  const std::string kind = NonRegularKind(path);
  if (kind.empty()) return Status::Ok();
  return Status::Error(prefix + path + ": is " + kind +
                       " (not a regular file); refusing to replace it");
}

TempFile::~TempFile() { Discard(); }

Status TempFile::Create(const std::string& target) {
  target_ = target;
  tmp_ = TempPathFor(target);
  RemoveStaleTemps(target);
  slot_ = Register(tmp_);  // before the file exists, so it is never unregistered while there
  constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::open(tmp_.c_str(), kFlags, 0666);
  if (fd < 0 && errno == EEXIST) {
    // Our own name: left by an earlier process with this pid, or an earlier
    // failed write of this one.
    ::unlink(tmp_.c_str());
    fd = ::open(tmp_.c_str(), kFlags, 0666);
  }
  if (fd < 0) {
    const int err = errno;
    Unregister(&slot_);
    return Status::Error(target + ": cannot create the temporary file " + tmp_ + ": " +
                         std::strerror(err));
  }
  fd_ = fd;
  live_ = true;
  return Status::Ok();
}

int TempFile::TakeFd() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void TempFile::CloseFd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status TempFile::Commit() {
  if (!live_) return Status::Error(target_ + ": no temporary file to rename into place");
  auto fail = [&](const std::string& what, int err) {
    Discard();
    return Status::Error(target_ + ": " + what + ": " + std::strerror(err));
  };
  // The file's data first: the rename must not publish unsynced data.
  const int fd = fd_ >= 0 ? fd_ : ::open(tmp_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return fail("cannot open the temporary file", errno);
  if (::fsync(fd) != 0) {
    const int err = errno;
    if (fd != fd_) ::close(fd);
    return fail("cannot flush to disk", err);
  }
  if (fd != fd_) ::close(fd);
  CloseFd();
  if (Status s = CheckReplaceable(target_); !s.ok()) {
    Discard();
    return s;
  }
  if (std::rename(tmp_.c_str(), target_.c_str()) != 0)
    return fail("cannot rename into place", errno);
  live_ = false;
  Unregister(&slot_);
  return SyncFolderOf(target_);
}

void TempFile::Discard() {
  CloseFd();
  if (live_) ::unlink(tmp_.c_str());
  live_ = false;
  Unregister(&slot_);
}

}  // namespace utilsim::traces
