// Plain-file and in-memory byte sources of CsvReader.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "utilsim/engine/csv.h"

namespace utilsim {
namespace {

class PlainInput : public CsvInput {
 public:
  explicit PlainInput(std::FILE* f) : f_(f) {}
  ~PlainInput() override { std::fclose(f_); }
  int64_t Read(char* dst, size_t n) override {
    size_t got = std::fread(dst, 1, n, f_);
    if (got == 0 && std::ferror(f_)) {
      error = std::strerror(errno);
      return -1;
    }
    return static_cast<int64_t>(got);
  }

 private:
  std::FILE* f_;
};

class TextInput : public CsvInput {
 public:
  explicit TextInput(std::string text) : text_(std::move(text)) {}
  int64_t Read(char* dst, size_t n) override {
    size_t k = std::min(n, text_.size() - off_);
    std::memcpy(dst, text_.data() + off_, k);
    off_ += k;
    return static_cast<int64_t>(k);
  }

 private:
  std::string text_;
  size_t off_ = 0;
};

}  // namespace

Result<std::unique_ptr<CsvInput>> OpenFileCsvInput(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::Error(path + ": cannot open: " + std::strerror(errno));
  return FileCsvInput(f);
}

std::unique_ptr<CsvInput> FileCsvInput(std::FILE* file) {
  return std::make_unique<PlainInput>(file);
}

std::unique_ptr<CsvInput> TextCsvInput(std::string text) {
  return std::make_unique<TextInput>(std::move(text));
}

}  // namespace utilsim
