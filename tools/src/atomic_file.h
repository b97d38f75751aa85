// Private: replacing a file atomically. Write to TempPathFor(path), then
// CommitTemp() flushes it and renames it over `path`; on failure the temporary
// file is removed, so readers see either the old file or the complete new one.
#pragma once

#include <string>

#include "utilsim/engine/status.h"

namespace utilsim::results {

// OK when `path` can be replaced: its parent directory exists and `path` is
// not itself a directory. Errors: "<path>: directory does not exist",
// "<path>: is a directory".
Status CheckTarget(const std::string& path);

// "<path>.tmp-<pid>": unique per process; a stale file of that name (left by
// a crashed process with the same pid) is removed by RemoveQuietly before use.
std::string TempPathFor(const std::string& path);

// Removes a file if it exists; ignores errors.
void RemoveQuietly(const std::string& path);

// fsync()s `tmp`, renames it to `path`. On failure removes `tmp` and returns
// "<path>: <what failed>: <strerror>".
Status CommitTemp(const std::string& tmp, const std::string& path);

}  // namespace utilsim::results
