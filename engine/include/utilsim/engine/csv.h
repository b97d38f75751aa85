// Streaming reader for delimited text: CSV, TSV, ", "-separated and
// whitespace-separated (SWF) traces. It is the one CSV tokenizer of utilsim:
// the trace readers (through traces::CsvReader, utilsim/traces/csv.h, which
// adds gzip input), the telemetry readers and the calibration readers of
// utilsim::workloads all read through it, so quoting, line ends, line numbers
// and error messages are the same everywhere.
//
// The reader holds one buffer of input and hands out each row as string_views
// into it, so reading costs no heap allocation per row or field. Views stay
// valid until the next call to Next().
//
// Rules (RFC 4180 plus what real traces need):
//  - A byte source that fails (CsvInput::Read returns -1) is an error, never a
//    silent end of file; traces::CsvReader::Open detects gzip input by its
//    magic bytes, and a truncated or corrupt gzip stream is such an error.
//  - Lines end with LF or CRLF; a UTF-8 byte-order mark at the start is
//    skipped. Blank lines (only spaces/tabs) are skipped.
//  - With a comment prefix, lines whose first non-blank characters are the
//    prefix are skipped; those before the header are kept in
//    leading_comments().
//  - Spaces and tabs around fields are trimmed (unless the tab is the
//    delimiter). A field that starts with '"' is quoted: it may contain the
//    delimiter, newlines and doubled quotes ("" stands for "). A quote inside
//    an unquoted field is an ordinary character.
//  - Every row must have as many fields as the header (or, without a header,
//    as `column_names`, or else as the first row).
//
// Errors are Status values whose message starts with "<file>:<line>: " (or
// "<file>: " for whole-file errors). Field errors read exactly
//   <file>:<line>: field '<name>': expected <what>, got '<text>'
//
// Thread-safety: a CsvReader is a single-threaded cursor; distinct readers are
// independent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"

namespace utilsim {

// A byte stream behind a CsvReader. Read returns the number of bytes read, 0
// at the end, or -1 with `error` set (and `gzip_error` when compressed data
// is at fault, e.g. a stream cut short or a CRC mismatch).
class CsvInput {
 public:
  virtual ~CsvInput() = default;
  virtual int64_t Read(char* dst, size_t n) = 0;
  std::string error;
  bool gzip_error = false;
};

// Opens `path` as plain bytes (no decompression).
// Error: "<path>: cannot open: <reason>".
Result<std::unique_ptr<CsvInput>> OpenFileCsvInput(const std::string& path);
// Reads from an open file, which it closes when destroyed.
std::unique_ptr<CsvInput> FileCsvInput(std::FILE* file);
// Reads from `text`.
std::unique_ptr<CsvInput> TextCsvInput(std::string text);

struct CsvOptions {
  // Field separator. Ignored when `whitespace` is set.
  char delimiter = ',';
  // Fields are separated by runs of spaces and tabs; leading and trailing
  // blanks are ignored and quotes have no meaning (SWF style).
  bool whitespace = false;
  // Lines starting with this (after blanks) are comments. Empty: none.
  std::string comment_prefix;
  // The first row that is not a comment names the columns.
  bool header = true;
  // Without a header: column names for error messages, and the expected
  // number of fields. Empty: names are "column <k>" (1-based) and the first
  // row fixes the count.
  std::vector<std::string> column_names;
  // Initial buffer size in bytes (grows for long rows up to 64 MiB). Only
  // tests and tuning change it.
  size_t buffer_size = size_t{1} << 20;
};

// A comment line seen before the header: its line number and its text after
// the prefix, with leading blanks trimmed.
struct CsvComment {
  int64_t line = 0;
  std::string text;
};

class CsvReader {
 public:
  // Reads from `input` up to and including the header; `source_name` stands
  // for the file name in messages. Errors: empty input when a header is
  // expected, read errors, bad quoting in the header. Duplicate header names
  // are allowed (Find returns the first).
  static Result<CsvReader> FromInput(std::unique_ptr<CsvInput> input, std::string source_name,
                                     const CsvOptions& options = {});
  // FromInput on OpenFileCsvInput(path): the file as plain bytes. Trace
  // files, which may be gzip-compressed, are opened with
  // traces::CsvReader::Open instead.
  static Result<CsvReader> OpenPlain(const std::string& path, const CsvOptions& options = {});
  // FromInput on TextCsvInput(text).
  static Result<CsvReader> FromText(std::string text, const std::string& source_name,
                                    const CsvOptions& options = {});

