// The CSV reader of the trace readers: utilsim::CsvReader (the one CSV
// tokenizer, utilsim/engine/csv.h: rules, errors, thread-safety) opening files
// that may be gzip-compressed.
#pragma once

#include <string>

#include "utilsim/engine/csv.h"
#include "utilsim/engine/status.h"

namespace utilsim::traces {

using utilsim::CsvComment;
using utilsim::CsvOptions;
using utilsim::ParseSeconds;

class CsvReader : public utilsim::CsvReader {
 public:
  explicit CsvReader(utilsim::CsvReader&& reader) : utilsim::CsvReader(std::move(reader)) {}

  // Opens `path`, as gzip when it starts with the gzip magic bytes (not by
  // its name), else as plain bytes, and reads up to and including the
  // header. Errors as utilsim::CsvReader::FromInput's, plus "<path>: cannot
  // open: <reason>" and "<path>: truncated or corrupt gzip data near line
  // <n> (<zlib's message>)".
  static Result<CsvReader> Open(const std::string& path, const CsvOptions& options = {});
  // utilsim::CsvReader::FromText, as a traces::CsvReader.
  static Result<CsvReader> FromText(std::string text, const std::string& source_name,
                                    const CsvOptions& options = {});
};

}  // namespace utilsim::traces
