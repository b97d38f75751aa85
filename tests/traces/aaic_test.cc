// AIST AAIC reader: hand-computed fixtures, every bad input with its exact
// message, format detection, and the real quarter files checked against
// their raw columns (parsed here independently of CsvReader).
#include "utilsim/traces/aaic.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "testutil/testutil.h"
#include "utilsim/traces/canonical.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::TempDir;
using testutil::WriteFile;

const Job* Find(const Workload& w, const std::string& name) {
  for (const Job& j : w.jobs)
    if (j.name == name) return &j;
  return nullptr;
}

TEST(AaicFixture, MapsFieldsAcrossFilesWithOneOrigin) {
  auto r = ReadAaic({Fixture("aaic/q1.csv"), Fixture("aaic/q2.csv")});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& d = r.value();
  const Workload& w = d.workload;
  EXPECT_EQ(d.rows_read, 7);
  // Every byte of both files, header lines included, counted as read.
  EXPECT_EQ(d.bytes_read, static_cast<int64_t>(std::filesystem::file_size(Fixture("aaic/q1.csv")) +
                                               std::filesystem::file_size(Fixture("aaic/q2.csv"))));
  // Sorted by submit; the origin is q2's first submit (1499999990).
  std::vector<std::string> names;
  for (const Job& j : w.jobs) names.push_back(j.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"q2:0", "q1:0", "q1:3", "q1:1", "q1:2", "q1:4", "q2:1"}));
  const Job* j = Find(w, "q1:0");
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(j->submit, Seconds(10));
  EXPECT_EQ(j->recorded_start, Seconds(15));
  EXPECT_EQ(j->runtime, Seconds(100));
  EXPECT_EQ(j->walltime_limit, Seconds(259200));
  EXPECT_EQ(j->tasks, 1);
  EXPECT_EQ(j->task.gpus, 8);
  EXPECT_EQ(j->task.gpu_milli, 1000);
  EXPECT_EQ(j->task.cpu_milli, 20000);
  EXPECT_EQ(j->task.mem_bytes, int64_t{256} << 30);
  EXPECT_EQ(j->priority, 0);
  EXPECT_EQ(w.tenants[j->tenant], "q1:g0");
  EXPECT_FALSE(j->util_known);
  // Zero run time becomes 1 s.
  j = Find(w, "q1:1");
  EXPECT_EQ(j->runtime, Seconds(1));
  EXPECT_EQ(j->recorded_start, j->submit);
  EXPECT_EQ(j->priority, 1);
  EXPECT_EQ(j->task.cpu_milli, 2500);
  EXPECT_EQ(j->task.mem_bytes, int64_t{32} << 30);
  // Overran its limit: time_end - time_start, not the capped walltime column.
  j = Find(w, "q1:2");
  EXPECT_EQ(j->runtime, Seconds(3610));
  EXPECT_EQ(j->tasks, 2);
  EXPECT_EQ(w.tenants[j->tenant], "q1:g1");
  // Multi-node with gpus 4: whole nodes.
  j = Find(w, "q1:3");
  EXPECT_EQ(j->tasks, 4);
  EXPECT_EQ(j->task.gpus, 8);
  EXPECT_EQ(j->priority, 3);
  // walltime_req 0: no limit.
  EXPECT_FALSE(Find(w, "q1:4")->walltime_limit.has_value());
  j = Find(w, "q2:1");
  EXPECT_EQ(j->submit, Seconds(410));
  EXPECT_EQ(j->task.gpus, 3);
  EXPECT_EQ(w.tenants[j->tenant], "q2:g5");
  EXPECT_EQ(w.tenants, (std::vector<std::string>{"q1:g0", "q1:g1", "q1:g2", "q2:g0", "q2:g5"}));
  EXPECT_EQ(w.source, Fixture("aaic/q1.csv") + "," + Fixture("aaic/q2.csv"));
}

