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

// Bytes of `path` after any gzip decompression as far as can be told without
// decompressing, for sizing buffers: a plain file's size, or a gzip file's
// ISIZE trailer (the size modulo 2^32 of its last member: short for files of
// several members or of 4 GiB and more), at most 32 times the compressed
// size (a damaged trailer must not size a huge buffer; CSV text compresses
// about 5-10 times). 0 when unreadable. A hint only: never a count to rely
// on.
int64_t PlainSizeHint(const std::string& path);

// Opens `path` as traces::CsvReader::Open does, and counts the bytes the
// reader takes from the file after any gzip decompression (the header
// included): *bytes points to the count, valid while the reader lives. A
// reader that reads its file to the end has then counted its whole size,
// without a second pass over the file to count it.
Result<utilsim::CsvReader> OpenCounted(const std::string& path, const int64_t** bytes,
                                       const CsvOptions& options = {});

}  // namespace utilsim::traces::internal
