// The gzip-aware byte source behind traces::CsvReader::Open.
#pragma once

#include <memory>
#include <string>

#include "utilsim/engine/csv.h"
#include "utilsim/engine/status.h"

namespace utilsim::traces::internal {

using utilsim::CsvInput;

// Opens `path`, as gzip when it starts with the gzip magic bytes, else as
// plain bytes. Error: "<path>: cannot open: <reason>".
Result<std::unique_ptr<CsvInput>> OpenCsvInput(const std::string& path);

// Opens `path` as traces::CsvReader::Open does, and counts the bytes the
// reader takes from the file after any gzip decompression (the header
// included): *bytes points to the count, valid while the reader lives. A
// reader that reads its file to the end has then counted its whole size,
// without a second pass over the file to count it.
Result<utilsim::CsvReader> OpenCounted(const std::string& path, const int64_t** bytes,
                                       const CsvOptions& options = {});

}  // namespace utilsim::traces::internal
