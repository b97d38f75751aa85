// CsvReader on files: gzip detection by magic bytes, truncated and corrupt
// gzip data, and a throughput report.
#include <gtest/gtest.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "testutil/testutil.h"
#include "utilsim/traces/csv.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::ReadFile;
using testutil::TempDir;
using testutil::WriteFile;

std::string SampleText(int rows) {
  std::string text = "# generated\nid, name ,gpus,util\n";
  for (int i = 0; i < rows; ++i) {
    text += std::to_string(i) + ",";
    text += (i % 5 == 0) ? "\"job, " + std::to_string(i) + "\"" : "job-" + std::to_string(i);
    text += "," + std::to_string(i % 9) + ",0." + std::to_string(i % 100) + "\r\n";
  }
  return text;
}

void WriteGzip(const std::string& path, const std::string& text) {
  gzFile g = gzopen(path.c_str(), "wb");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(gzwrite(g, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(g), Z_OK);
}

struct Read {
  std::vector<std::vector<std::string>> rows;
  std::string error;
};

Read ReadPath(const std::string& path) {
  Read out;
  CsvOptions o;
  o.comment_prefix = "#";
  auto r = CsvReader::Open(path, o);
  if (!r.ok()) {
    out.error = r.status().message();
    return out;
  }
  for (;;) {
    auto next = r.value().Next();
    if (!next.ok()) {
      out.error = next.status().message();
      return out;
    }
    if (!next.value()) return out;
    out.rows.emplace_back();
    for (size_t i = 0; i < r.value().size(); ++i) out.rows.back().emplace_back(r.value().field(i));
  }
}

TEST(CsvGzip, PlainAndGzipGiveIdenticalRows) {
  const std::string dir = TempDir();
  const std::string text = SampleText(20000);
  WriteFile(dir + "/plain.csv", text);
  // The name says nothing about compression: detection is by magic bytes.
  WriteGzip(dir + "/packed.csv", text);
  Read plain = ReadPath(dir + "/plain.csv");
  Read packed = ReadPath(dir + "/packed.csv");
  EXPECT_EQ(plain.error, "");
  EXPECT_EQ(packed.error, "");
  ASSERT_EQ(plain.rows.size(), 20000u);
  EXPECT_EQ(plain.rows[5], (std::vector<std::string>{"5", "job, 5", "5", "0.5"}));
  EXPECT_EQ(packed.rows, plain.rows);
}

TEST(CsvGzip, TruncatedGzipIsAnErrorNotEndOfFile) {
  const std::string dir = TempDir();
  WriteGzip(dir + "/full.gz", SampleText(20000));
  std::string bytes = ReadFile(dir + "/full.gz");
  ASSERT_GT(bytes.size(), 1000u);
  const std::string cut = dir + "/cut.csv.gz";
  WriteFile(cut, bytes.substr(0, bytes.size() / 2));
  Read r = ReadPath(cut);
  EXPECT_GT(r.rows.size(), 100u);
  EXPECT_LT(r.rows.size(), 20000u);
  const std::string want = cut + ": truncated or corrupt gzip data near line ";
  ASSERT_EQ(r.error.substr(0, want.size()), want) << r.error;
  // The line named is just past the rows that were read (2 lines of preamble).
  EXPECT_EQ(std::stoll(r.error.substr(want.size())), static_cast<int64_t>(r.rows.size()) + 3);
  // Cut inside the 8-byte trailer: all data present but the CRC is missing.
  WriteFile(cut, bytes.substr(0, bytes.size() - 4));
  r = ReadPath(cut);
  EXPECT_NE(r.error.find("truncated or corrupt gzip data near line"), std::string::npos);
}

TEST(CsvGzip, CorruptGzipIsAnError) {
  const std::string dir = TempDir();
  WriteGzip(dir + "/full.gz", SampleText(20000));
  std::string bytes = ReadFile(dir + "/full.gz");
  for (size_t i = bytes.size() / 3; i < bytes.size() / 3 + 64; ++i) bytes[i] ^= 0x5a;
  WriteFile(dir + "/bad.gz", bytes);
  Read r = ReadPath(dir + "/bad.gz");
  EXPECT_NE(r.error.find(dir + "/bad.gz: truncated or corrupt gzip data near line "),
            std::string::npos)
      << r.error;
}

// Reports plain-text throughput (reading and one integer per row); asserts the
// 50 MB/s target only in optimized builds without sanitizers.
TEST(CsvGzip, ThroughputReport) {
  const std::string dir = TempDir();
  std::string text = "id,submit_s,runtime_s,gpus,gpu_milli,tenant,util\n";
  for (int i = 0; text.size() < (size_t{40} << 20); ++i) {
    text += "job-" + std::to_string(i) + "," + std::to_string(i * 3) + ".25,3600,8,1000,team-" +
            std::to_string(i % 17) + ",0.75\n";
  }
  WriteFile(dir + "/big.csv", text);
  auto start = std::chrono::steady_clock::now();
  auto r = CsvReader::Open(dir + "/big.csv");
  ASSERT_TRUE(r.ok());
  int64_t rows = 0, sum = 0;
  for (;;) {
    auto next = r.value().Next();
    ASSERT_TRUE(next.ok());
    if (!next.value()) break;
    ++rows;
    sum += r.value().Int(3).value();
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double mbps = static_cast<double>(text.size()) / 1e6 / secs;
  std::printf("[ throughput ] %.1f MB in %.3f s: %.0f MB/s (%lld rows)\n",
              static_cast<double>(text.size()) / 1e6, secs, mbps, static_cast<long long>(rows));
  EXPECT_EQ(sum, rows * 8);
  std::filesystem::remove(dir + "/big.csv");
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
  EXPECT_GT(mbps, 50.0);  // the target; typically several hundred MB/s
#endif
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
