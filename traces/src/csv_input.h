// Byte sources behind CsvReader: plain files, gzip files, memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "utilsim/engine/status.h"

namespace utilsim::traces::internal {

// A byte stream. Read returns the number of bytes read, 0 at the end, or -1
// with `error` set (and `gzip_error` when the compressed data is at fault,
// e.g. a stream cut short or a CRC mismatch).
class CsvInput {
 public:
  virtual ~CsvInput() = default;
  virtual int64_t Read(char* dst, size_t n) = 0;
  std::string error;
  bool gzip_error = false;
};

// Opens `path`, as gzip when it starts with the gzip magic bytes, else as
// plain bytes. Error: "<path>: cannot open: <reason>".
Result<std::unique_ptr<CsvInput>> OpenCsvInput(const std::string& path);
// Reads from `text`.
std::unique_ptr<CsvInput> TextCsvInput(std::string text);

}  // namespace utilsim::traces::internal
