// Helpers for writers of text traces: round-trippable number formatting, CSV
// field quoting, and files that appear under their name only when complete.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"
#include "utilsim/traces/temp_file.h"

namespace utilsim::traces {

// Decimal integer.
void AppendInt(std::string* out, int64_t v);
// Shortest text that reads back (std::from_chars) to the same value.
void AppendDouble(std::string* out, double v);
void AppendFloat(std::string* out, float v);
// Exact decimal seconds, without trailing zeros: "12", "0.5", "-0.000001".
// ParseSeconds reads it back to the same Micros.
void AppendSeconds(std::string* out, Micros t);
std::string FormatSeconds(Micros t);

// Appends `text` as one field. It is quoted, with quotes doubled, when it
// holds the delimiter, a quote, CR or LF, starts with '#' or has leading or
// trailing blanks, so that CsvReader reads back exactly `text`.
void AppendCsvField(std::string* out, std::string_view text, char delimiter = ',');

// A file written to a temporary file beside `path` (TempFile, temp_file.h:
// `.<name>.utilsim-tmp-<pid>`, removed on SIGINT/SIGTERM) and renamed to
// `path` by Commit() (TempFile::Commit: fsync, rename, fsync of the folder),
// so a failed or interrupted write never leaves a complete-looking file. Without a successful
// Commit() the destructor removes the temporary file. Commit() refuses to replace anything but a
// regular file. Not copyable; one writer at a time per path.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Creates the temporary file. Errors name the path and the system error.
  Status Open();
  // Buffered write; the first error is kept and returned by Commit().
  Status Write(std::string_view data);
  // Flushes and closes the temporary file, reporting any write error, so a
  // caller can finish related work (or check the target again) before
  // Commit(). Optional.
  Status Close();
  // Closes (if still open) and commits the TempFile (temp_file.h: fsync of
  // the file, rename, fsync of the folder). Call at most once.
  Status Commit();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return tmp_; }

 private:
  std::string path_;
  std::string tmp_;
  TempFile temp_;
  std::FILE* f_ = nullptr;
  bool closed_ = false;
  Status error_;
};

// Writes `text` to `path` through an AtomicFile.
Status WriteFileAtomically(const std::string& path, std::string_view text);

}  // namespace utilsim::traces
