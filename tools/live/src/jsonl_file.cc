#include "utilsim/live/jsonl_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace utilsim::live {

Result<std::unique_ptr<JsonlFile>> JsonlFile::Open(const std::string& path,
                                                   const std::string& what) {
  auto refuse = [&](const std::string& why) {
    return Status::Error(StatusCode::kIo, what + ": " + path + ": " + why);
  };
  if (path.empty() || path == "-") return refuse("give a file path");
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode))
      return refuse("is a symbolic link; refusing to write through it (give the target's path)");
    if (!S_ISREG(st.st_mode))
      return refuse(std::string(S_ISFIFO(st.st_mode) ? "is a FIFO" : "is not a regular file") +
                    "; refusing to write to it");
  }
  // O_NOFOLLOW and the check after opening close the race with a swap.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return refuse(std::string("cannot open: ") + std::strerror(errno));
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return refuse("is not a regular file; refusing to write to it");
  }
  std::FILE* f = ::fdopen(fd, "a");
  if (!f) {
    ::close(fd);
    return refuse("cannot open");
  }
  return std::unique_ptr<JsonlFile>(new JsonlFile(f));
}

JsonlFile::~JsonlFile() {
  if (f_) std::fclose(f_);
}

void JsonlFile::Write(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  std::fwrite(line.data(), 1, line.size(), f_);
  std::fputc('\n', f_);
  std::fflush(f_);
  ++lines_;
}

uint64_t JsonlFile::lines() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

}  // namespace utilsim::live
