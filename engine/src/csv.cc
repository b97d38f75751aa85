// CsvReader: buffering, record framing and field splitting. Plain-file and
// in-memory byte sources are in csv_input.cc (gzip: traces/src/csv_input.cc),
// typed accessors in csv_fields.cc.
#include "utilsim/engine/csv.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace utilsim {

namespace {

constexpr size_t kMaxBuffer = size_t{64} << 20;

bool IsBlank(char c, char delimiter) { return (c == ' ' || c == '\t') && c != delimiter; }

// Length of the record starting at `p` (up to, not including, the '\n' that
// ends it outside quotes), or npos when `avail` bytes do not yet show where
// it ends and more input may follow.
size_t ScanQuoted(const char* p, size_t avail, bool eof, char delim) {
  bool in_quotes = false;
  bool field_start = true;
  for (size_t i = 0; i < avail; ++i) {
    char c = p[i];
    if (in_quotes) {
      if (c != '"') continue;
      if (i + 1 == avail && !eof) return std::string_view::npos;
      if (i + 1 < avail && p[i + 1] == '"') {
        ++i;
      } else {
        in_quotes = false;
      }
      continue;
    }
    if (c == '\n') return i;
    if (c == delim) {
      field_start = true;
    } else if (field_start && c == '"') {
      in_quotes = true;
      field_start = false;
    } else if (!IsBlank(c, delim)) {
      field_start = false;
    }
  }
  return eof ? avail : std::string_view::npos;
}

}  // namespace

CsvReader::CsvReader(std::string source, const CsvOptions& options, std::unique_ptr<CsvInput> input)
    : source_(std::move(source)), options_(options), input_(std::move(input)) {
  buf_.resize(std::clamp<size_t>(options_.buffer_size, 4, kMaxBuffer));
  if (options_.whitespace) options_.delimiter = ' ';
  if (!options_.header) {
    columns_ = options_.column_names;
    expected_fields_ = columns_.size();
  }
}

CsvReader::CsvReader(CsvReader&&) noexcept = default;
CsvReader& CsvReader::operator=(CsvReader&&) noexcept = default;
CsvReader::~CsvReader() = default;

Result<CsvReader> CsvReader::FromInput(std::unique_ptr<CsvInput> input, std::string source_name,
                                       const CsvOptions& options) {
  CsvReader reader(std::move(source_name), options, std::move(input));
  if (Status s = reader.ReadHeader(); !s.ok()) return s;
  return reader;
}

Result<CsvReader> CsvReader::OpenPlain(const std::string& path, const CsvOptions& options) {
  auto input = OpenFileCsvInput(path);
  if (!input.ok()) return input.status();
  return FromInput(std::move(input).value(), path, options);
}

Result<CsvReader> CsvReader::FromText(std::string text, const std::string& source_name,
                                      const CsvOptions& options) {
  return FromInput(TextCsvInput(std::move(text)), source_name, options);
}

int CsvReader::Find(std::string_view name) const {
  for (size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i] == name) return static_cast<int>(i);
  return -1;
}

Status CsvReader::Fail(Status s) {
  failed_ = s;
  fields_.clear();
  return s;
}

Result<bool> CsvReader::Fill() {
  if (eof_) return false;
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  if (end_ == buf_.size()) {
    if (buf_.size() >= kMaxBuffer) {
      return Status::Error(source_ + ":" + std::to_string(lines_read_ + 1) +
                           ": line longer than 64 MiB");
    }
    buf_.resize(std::min(buf_.size() * 2, kMaxBuffer));
  }
  int64_t n = input_->Read(buf_.data() + end_, buf_.size() - end_);
  if (n < 0) {
    if (input_->gzip_error) {
      return Status::Error(source_ + ": truncated or corrupt gzip data near line " +
                           std::to_string(lines_read_ + 1) + " (" + input_->error + ")");
    }
    return Status::Error(source_ + ": read error: " + input_->error);
  }
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ += static_cast<size_t>(n);
  return true;
}

