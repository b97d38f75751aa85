// Small helpers shared by the ITP, Philly, PAI and DLRM readers: column
// lookup by header name, typed range checks that report the exact field
// error text, counted warnings with their location, and input byte counts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"
#include "utilsim/traces/csv.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces::internal {

#define UTILSIM_RETURN_IF_ERROR(expr)   \
  do {                                  \
    if (Status _s = (expr); !_s.ok()) { \
      return _s;                        \
    }                                   \
  } while (0)

// A column a reader looks for by name.
struct ColumnSpec {
  const char* name;
  bool required;
};

// Index of each spec's column in the reader's header (-1 when absent), or
// "<file>:<line>: missing required column '<name>'" for the first required
// column that is absent.
Result<std::vector<int>> FindColumns(const CsvReader& csv, const std::vector<ColumnSpec>& specs);

// True when every name in `required` is in `header` (names trimmed of blanks).
bool HeaderHas(const std::vector<std::string>& header,
               const std::vector<std::string_view>& required);

// Trims spaces and tabs at both ends.
std::string_view TrimBlanks(std::string_view s);

// Bytes of the input after decompression: the file size for plain files, a
// second pass through the gzip stream otherwise. 0 when unreadable.
int64_t InputBytes(const std::string& path);

// File name without folder and without its last extension ("a/b.csv" -> "b";
// "b.csv.gz" -> "b").
std::string FileStem(const std::string& path);

// Adds a warning "<file>:<line>: <detail>" of `kind`.
void WarnAt(Warnings* w, const CsvReader& csv, const std::string& kind, const std::string& detail);

// The value of `text` when it is 1 to 18 ASCII digits and nothing else (no
// sign, no blanks), which never overflows int64_t: the common integer field,
// read without CsvReader::Int's general rules. False for any other text; the
// caller then hands the field to CsvReader::Int, which decides (a sign, more
// digits, overflow, not a number) as before.
inline bool PlainDigits(std::string_view text, int64_t* out) {
  if (text.empty() || text.size() > 18) return false;
  int64_t v = 0;
  for (const char c : text) {
    const unsigned digit = static_cast<unsigned char>(c) - unsigned{'0'};
    if (digit > 9) return false;
    v = v * 10 + digit;
  }
  *out = v;
  return true;
}

// Typed fields of the current row with a range; a bad value is
// csv.FieldError(col, what).
Status IntInAnyForm(const CsvReader& csv, size_t col, int64_t lo, int64_t hi, std::string_view what,
                    int64_t* out);
// IntInAnyForm, with plain digits in range taken inline.
inline Status IntIn(const CsvReader& csv, size_t col, int64_t lo, int64_t hi, std::string_view what,
                    int64_t* out) {
  int64_t v = 0;
  if (PlainDigits(csv.field(col), &v) && v >= lo && v <= hi) {
    *out = v;
    return Status::Ok();
  }
  return IntInAnyForm(csv, col, lo, hi, what, out);
}
Status DoubleIn(const CsvReader& csv, size_t col, double lo, double hi, const std::string& what,
                double* out);
// Seconds >= 0 (or > 0 when `positive`), exact to the microsecond.
Status SecondsAtLeastZero(const CsvReader& csv, size_t col, bool positive, const std::string& what,
                          Micros* out);

// Adds every warning of `from` to `to` (counts and kept examples).
void MergeWarnings(const Warnings& from, Warnings* to);

// "1234567" -> "1,234,567", for notes.
std::string Thousands(int64_t v);
// "YYYY-MM-DD hh:mm:ss UTC" of a UNIX time in seconds.
std::string UtcText(int64_t unix_s);
// Shortest "%.*g" text of v with up to `digits` significant digits.
std::string Num(double v, int digits = 6);

}  // namespace utilsim::traces::internal
