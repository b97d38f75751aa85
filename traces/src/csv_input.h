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

}  // namespace utilsim::traces::internal