  CsvReader(CsvReader&&) noexcept;
  CsvReader& operator=(CsvReader&&) noexcept;
  ~CsvReader();

  // Advances to the next data row: true when there is one, false at the end
  // of input. On an error (I/O, gzip, quoting, field count) the reader stays
  // failed and every later call returns the same error.
  Result<bool> Next();

  const std::string& source() const { return source_; }
  // Line (1-based) on which the current row starts; for errors reported by
  // Next(), the line at fault.
  int64_t line() const { return row_line_; }
  // Column names (header names trimmed, or the names from the options).
  const std::vector<std::string>& columns() const { return columns_; }
  // Index of the first column called `name`, or -1.
  int Find(std::string_view name) const;
  const std::vector<CsvComment>& leading_comments() const { return comments_; }

  // Fields of the current row. field(i) is empty for i >= size().
  size_t size() const { return fields_.size(); }
  std::string_view field(size_t i) const { return i < fields_.size() ? fields_[i] : ""; }
  // Name of column i for messages.
  std::string ColumnName(size_t i) const;

  // Typed accessors for field i of the current row. The whole field must
  // parse. Errors use FieldError with "an integer", "a number", "a time in
  // seconds". Non-finite numbers (inf, nan) are errors.
  Result<int64_t> Int(size_t i) const;
  Result<double> Double(size_t i) const;
  Result<float> Float(size_t i) const;
  Result<Micros> Time(size_t i) const;  // see ParseSeconds
  // As above, but an empty field gives nullopt.
  Result<std::optional<int64_t>> OptInt(size_t i) const;
  Result<std::optional<double>> OptDouble(size_t i) const;
  Result<std::optional<Micros>> OptTime(size_t i) const;

  // "<file>:<line>: field '<name>': expected <expected>, got '<text>'" for
  // field i of the current row (text cut at 100 characters).
  Status FieldError(size_t i, std::string_view expected) const;
  // "<file>:<line>: <message>" for the current row.
  Status RowError(std::string_view message) const;

 private:
  CsvReader(std::string source, const CsvOptions& options, std::unique_ptr<CsvInput> input);
  Status ReadHeader();
  // Sets [rec_begin, rec_end) to the next physical record; false at end.
  Result<bool> NextRecord(size_t* rec_begin, size_t* rec_end);
  Result<bool> Fill();
  Status Split(size_t begin, size_t end);
  Status Fail(Status s);

  std::string source_;
  CsvOptions options_;
  std::unique_ptr<CsvInput> input_;
  std::vector<char> buf_;
  size_t pos_ = 0;  // first unconsumed byte in buf_
  size_t end_ = 0;  // end of valid bytes in buf_
  bool eof_ = false;
  bool at_start_ = true;
  int64_t lines_read_ = 0;  // physical lines consumed
  int64_t row_line_ = 0;
  size_t expected_fields_ = 0;
  std::vector<std::string> columns_;
  std::vector<CsvComment> comments_;
  std::vector<std::string_view> fields_;
  std::optional<Status> failed_;
};

// Parses decimal seconds into microseconds. Plain decimals ("12", "-3.5",
// "0.000001") are converted exactly, rounding the 7th fractional digit half
// away from zero; other forms ("1e3") go through FromSeconds. nullopt for
// text that is not a finite number or is beyond kMaxSeconds.
std::optional<Micros> ParseSeconds(std::string_view text);

}  // namespace utilsim
