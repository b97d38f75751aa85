// An append-only JSON-lines file for the live modes' logs (the Kubernetes
// shadow log, the Slurm advice and apply logs): whole lines written under a
// mutex and flushed, so a killed process leaves complete lines (a reader
// skips a last partial line). Opening refuses "-", a symbolic link, a FIFO,
// a device or a folder: the file is opened without following links and
// checked again once open, so nothing is written through a swapped link.
// Thread-safe.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "utilsim/engine/status.h"

namespace utilsim::live {

class JsonlFile {
 public:
  // Opens `path` for appending (created when missing). `what` names the
  // file in errors ("shadow log: <path>: is a FIFO; ...").
  static Result<std::unique_ptr<JsonlFile>> Open(const std::string& path, const std::string& what);
  ~JsonlFile();
  JsonlFile(const JsonlFile&) = delete;
  JsonlFile& operator=(const JsonlFile&) = delete;

  // Appends `line` and a newline, then flushes.
  void Write(const std::string& line);
  uint64_t lines() const;

 private:
  explicit JsonlFile(std::FILE* f) : f_(f) {}
  mutable std::mutex mu_;
  std::FILE* f_;
  uint64_t lines_ = 0;
};

}  // namespace utilsim::live
