#include "atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace utilsim::results {
namespace fs = std::filesystem;

Status CheckTarget(const std::string& path) {
  std::error_code ec;
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, ec)) return Status::Error(path + ": directory does not exist");
  if (fs::is_directory(path, ec)) return Status::Error(path + ": is a directory");
  return Status::Ok();
}

std::string TempPathFor(const std::string& path) {
  return path + ".tmp-" + std::to_string(::getpid());
}

void RemoveQuietly(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

Status CommitTemp(const std::string& tmp, const std::string& path) {
  auto fail = [&](const char* what, int err) {
    RemoveQuietly(tmp);
    return Status::Error(path + ": " + what + ": " + std::strerror(err));
  };
  int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail("cannot open temporary file", errno);
  if (::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    return fail("cannot flush to disk", err);
  }
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return fail("cannot rename into place", errno);
  return Status::Ok();
}

}  // namespace utilsim::results