Result<bool> CsvReader::NextRecord(size_t* rec_begin, size_t* rec_end) {
  if (at_start_) {
    while (end_ - pos_ < 3 && !eof_) {
      if (auto r = Fill(); !r.ok()) return r;
    }
    if (end_ - pos_ >= 3 && std::memcmp(buf_.data() + pos_, "\xEF\xBB\xBF", 3) == 0) pos_ += 3;
    at_start_ = false;
  }
  const bool quoting = !options_.whitespace;
  size_t scanned = 0;  // bytes after pos_ known to hold no '\n'
  for (;;) {
    const char* base = buf_.data() + pos_;
    size_t avail = end_ - pos_;
    if (avail == 0 && eof_) return false;
    auto* nl = static_cast<const char*>(std::memchr(base + scanned, '\n', avail - scanned));
    size_t len = nl ? static_cast<size_t>(nl - base) : avail;
    if (nl == nullptr && !eof_) {
      scanned = avail;
      if (auto r = Fill(); !r.ok()) return r;
      continue;
    }
    int64_t embedded = 0;
    if (quoting && std::memchr(base, '"', len) != nullptr) {
      len = ScanQuoted(base, avail, eof_, options_.delimiter);
      if (len == std::string_view::npos) {
        scanned = 0;
        if (auto r = Fill(); !r.ok()) return r;
        continue;
      }
      embedded = std::count(base, base + len, '\n');
    }
    *rec_begin = pos_;
    *rec_end = pos_ + len;
    if (*rec_end > *rec_begin && buf_[*rec_end - 1] == '\r') --*rec_end;
    pos_ += std::min(len + 1, avail);
    row_line_ = lines_read_ + 1;
    lines_read_ += 1 + embedded;
    return true;
  }
}

Status CsvReader::Split(size_t begin, size_t end) {
  fields_.clear();
  char* p = buf_.data() + begin;
  char* e = buf_.data() + end;
  const char d = options_.delimiter;
  if (options_.whitespace) {
    for (;;) {
      while (p < e && (*p == ' ' || *p == '\t')) ++p;
      if (p == e) return Status::Ok();
      char* s = p;
      while (p < e && *p != ' ' && *p != '\t') ++p;
      fields_.emplace_back(s, static_cast<size_t>(p - s));
    }
  }
  for (;;) {
    while (p < e && IsBlank(*p, d)) ++p;
    if (p < e && *p == '"') {
      char* out = p;
      char* s = p;
      char* r = p + 1;
      for (;;) {
        if (r >= e)
          return RowError("unterminated quoted field " + std::to_string(fields_.size() + 1));
        if (*r == '"') {
          if (r + 1 < e && r[1] == '"') {
            *out++ = '"';
            r += 2;
            continue;
          }
          ++r;
          break;
        }
        *out++ = *r++;
      }
      fields_.emplace_back(s, static_cast<size_t>(out - s));
      while (r < e && IsBlank(*r, d)) ++r;
      if (r == e) return Status::Ok();
      if (*r != d) {
        return RowError("unexpected text after closing quote in field " +
                        std::to_string(fields_.size()));
      }
      p = r + 1;
      continue;
    }
    // Fields are short: a plain loop finds the delimiter sooner than a
    // memchr call per field.
    char* fe = p;
    while (fe < e && *fe != d) ++fe;
    char* te = fe;
    while (te > p && IsBlank(te[-1], d)) --te;
    fields_.emplace_back(p, static_cast<size_t>(te - p));
    if (fe >= e) return Status::Ok();
    p = fe + 1;
  }
}

Result<bool> CsvReader::Next() {
  if (failed_) return *failed_;
  const std::string& prefix = options_.comment_prefix;
  const bool want_header = options_.header && columns_.empty() && expected_fields_ == 0;
  for (;;) {
    size_t b = 0, e = 0;
    auto r = NextRecord(&b, &e);
    if (!r.ok()) return Fail(r.status());
    if (!r.value()) {
      fields_.clear();
      return false;
    }
    size_t f = b;
    while (f < e && (buf_[f] == ' ' || buf_[f] == '\t')) ++f;
    if (f == e) continue;
    if (!prefix.empty() && e - f >= prefix.size() &&
        std::memcmp(buf_.data() + f, prefix.data(), prefix.size()) == 0) {
      if (want_header) {
        size_t t = f + prefix.size();
        while (t < e && (buf_[t] == ' ' || buf_[t] == '\t')) ++t;
        comments_.push_back({row_line_, std::string(buf_.data() + t, e - t)});
      }
      continue;
    }
    if (Status s = Split(b, e); !s.ok()) return Fail(s);
    if (want_header) return true;
    if (expected_fields_ == 0) expected_fields_ = fields_.size();
    if (fields_.size() != expected_fields_) {
      return Fail(RowError("expected " + std::to_string(expected_fields_) + " fields" +
                           (options_.header ? " (as in the header)" : "") + ", got " +
                           std::to_string(fields_.size())));
    }
    return true;
  }
}

Status CsvReader::ReadHeader() {
  if (!options_.header) return Status::Ok();
  auto r = Next();
  if (!r.ok()) return r.status();
  if (!r.value()) return Status::Error(source_ + ": empty file, expected a header row");
  columns_.assign(fields_.begin(), fields_.end());
  expected_fields_ = columns_.size();
  fields_.clear();
  return Status::Ok();
}

}  // namespace utilsim