TEST(AaicFixture, CountsWarningsWithLocation) {
  auto r = ReadAaic({Fixture("aaic/q1.csv"), Fixture("aaic/q2.csv")}, {.nodes = 3});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Warnings& wn = r.value().warnings;
  EXPECT_EQ(wn.count(kAaicWarnZeroRuntime), 1);
  EXPECT_EQ(wn.count(kAaicWarnWalltimeDiffers), 1);
  EXPECT_EQ(wn.count(kAaicWarnMultiNodeGpus), 1);
  EXPECT_EQ(wn.count(kAaicWarnNoWalltimeReq), 1);
  EXPECT_EQ(wn.count(kAaicWarnTooLarge), 1);
  EXPECT_EQ(wn.count(kAaicWarnWaittimeDiffers), 0);
  EXPECT_EQ(wn.count(kAaicWarnUnknownTermcode), 0);
  EXPECT_EQ(wn.total(), 5);
  EXPECT_EQ(wn.examples().at(kAaicWarnMultiNodeGpus).front(),
            Fixture("aaic/q1.csv") + ":5: job q1:3: nodes 4, gpus 4");
  EXPECT_EQ(wn.examples().at(kAaicWarnWalltimeDiffers).front(),
            Fixture("aaic/q1.csv") + ":4: job q1:2: time_end - time_start 3610 s, walltime 3600 s");
}

