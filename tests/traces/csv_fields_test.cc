// CsvReader typed accessors, ParseSeconds / FormatSeconds, CSV quoting.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "testutil/testutil.h"
#include "utilsim/traces/csv.h"
#include "utilsim/traces/text_writer.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

CsvReader Row(const std::string& text) {
  auto r = CsvReader::FromText(text, "t.csv");
  EXPECT_TRUE(r.ok());
  CsvReader reader = std::move(r).value();
  auto next = reader.Next();
  EXPECT_TRUE(next.ok() && next.value());
  return reader;
}

TEST(CsvFields, TypedAccessorsParseWholeFields) {
  CsvReader r = Row("i,neg,plus,d,e,f,t,empty\n42,-7,+3,2.5,1e3,0.25,1.5,\n");
  EXPECT_EQ(r.Int(0).value(), 42);
  EXPECT_EQ(r.Int(1).value(), -7);
  EXPECT_EQ(r.Int(2).value(), 3);
  EXPECT_EQ(r.Double(3).value(), 2.5);
  EXPECT_EQ(r.Double(4).value(), 1000.0);
  EXPECT_EQ(r.Float(5).value(), 0.25f);
  EXPECT_EQ(r.Time(6).value(), Micros(1500000));
  EXPECT_FALSE(r.OptInt(7).value().has_value());
  EXPECT_FALSE(r.OptDouble(7).value().has_value());
  EXPECT_FALSE(r.OptTime(7).value().has_value());
  EXPECT_EQ(r.OptInt(0).value(), 42);
  EXPECT_EQ(r.OptDouble(3).value(), 2.5);
  EXPECT_EQ(r.OptTime(6).value(), Micros(1500000));
}

TEST(CsvFields, ErrorsNameFileLineFieldExpectationAndText) {
  CsvReader r =
      Row("n,x,big,nan,long\n12abc,1.5,99999999999999999999,nan," + std::string(150, 'z') + "\n");
  EXPECT_EQ(r.Int(0).status().message(), "t.csv:2: field 'n': expected an integer, got '12abc'");
  EXPECT_EQ(r.Int(1).status().message(), "t.csv:2: field 'x': expected an integer, got '1.5'");
  EXPECT_EQ(r.Int(2).status().message(),
            "t.csv:2: field 'big': expected an integer, got '99999999999999999999'");
  EXPECT_EQ(r.Double(3).status().message(), "t.csv:2: field 'nan': expected a number, got 'nan'");
  EXPECT_EQ(r.Float(0).status().message(), "t.csv:2: field 'n': expected a number, got '12abc'");
  EXPECT_EQ(r.Time(0).status().message(),
            "t.csv:2: field 'n': expected a time in seconds, got '12abc'");
  EXPECT_EQ(r.OptInt(0).status().message(), r.Int(0).status().message());
  EXPECT_EQ(r.FieldError(4, "short").message(),
            "t.csv:2: field 'long': expected short, got '" + std::string(100, 'z') + "...'");
  EXPECT_EQ(r.RowError("custom").message(), "t.csv:2: custom");
  // Out-of-range index reads as an empty field, never a crash.
  EXPECT_EQ(r.field(99), "");
  EXPECT_FALSE(r.Int(99).ok());
}

TEST(ParseSeconds, PlainDecimalsAreExact) {
  EXPECT_EQ(ParseSeconds("0"), Micros(0));
  EXPECT_EQ(ParseSeconds("12"), Micros(12000000));
  EXPECT_EQ(ParseSeconds("1.5"), Micros(1500000));
  EXPECT_EQ(ParseSeconds("-2.25"), Micros(-2250000));
  EXPECT_EQ(ParseSeconds("+.5"), Micros(500000));
  EXPECT_EQ(ParseSeconds("7."), Micros(7000000));
  EXPECT_EQ(ParseSeconds("0.000001"), Micros(1));
  EXPECT_EQ(ParseSeconds("0.0000005"), Micros(1));  // half rounds away from zero
  EXPECT_EQ(ParseSeconds("0.00000049"), Micros(0));
  EXPECT_EQ(ParseSeconds("-0.0000005"), Micros(-1));
  // Epoch seconds with microseconds, where double arithmetic would be risky.
  EXPECT_EQ(ParseSeconds("1506477248.123457"), Micros(1506477248123457));
  EXPECT_EQ(ParseSeconds("000000000000001.5"), Micros(1500000));
}

