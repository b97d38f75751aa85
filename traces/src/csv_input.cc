// gzip input and traces::CsvReader; plain files and memory are
// engine/src/csv_input.cc.
#include "csv_input.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "utilsim/traces/csv.h"

namespace utilsim::traces::internal {

namespace {

class GzipInput : public CsvInput {
 public:
  GzipInput(gzFile g, std::string path) : g_(g), path_(std::move(path)) { gzbuffer(g_, 1 << 18); }
  ~GzipInput() override { gzclose(g_); }
  int64_t Read(char* dst, size_t n) override {
    int got = gzread(g_, dst, static_cast<unsigned>(std::min<size_t>(n, 1u << 30)));
    int errnum = Z_OK;
    const char* msg = gzerror(g_, &errnum);
    // zlib returns what it could decode and reports a stream cut short as
    // Z_BUF_ERROR only once the data runs out, so check at the end too.
    if (got < 0 || (got == 0 && errnum != Z_OK)) {
      gzip_error = errnum != Z_ERRNO;
      error = errnum == Z_ERRNO ? std::strerror(errno) : (msg ? msg : "gzip error");
      // zlib prefixes its messages with the path, which ours already names.
      if (error.rfind(path_ + ": ", 0) == 0) error.erase(0, path_.size() + 2);
      return -1;
    }
    return got;
  }

 private:
  gzFile g_;
  std::string path_;
};

// Passes reads through and counts the bytes.
class CountingInput : public CsvInput {
 public:
  explicit CountingInput(std::unique_ptr<CsvInput> inner) : inner_(std::move(inner)) {}
  int64_t Read(char* dst, size_t n) override {
    const int64_t got = inner_->Read(dst, n);
    if (got < 0) {
      error = inner_->error;
      gzip_error = inner_->gzip_error;
      return got;
    }
    bytes_ += got;
    return got;
  }
  const int64_t* bytes() const { return &bytes_; }

 private:
  std::unique_ptr<CsvInput> inner_;
  int64_t bytes_ = 0;
};

}  // namespace

Result<utilsim::CsvReader> OpenCounted(const std::string& path, const int64_t** bytes,
                                       const CsvOptions& options) {
  auto input = OpenCsvInput(path);
  if (!input.ok()) return input.status();
  auto counting = std::make_unique<CountingInput>(std::move(input).value());
  *bytes = counting->bytes();  // the object stays where it is, owned by the reader
  return utilsim::CsvReader::FromInput(std::move(counting), path, options);
}

int64_t PlainSizeHint(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return 0;
  unsigned char magic[2] = {0, 0};
  const bool gzip = std::fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  int64_t size = 0;
  if (std::fseek(f, 0, SEEK_END) == 0) {
    const int64_t file_size = std::max<int64_t>(std::ftell(f), 0);
    size = file_size;
    unsigned char isize[4];
    if (gzip && std::fseek(f, -4, SEEK_END) == 0 && std::fread(isize, 1, 4, f) == 4) {
      int64_t trailer = 0;
      for (int i = 3; i >= 0; --i) trailer = trailer << 8 | isize[i];  // little-endian
      size = std::min<int64_t>(trailer, file_size * 32);
    }
  }
  std::fclose(f);
  return std::max<int64_t>(size, 0);
}

Result<std::unique_ptr<CsvInput>> OpenCsvInput(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::Error(path + ": cannot open: " + std::strerror(errno));
  unsigned char magic[2] = {0, 0};
  size_t n = std::fread(magic, 1, 2, f);
  if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    std::fclose(f);
    gzFile g = gzopen(path.c_str(), "rb");
    if (g == nullptr) return Status::Error(path + ": cannot open: " + std::strerror(errno));
    return std::unique_ptr<CsvInput>(std::make_unique<GzipInput>(g, path));
  }
  std::rewind(f);
  return FileCsvInput(f);
}

}  // namespace utilsim::traces::internal

namespace utilsim::traces {

Result<CsvReader> CsvReader::Open(const std::string& path, const CsvOptions& options) {
  auto input = internal::OpenCsvInput(path);
  if (!input.ok()) return input.status();
  auto r = utilsim::CsvReader::FromInput(std::move(input).value(), path, options);
  if (!r.ok()) return r.status();
  return CsvReader(std::move(r).value());
}

Result<CsvReader> CsvReader::FromText(std::string text, const std::string& source_name,
                                      const CsvOptions& options) {
  auto r = utilsim::CsvReader::FromText(std::move(text), source_name, options);
  if (!r.ok()) return r.status();
  return CsvReader(std::move(r).value());
}

}  // namespace utilsim::traces
