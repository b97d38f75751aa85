#include "utilsim/traces/text_writer.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "utilsim/engine/units.h"

namespace utilsim::traces {

void AppendInt(std::string* out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

void AppendDouble(std::string* out, double v) {
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

void AppendFloat(std::string* out, float v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

void AppendSeconds(std::string* out, Micros t) {
  // Work on the magnitude as unsigned so that INT64_MIN cannot overflow.
  uint64_t mag = t.us < 0 ? uint64_t{0} - static_cast<uint64_t>(t.us) : static_cast<uint64_t>(t.us);
  if (t.us < 0) out->push_back('-');
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, mag / kMicrosPerSecond);
  out->append(buf, r.ptr);
  uint64_t frac = mag % kMicrosPerSecond;
  if (frac == 0) return;
  char digits[7] = "000000";
  for (int k = 5; k >= 0; --k, frac /= 10) digits[k] = static_cast<char>('0' + frac % 10);
  int len = 6;
  while (digits[len - 1] == '0') --len;
  out->push_back('.');
  out->append(digits, static_cast<size_t>(len));
}

std::string FormatSeconds(Micros t) {
  std::string s;
  AppendSeconds(&s, t);
  return s;
}

void AppendCsvField(std::string* out, std::string_view text, char delimiter) {
  bool quote = !text.empty() && (text.front() == '#' || text.front() == ' ' ||
                                 text.front() == '\t' || text.back() == ' ' || text.back() == '\t');
  for (char c : text) {
    if (c == delimiter || c == '"' || c == '\n' || c == '\r') {
      quote = true;
      break;
    }
  }
  if (!quote) {
    out->append(text);
    return;
  }
  out->push_back('"');
  for (char c : text) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), tmp_(TempPathFor(path_)) {}

AtomicFile::~AtomicFile() {
  if (f_ != nullptr) std::fclose(f_);
  // temp_ removes the temporary file unless it was committed.
}

Status AtomicFile::Open() {
  if (Status s = temp_.Create(path_); !s.ok()) return error_ = s;
  const int fd = temp_.TakeFd();
  f_ = ::fdopen(fd, "wb");
  if (f_ == nullptr) {
    const int err = errno;
    ::close(fd);
    return error_ = Status::Error(path_ + ": cannot open " + tmp_ + ": " + std::strerror(err));
  }
  std::setvbuf(f_, nullptr, _IOFBF, 1 << 20);
  return Status::Ok();
}

Status AtomicFile::Write(std::string_view data) {
  if (!error_.ok()) return error_;
  if (f_ == nullptr) {
    error_ = Status::Error(tmp_ + ": write to a file that is not open");
  } else if (std::fwrite(data.data(), 1, data.size(), f_) != data.size()) {
    error_ = Status::Error(tmp_ + ": write error: " + std::strerror(errno));
  }
  return error_;
}

Status AtomicFile::Close() {
  if (!error_.ok() || closed_) return error_;
  if (f_ == nullptr) return error_ = Status::Error(tmp_ + ": close of a file that is not open");
  bool bad = std::fflush(f_) != 0 || std::ferror(f_) != 0;
  int saved = errno;
  bad = std::fclose(f_) != 0 || bad;
  f_ = nullptr;
  closed_ = true;
  if (bad) error_ = Status::Error(tmp_ + ": write error: " + std::strerror(saved ? saved : errno));
  return error_;
}

Status AtomicFile::Commit() {
  if (Status s = Close(); !s.ok()) {
    temp_.Discard();
    return s;
  }
  return error_ = temp_.Commit();
}

Status WriteFileAtomically(const std::string& path, std::string_view text) {
  AtomicFile file(path);
  if (Status s = file.Open(); !s.ok()) return s;
  static_cast<void>(file.Write(text));  // a write error is returned by Commit()
  return file.Commit();
}

}  // namespace utilsim::traces