TEST(ParseSeconds, OtherFormsAndRejects) {
  EXPECT_EQ(ParseSeconds("1e3"), Micros(1000000000));
  EXPECT_EQ(ParseSeconds("1.5E1"), Micros(15000000));
  EXPECT_EQ(ParseSeconds(""), std::nullopt);
  EXPECT_EQ(ParseSeconds("."), std::nullopt);
  EXPECT_EQ(ParseSeconds("abc"), std::nullopt);
  EXPECT_EQ(ParseSeconds("1.2.3"), std::nullopt);
  EXPECT_EQ(ParseSeconds("inf"), std::nullopt);
  EXPECT_EQ(ParseSeconds("nan"), std::nullopt);
  EXPECT_EQ(ParseSeconds("40000000000"), std::nullopt);  // > kMaxSeconds
  EXPECT_EQ(ParseSeconds("1e300"), std::nullopt);
  EXPECT_EQ(ParseSeconds("99999999999999999999"), std::nullopt);
}

TEST(FormatSeconds, RoundTripsThroughParseSeconds) {
  EXPECT_EQ(FormatSeconds(Micros(0)), "0");
  EXPECT_EQ(FormatSeconds(Micros(1500000)), "1.5");
  EXPECT_EQ(FormatSeconds(Micros(1)), "0.000001");
  EXPECT_EQ(FormatSeconds(Micros(-2250000)), "-2.25");
  EXPECT_EQ(FormatSeconds(Micros(INT64_MIN)), "-9223372036854.775808");
  const int64_t max_us = static_cast<int64_t>(kMaxSeconds) * 1000000;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    int64_t us = static_cast<int64_t>(x % static_cast<uint64_t>(2 * max_us + 1)) - max_us;
    if (i % 4 == 0) us %= 100000000;  // plenty of small values too
    ASSERT_EQ(ParseSeconds(FormatSeconds(Micros(us))), Micros(us)) << us;
  }
}

TEST(AppendCsvField, QuotesOnlyWhenNeededAndReadsBack) {
  const std::vector<std::string> values = {"plain",          "",      "a,b",     "say \"hi\"",
                                           "#not-a-comment", " lead", "trail\t", "two\nlines",
                                           "cr\r",           "\"",    "in\"side"};
  std::string text = "k,v\n";
  for (size_t i = 0; i < values.size(); ++i) {
    text += std::to_string(i) + ",";
    AppendCsvField(&text, values[i]);
    text += "\n";
  }
  std::string plain;
  AppendCsvField(&plain, "plain");
  EXPECT_EQ(plain, "plain");
  CsvOptions o;
  o.comment_prefix = "#";
  auto r = CsvReader::FromText(text, "q.csv", o);
  ASSERT_TRUE(r.ok());
  for (const std::string& want : values) {
    auto next = r.value().Next();
    ASSERT_TRUE(next.ok()) << next.status().message();
    ASSERT_TRUE(next.value());
    EXPECT_EQ(r.value().field(1), want);
  }
  EXPECT_FALSE(r.value().Next().value());
}

TEST(AppendNumbers, ShortestRoundTrip) {
  std::string s;
  AppendDouble(&s, 0.1);
  s += " ";
  AppendFloat(&s, 0.1f);
  s += " ";
  AppendDouble(&s, 1.0 / 1048576);
  s += " ";
  AppendInt(&s, -42);
  EXPECT_EQ(s, "0.1 0.1 9.5367431640625e-07 -42");
}

TEST(AtomicFile, AppearsOnlyOnCommit) {
  const std::string dir = testutil::TempDir();
  const std::string path = dir + "/out.txt";
  {
    AtomicFile f(path);
    ASSERT_TRUE(f.Open().ok());
    ASSERT_TRUE(f.Write("partial").ok());
    EXPECT_EQ(f.temp_path(), dir + "/.out.txt.utilsim-tmp-" + std::to_string(::getpid()));
    EXPECT_TRUE(std::filesystem::exists(f.temp_path()));
    EXPECT_FALSE(std::filesystem::exists(path));
  }  // destroyed without Commit
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  {
    AtomicFile f(path);
    ASSERT_TRUE(f.Open().ok());
    ASSERT_TRUE(f.Write("whole\n").ok());
    ASSERT_TRUE(f.Commit().ok());
  }
  EXPECT_EQ(testutil::ReadFile(path), "whole\n");
  EXPECT_EQ(std::filesystem::directory_iterator(dir)->path().filename(), "out.txt");  // alone
  AtomicFile bad(dir + "/no/such/dir/x");
  Status s = bad.Open();
  EXPECT_EQ(s.message(), dir + "/no/such/dir/x: cannot create the temporary file " + dir +
                             "/no/such/dir/.x.utilsim-tmp-" + std::to_string(::getpid()) +
                             ": No such file or directory");
  EXPECT_FALSE(bad.Commit().ok());
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
