// ReadSacct and LooksLikeSacct (utilsim/traces/sacct.h), and the input they
// read through. The text parser is sacct_text.cc, the JSON parser
// sacct_json.cc, the per-record rules sacct_jobs.cc.
#include "utilsim/traces/sacct.h"

#include <cctype>

#include "csv_input.h"
#include "sacct_internal.h"

namespace utilsim::traces {

namespace internal {

namespace {
constexpr size_t kChunk = size_t{1} << 16;
constexpr size_t kMaxLine = size_t{64} << 20;
}  // namespace

Result<SacctInput> SacctInput::Open(const std::string& path) {
  auto in = OpenCsvInput(path);
  if (!in.ok()) return in.status();
  SacctInput s;
  s.path_ = path;
  s.in_ = std::move(in).value();
  return s;
}

Result<bool> SacctInput::Fill() {
  if (eof_) return false;
  if (pos_ > 0) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  const size_t old = buf_.size();
  buf_.resize(old + kChunk);
  const int64_t n = in_->Read(buf_.data() + old, kChunk);
  if (n < 0) {
    buf_.resize(old);
    return Status::Error(StatusCode::kIo,
                         path_ + (in_->gzip_error ? ": truncated or corrupt gzip data (" : ": ") +
                             in_->error + (in_->gzip_error ? ")" : ""));
  }
  buf_.resize(old + static_cast<size_t>(n));
  if (n == 0) eof_ = true;
  if (!started_ && buf_.size() >= 3) {
    started_ = true;
    if (buf_.compare(0, 3, "\xEF\xBB\xBF") == 0) {
      pos_ = 3;
      consumed_ += 3;
    }
  } else if (eof_) {
    started_ = true;
  }
  return n > 0;
}

Result<char> SacctInput::FirstByte() {
  size_t i = 0;  // offset from pos_ (Fill moves pos_ and the bytes together)
  for (;;) {
    if (!started_ || pos_ + i >= buf_.size()) {
      auto more = Fill();
      if (!more.ok()) return more.status();
      if (!more.value() && pos_ + i >= buf_.size()) return '\0';
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(buf_[pos_ + i]))) return buf_[pos_ + i];
    ++i;
  }
}

Result<bool> SacctInput::NextLine(std::string_view* line) {
  size_t scanned = pos_;
  for (;;) {
    const size_t nl = buf_.find('\n', scanned);
    if (nl != std::string::npos || (eof_ && pos_ < buf_.size())) {
      const size_t end = nl == std::string::npos ? buf_.size() : nl;
      size_t stop = end;
      if (stop > pos_ && buf_[stop - 1] == '\r') --stop;
      *line = std::string_view(buf_).substr(pos_, stop - pos_);
      consumed_ += static_cast<int64_t>(end - pos_) + (nl == std::string::npos ? 0 : 1);
      pos_ = nl == std::string::npos ? buf_.size() : nl + 1;
      ++line_;
      return true;
    }
    if (eof_) return false;
    if (buf_.size() - pos_ > kMaxLine)
      return Status::Error(path_ + ":" + std::to_string(line_ + 1) + ": line longer than 64 MiB");
    scanned = buf_.size() - pos_;
    auto more = Fill();
    if (!more.ok()) return more.status();
    scanned += pos_;
  }
}

Result<std::string> SacctInput::Peek(size_t n) {
  while (buf_.size() - pos_ < n) {
    auto more = Fill();
    if (!more.ok()) return more.status();
    if (!more.value()) break;
  }
  return buf_.substr(pos_, n);
}

Result<std::string> SacctInput::Rest() {
  for (;;) {
    auto more = Fill();
    if (!more.ok()) return more.status();
    if (!more.value()) break;
  }
  std::string rest = buf_.substr(pos_);
  consumed_ += static_cast<int64_t>(rest.size());
  buf_.clear();
  pos_ = 0;
  return rest;
}

std::string BaseState(std::string_view text) {
  const size_t blank = text.find(' ');
  std::string s(text.substr(0, blank));
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace internal

bool LooksLikeSacct(const std::string& path) {
  auto in = internal::SacctInput::Open(path);
  if (!in.ok()) return false;
  auto first = in.value().FirstByte();
  if (!first.ok()) return false;
  if (first.value() == '{') {
    auto head = in.value().Peek(65536);  // bytes, not lines: JSON may be one line
    return head.ok() && head.value().find("\"jobs\"") != std::string::npos &&
           head.value().find("\"job_id\"") != std::string::npos;
  }
  std::string_view line;
  for (;;) {  // the first line that is not a '#' comment (sacct.h)
    auto more = in.value().NextLine(&line);
    if (!more.ok() || !more.value()) return false;
    const size_t b = line.find_first_not_of(" \t");
    if (b != std::string_view::npos && line[b] != '#') break;
  }
  if (line.rfind("JobID|", 0) == 0) return true;
  auto has = [&](std::string_view name) {
    const size_t at = line.find(name);
    if (at == std::string_view::npos) return false;
    const size_t end = at + name.size();
    return (at == 0 || line[at - 1] == '|') && (end == line.size() || line[end] == '|');
  };
  return has("JobID") && has("State");
}

Result<TraceData> ReadSacct(const std::vector<std::string>& paths, const SacctOptions& opt) {
  if (paths.empty()) return Status::Error("ReadSacct: no input files");
  TraceData out;
  internal::SacctBuilder builder(opt, &out);
  for (const std::string& path : paths) {
    auto in = internal::SacctInput::Open(path);
    if (!in.ok()) return in.status();
    auto first = in.value().FirstByte();
    if (!first.ok()) return first.status();
    if (first.value() == '\0')
      return Status::Error(StatusCode::kInvalidArgument,
                           path + ": empty file, expected sacct --parsable2 or --json output");
    int64_t rows = 0;
    const bool json = first.value() == '{' || first.value() == '[';
    Status s = json ? internal::ReadSacctJson(in.value(), path, &builder, &rows)
                    : internal::ReadSacctText(in.value(), path, &builder, &rows);
    if (!s.ok()) return s;
    out.rows_read += rows;
    out.bytes_read += in.value().bytes();
    builder.CountFile(path, json ? "sacct --json" : "sacct --parsable2", rows);
  }
  builder.Finish(paths);
  return out;
}

}  // namespace utilsim::traces