TEST(AaicFixture, NotesAndDocumentedCluster) {
  auto r = ReadAaic({Fixture("aaic/q1.csv"), Fixture("aaic/q2.csv")}, {.nodes = 40});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& d = r.value();
  ASSERT_TRUE(d.cluster.has_value());
  EXPECT_EQ(d.cluster->total_nodes(), 40);
  EXPECT_EQ(d.cluster->total_gpus(), 320);
  ASSERT_EQ(d.cluster->models.size(), 1u);
  EXPECT_EQ(d.cluster->models[0].name, "AAIC-GPU");
  EXPECT_EQ(d.cluster->models[0].memory_bytes, 0);
  EXPECT_EQ(d.cluster->groups[0].cpu_milli, 20000);
  EXPECT_EQ(d.cluster->groups[0].mem_bytes, int64_t{256} << 30);
  ASSERT_FALSE(d.notes.empty());
  EXPECT_EQ(d.notes[0],
            "time origin: UNIX 1499999990 = 2017-07-14 02:39:50 UTC (the earliest time_submit "
            "over 2 file(s)); submit and recorded start are relative to it");
  std::string all;
  for (const std::string& n : d.notes) all += n + "\n";
  EXPECT_NE(all.find("not read from the file"), std::string::npos) << all;
  EXPECT_NE(all.find("termcode: 0 (success): 3; 1 (fail): 1; 2 (walltime exceeded): 1; "
                     "3 (cancelled by user): 1; 4 (cancelled by system): 1"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("queue (= priority): 0: 4; 1: 1; 2: 1; 3: 1"), std::string::npos) << all;
  EXPECT_NE(all.find("jobs per file: q1 5 q2 2"), std::string::npos) << all;
  // Waits 1, 5, 10, 0, 100, 10, 0 s.
  EXPECT_NE(all.find("median 5 s, mean 18 s, max 100 s"), std::string::npos) << all;
}

TEST(AaicFixture, GzipAndColumnOrderGiveTheSameWorkload) {
  const std::string dir = TempDir();
  const std::string text = testutil::ReadFile(Fixture("aaic/q1.csv"));
  const std::string gz = dir + "/q1.csv.gz";
  gzFile g = gzopen(gz.c_str(), "wb");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(gzwrite(g, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(g), Z_OK);
  // Columns reversed, one extra column (ignored), CRLF line ends.
  std::string shuffled =
      "extra,walltime,waittime,time_end,time_start,time_submit,termcode,"
      "walltime_req,gpus,nodes,queue,group,user,id\r\n";
  shuffled += "x,100,5,1500000105,1500000005,1500000000,0,259200,8,1,0,0,0,0\r\n";
  const std::string csv = WriteFile(dir + "/q1.csv", shuffled);
  auto a = ReadAaic({Fixture("aaic/q1.csv")});
  auto b = ReadAaic({gz});
  auto c = ReadAaic({csv});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(DigestWorkload(a.value().workload), DigestWorkload(b.value().workload));
  ASSERT_EQ(c.value().workload.jobs.size(), 1u);
  EXPECT_EQ(c.value().workload.jobs[0].name, "q1:0");
  EXPECT_EQ(c.value().workload.jobs[0].runtime, Seconds(100));
}

struct BadCase {
  const char* label;
  const char* rows;     // data rows after the standard header
  const char* message;  // expected message after "<path>:"
};

constexpr char kHeader[] =
    "id, user, group, queue, nodes, gpus, walltime_req, termcode, time_submit, time_start, "
    "time_end, waittime, walltime\n";

// clang-format off
const BadCase kCases[] = {
    {"non-numeric", "0, 0, 0, 0, x, 1, 60, 0, 10, 11, 12, 1, 1\n",
     "2: field 'nodes': expected an integer 1..1000000, got 'x'"},
    {"fractional", "0, 0, 0, 0, 1, 1, 60, 0, 10.5, 11, 12, 1, 1\n",
     "2: field 'time_submit': expected UNIX seconds >= 0, got '10.5'"},
    {"negative time", "0, 0, 0, 0, 1, 1, 60, 0, -10, 11, 12, 21, 1\n",
     "2: field 'time_submit': expected UNIX seconds >= 0, got '-10'"},
    {"negative id", "-1, 0, 0, 0, 1, 1, 60, 0, 10, 11, 12, 1, 1\n",
     "2: field 'id': expected an integer >= 0, got '-1'"},
    {"negative walltime_req", "0, 0, 0, 0, 1, 1, -60, 0, 10, 11, 12, 1, 1\n",
     "2: field 'walltime_req': expected seconds >= 0, got '-60'"},
    {"zero nodes", "0, 0, 0, 0, 0, 1, 60, 0, 10, 11, 12, 1, 1\n",
     "2: field 'nodes': expected an integer 1..1000000, got '0'"},
    {"nine gpus", "0, 0, 0, 0, 1, 9, 60, 0, 10, 11, 12, 1, 1\n",
     "2: field 'gpus': expected an integer 1..8, got '9'"},
    {"zero gpus", "0, 0, 0, 0, 1, 0, 60, 0, 10, 11, 12, 1, 1\n",
     "2: field 'gpus': expected an integer 1..8, got '0'"},
    {"empty field", "0, 0, 0, 0, 1, 1, 60, , 10, 11, 12, 1, 1\n",
     "2: field 'termcode': expected an integer, got ''"},
    {"wrong field count", "0, 0, 0, 0, 1, 1, 60, 0, 10, 11, 12, 1, 1\n1, 0, 0, 0, 1, 1, 60\n",
     "3: expected 13 fields (as in the header), got 7"},
    {"end before start", "0, 0, 0, 0, 1, 1, 60, 0, 10, 11, 12, 1, 1\n"
                         "1, 0, 0, 0, 1, 1, 60, 0, 10, 15, 14, 5, -1\n",
     "3: field 'time_end': expected UNIX seconds >= time_start (15), got '14'"},
    {"start before submit", "0, 0, 0, 0, 1, 1, 60, 0, 10, 9, 12, -1, 3\n",
     "2: field 'time_start': expected UNIX seconds >= time_submit (10), got '9'"},
    {"repeated id", "7, 0, 0, 0, 1, 1, 60, 0, 10, 11, 12, 1, 1\n\n"
                    "7, 0, 0, 0, 1, 1, 60, 0, 10, 11, 12, 1, 1\n",
     "4: field 'id': expected an id not already used on line 2, got '7'"},
};
// clang-format on

TEST(AaicErrors, EveryBadInputNamesFileLineAndField) {
  const std::string dir = TempDir();
  for (const BadCase& c : kCases) {
    const std::string path = WriteFile(dir + "/bad.csv", std::string(kHeader) + c.rows);
    auto r = ReadAaic({path});
    ASSERT_FALSE(r.ok()) << c.label;
    EXPECT_EQ(r.status().message(), path + ":" + c.message) << c.label;
  }
}

TEST(AaicErrors, FileLevelErrors) {
  const std::string dir = TempDir();
  const std::string missing =
      WriteFile(dir + "/m.csv",
                "id, user, group, queue, nodes, gpus, walltime_req, termcode, time_submit, "
                "time_start, time_end, walltime\n0, 0, 0, 0, 1, 1, 60, 0, 10, 11, 12, 1\n");
  auto r = ReadAaic({missing});
  EXPECT_EQ(r.status().message(), missing + ":1: missing required column 'waittime'");
  const std::string empty = WriteFile(dir + "/e.csv", "");
  EXPECT_EQ(ReadAaic({empty}).status().message(), empty + ": empty file, expected a header row");
  EXPECT_EQ(ReadAaic({}).status().message(), "ReadAaic: no input files");
  EXPECT_EQ(ReadAaic({Fixture("aaic/q1.csv")}, {.nodes = 0}).status().message(),
            "AaicOptions.nodes: expected 1..1000000, got 0");
  const std::string gz = WriteFile(dir + "/q1.csv.gz", "not read");
  EXPECT_EQ(
      ReadAaic({Fixture("aaic/q1.csv"), gz}).status().message(),
      gz + ": same file stem 'q1' as " + Fixture("aaic/q1.csv") + " (job names would repeat)");
  auto nofile = ReadAaic({dir + "/absent.csv"});
  EXPECT_EQ(nofile.status().message().rfind(dir + "/absent.csv: cannot open: ", 0), 0u)
      << nofile.status().message();
}

// An id field as the reader takes it: the job's name ("t:<value>"), or the
// error after "<path>:2: ".
std::string IdAsRead(const std::string& id) {
  const std::string path = WriteFile(TempDir() + "/t.csv", std::string(kHeader) + id +
                                                               ", 0, 0, 0, 1, 1, 60, 0, 10, "
                                                               "11, 12, 1, 1\n");
  auto r = ReadAaic({path});
  if (!r.ok()) return r.status().message().substr(path.size() + 4);
  return r.value().workload.jobs.at(0).name;
}

// Integer fields of plain digits take a fast path; every other text goes
// the general way. Both accept and reject what the reader always did.
TEST(AaicNumbers, IntegerFormsAcceptedAndRejectedAsBefore) {
  EXPECT_EQ(IdAsRead("0"), "t:0");
  EXPECT_EQ(IdAsRead("007"), "t:7");
  EXPECT_EQ(IdAsRead("+5"), "t:5");
  EXPECT_EQ(IdAsRead(" 12 "), "t:12");
  EXPECT_EQ(IdAsRead("123456789012345678"), "t:123456789012345678");    // 18 digits
  EXPECT_EQ(IdAsRead("1234567890123456789"), "t:1234567890123456789");  // 19
  EXPECT_EQ(IdAsRead("9223372036854775807"), "t:9223372036854775807");  // INT64_MAX
  EXPECT_EQ(IdAsRead("000000000000000000042"), "t:42");                 // 21 digits
  for (const char* bad : {"9223372036854775808", "99999999999999999999", "-5", "1e3", "1.0", "++5",
                          "+-5", "-+5", "+", "-", "0x1", "5 5", "5x", "\"\""}) {
    const std::string text = bad[0] == '"' ? "" : bad;  // the quotes are CSV's
    EXPECT_EQ(IdAsRead(bad), "field 'id': expected an integer >= 0, got '" + text + "'") << bad;
  }
  EXPECT_EQ(IdAsRead("-0"), "t:0");
  EXPECT_EQ(IdAsRead("\"5\""), "t:5");
}

// Values beyond the counted-in-an-array range (negative termcodes, queues
// from 64) still appear in the notes, in increasing order.
TEST(AaicFixture, NotesCountUnusualValuesInOrder) {
  const std::string path = WriteFile(TempDir() + "/u.csv", std::string(kHeader) +
                                                               "0, 0, 0, 100, 1, 1, 60, -1, 10, "
                                                               "11, 12, 1, 1\n"
                                                               "1, 0, 0, 0, 1, 1, 60, 0, 10, 11, "
                                                               "12, 1, 1\n"
                                                               "2, 0, 0, 64, 1, 1, 60, 70, 10, "
                                                               "11, 12, 1, 1\n");
  auto r = ReadAaic({path});
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string all;
  for (const std::string& n : r.value().notes) all += n + "\n";
  EXPECT_NE(all.find("termcode: -1: 1; 0 (success): 1; 70: 1\n"), std::string::npos) << all;
  EXPECT_NE(all.find("queue (= priority): 0: 1; 64: 1; 100: 1\n"), std::string::npos) << all;
}

// Many rows: the id table grows past its first size and still finds the
// first use of an id; jobs come out ordered by (submit, file order).
TEST(AaicFixture, ManyRowsRepeatedIdAndSubmitOrder) {
  std::string rows;
  for (int i = 0; i < 5000; ++i) {
    const int64_t submit = 1000 + (i * 7919) % 97;  // out of order, with ties
    const std::string t = std::to_string(submit);
    rows += std::to_string(9000 - i) + ", 0, " + std::to_string(i % 3) + ", 0, 1, 1, 60, 0, " + t +
            ", " + t + ", " + std::to_string(submit + 5) + ", 0, 5\n";
  }
  const std::string dir = TempDir();
  const std::string good = WriteFile(dir + "/m.csv", std::string(kHeader) + rows);
  auto r = ReadAaic({good});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::vector<Job>& jobs = r.value().workload.jobs;
  ASSERT_EQ(jobs.size(), 5000u);
  for (size_t k = 1; k < jobs.size(); ++k) {
    ASSERT_LE(jobs[k - 1].submit, jobs[k].submit) << k;
    // Ids fall in file order, so among equal submits they must fall too.
    if (jobs[k - 1].submit == jobs[k].submit) {
      ASSERT_GT(std::stoll(jobs[k - 1].name.substr(2)), std::stoll(jobs[k].name.substr(2))) << k;
    }
  }
  EXPECT_EQ(r.value().workload.tenants.size(), 3u);
  rows += "8000, 0, 0, 0, 1, 1, 60, 0, 10, 11, 12, 1, 1\n";
  const std::string bad = WriteFile(dir + "/m.csv", std::string(kHeader) + rows);
  EXPECT_EQ(ReadAaic({bad}).status().message(),
            bad + ":5002: field 'id': expected an id not already used on line 1002, got '8000'");
}

// Ascending ids (as in the real quarters) are only listed; the first id
// out of order is looked up among all of them.
TEST(AaicFixture, AscendingIdsThenARepeat) {
  std::string rows;
  for (int i = 0; i < 3000; ++i) {
    rows += std::to_string(10 * i) + ", 0, 0, 0, 1, 1, 60, 0, 10, 11, 12, 1, 1\n";
  }
  const std::string dir = TempDir();
  const std::string fresh =
      WriteFile(dir + "/a.csv", std::string(kHeader) + rows +
                                    "15, 0, 0, 0, 1, 1, 60, 0, 10, 11, 12, 1, 1\n"
                                    "5, 0, 0, 0, 1, 1, 60, 0, 10, 11, 12, 1, 1\n");
  auto r = ReadAaic({fresh});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().workload.jobs.size(), 3002u);
  const std::string repeat = WriteFile(
      dir + "/a.csv", std::string(kHeader) + rows + "15, 0, 0, 0, 1, 1, 60, 0, 10, 11, 12, 1, 1\n" +
                          "29990, 0, 0, 0, 1, 1, 60, 0, 10, 11, 12, 1, 1\n");
  EXPECT_EQ(
      ReadAaic({repeat}).status().message(),
      repeat + ":3003: field 'id': expected an id not already used on line 3001, got '29990'");
}

TEST(AaicDetect, LooksLikeAaic) {
  std::vector<std::string> h = {"id",       "user",         "group",    "queue",       "nodes",
                                "gpus",     "walltime_req", "termcode", "time_submit", "time_start",
                                "time_end", "waittime",     "walltime"};
  EXPECT_TRUE(LooksLikeAaic(h));
  h.pop_back();
  EXPECT_FALSE(LooksLikeAaic(h));
  EXPECT_FALSE(LooksLikeAaic({"id", "submit_s", "runtime_s"}));
}

// ---- Real traces (shared/traces/aist-aaic) ----

constexpr const char* kQuarters[] = {"aaicwl-2017Q3", "aaicwl-2017Q4", "aaicwl-2018Q1"};

// Rows of a quarter file as 13 integers in header order, read with zlib
// (plain files pass through) and split on commas.
std::vector<std::array<int64_t, 13>> RawRows(const std::string& path) {
  std::vector<std::array<int64_t, 13>> rows;
  gzFile g = gzopen(path.c_str(), "rb");
  if (g == nullptr) return rows;
  char line[512];
  bool header = true;
  while (gzgets(g, line, sizeof line) != nullptr) {
    if (header) {
      header = false;
      continue;
    }
    std::array<int64_t, 13> v{};
    char* p = line;
    for (int64_t& x : v) {
      x = std::strtoll(p, &p, 10);
      if (*p == ',') ++p;
    }
    rows.push_back(v);
  }
  gzclose(g);
  return rows;
}

// A gzip file reads as its plain text does, and counts its uncompressed
// bytes (as the reader reads them: no second pass over the file).
TEST(AaicFixture, GzipCountsTheUncompressedBytes) {
  const std::string plain = Fixture("aaic/q1.csv");
  const std::string text = testutil::ReadFile(plain);
  const std::string gz = TempDir() + "/q1.csv.gz";
  gzFile g = gzopen(gz.c_str(), "wb");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(gzwrite(g, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(g), Z_OK);
  auto a = ReadAaic({plain});
  auto b = ReadAaic({gz});
  ASSERT_TRUE(a.ok() && b.ok()) << a.status().message() << b.status().message();
  EXPECT_EQ(b.value().bytes_read, static_cast<int64_t>(text.size()));
  EXPECT_EQ(a.value().bytes_read, b.value().bytes_read);
  EXPECT_NE(static_cast<int64_t>(std::filesystem::file_size(gz)), b.value().bytes_read);
  EXPECT_EQ(DigestWorkload(a.value().workload), DigestWorkload(b.value().workload));
}

TEST(AaicReal, QuarterJobCountsAndGzipEqualsPlain) {
  const std::string plain = testutil::TracePath("aist-aaic/aaicwl-2017Q3.csv");
  const std::string gz = testutil::TracePath("aist-aaic/aaicwl-2017Q3.csv.gz");
  if (plain.empty() || gz.empty()) GTEST_SKIP() << "aist-aaic/aaicwl-2017Q3.csv[.gz] not found";
  auto a = ReadAaic({plain});
  auto b = ReadAaic({gz});
  ASSERT_TRUE(a.ok() && b.ok()) << a.status().message() << b.status().message();
  EXPECT_EQ(a.value().workload.jobs.size(), 13712u);
  EXPECT_EQ(DigestWorkload(a.value().workload), DigestWorkload(b.value().workload));
  EXPECT_EQ(a.value().bytes_read, b.value().bytes_read);
  const size_t expected[] = {13712, 93497, 124408};
  for (int q = 1; q < 3; ++q) {
    const std::string path =
        testutil::TracePath(std::string("aist-aaic/") + kQuarters[q] + ".csv.gz");
    if (path.empty()) GTEST_SKIP() << kQuarters[q] << ".csv.gz not found";
    auto r = ReadAaic({path});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r.value().workload.jobs.size(), expected[q]) << kQuarters[q];
    EXPECT_EQ(r.value().rows_read, static_cast<int64_t>(expected[q]));
  }
}

TEST(AaicReal, ThreeQuartersAgreeWithTheRawColumns) {
  std::vector<std::string> paths;
  for (const char* q : kQuarters) {
    paths.push_back(testutil::TracePath(std::string("aist-aaic/") + q + ".csv.gz"));
    if (paths.back().empty()) GTEST_SKIP() << "aist-aaic/" << q << ".csv.gz not found";
  }
  auto r = ReadAaic(paths);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& d = r.value();
  const Workload& w = d.workload;
  ASSERT_EQ(w.jobs.size(), 231617u);
  EXPECT_EQ(d.notes[0].substr(0, 51), "time origin: UNIX 1499996961 = 2017-07-14 01:49:21 ");
  std::unordered_map<std::string, size_t> by_name;
  for (size_t i = 0; i < w.jobs.size(); ++i) by_name.emplace(w.jobs[i].name, i);
  ASSERT_EQ(by_name.size(), w.jobs.size());
  int64_t wait_mismatch = 0, runtime_mismatch = 0, walltime_differs = 0, zero = 0, fixed = 0;
  std::vector<int64_t> waits;
  std::map<int64_t, int64_t> raw_nodes, raw_gpus, tasks, gpus;
  for (int q = 0; q < 3; ++q) {
    for (const auto& v : RawRows(paths[static_cast<size_t>(q)])) {
      auto it = by_name.find(std::string(kQuarters[q]) + ":" + std::to_string(v[0]));
      ASSERT_NE(it, by_name.end());
      const Job& j = w.jobs[it->second];
      const int64_t run = v[10] - v[9];
      if ((*j.recorded_start - j.submit) != Seconds(v[11])) ++wait_mismatch;
      if (j.runtime != Seconds(run == 0 ? 1 : run)) ++runtime_mismatch;
      walltime_differs += run != v[12];
      zero += run == 0;
      fixed += v[4] > 1 && v[5] < 8;
      waits.push_back(v[11]);
      ++raw_nodes[v[4]];
      ++raw_gpus[v[5]];
    }
  }
  for (const Job& j : w.jobs) {
    ++tasks[j.tasks];
    ++gpus[j.task.gpus];
  }
  ASSERT_EQ(waits.size(), w.jobs.size());
  EXPECT_EQ(wait_mismatch, 0);
  EXPECT_EQ(runtime_mismatch, 0);
  // Counts measured on these files (SOURCE.md: walltime == end - start for
  // 98.9 % of its larger set; here 98.7 %).
  EXPECT_EQ(walltime_differs, 2973);
  EXPECT_EQ(zero, 42);
  EXPECT_EQ(fixed, 26);
  EXPECT_EQ(d.warnings.count(kAaicWarnWalltimeDiffers), walltime_differs);
  EXPECT_EQ(d.warnings.count(kAaicWarnZeroRuntime), zero);
  EXPECT_EQ(d.warnings.count(kAaicWarnMultiNodeGpus), fixed);
  EXPECT_EQ(d.warnings.count(kAaicWarnWaittimeDiffers), 0);
  // Recorded wait: median 5 s as in SOURCE.md. Its mean (4,402 s) and its
  // nodes/gpus counts cover all six quarters (459,545 jobs, the sum of its
  // termcode counts); these three quarters give a mean of 6,735.8 s.
  std::sort(waits.begin(), waits.end());
  EXPECT_EQ(waits[waits.size() / 2], 5);
  double sum = 0;
  for (int64_t x : waits) sum += static_cast<double>(x);
  EXPECT_NEAR(sum / static_cast<double>(waits.size()), 6735.79, 0.01);
  EXPECT_EQ(waits.back(), 1719484);  // SOURCE.md max
  // nodes / gpus: 1 node and 1 GPU dominate, then 2 nodes / 8 GPUs, up to 32
  // nodes, as in SOURCE.md (measured values of these three files).
  EXPECT_EQ(tasks, raw_nodes);
  EXPECT_EQ(raw_nodes[1], 230088);
  EXPECT_EQ(raw_nodes[2], 1269);
  EXPECT_EQ(raw_nodes.rbegin()->first, 32);
  EXPECT_EQ(raw_gpus[1], 221390);
  EXPECT_EQ(raw_gpus[8], 6544);
  EXPECT_EQ(raw_gpus[2], 2063);
  EXPECT_EQ(raw_gpus[4], 1206);
  EXPECT_EQ(gpus[8], raw_gpus[8] + fixed);
  int64_t gpu_total = 0;
  for (const auto& [g, n] : gpus) gpu_total += n;
  EXPECT_EQ(gpu_total, 231617);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
