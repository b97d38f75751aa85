// CsvReader: framing, quoting, comments, options, typed fields and errors.
#include "utilsim/traces/csv.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using Rows = std::vector<std::vector<std::string>>;

// Reads every data row; on error returns the rows so far and sets *error.
Rows ReadAll(CsvReader& r, std::string* error = nullptr, std::vector<int64_t>* lines = nullptr) {
  Rows rows;
  for (;;) {
    auto next = r.Next();
    if (!next.ok()) {
      if (error) *error = next.status().message();
      return rows;
    }
    if (!next.value()) return rows;
    rows.emplace_back();
    for (size_t i = 0; i < r.size(); ++i) rows.back().emplace_back(r.field(i));
    if (lines) lines->push_back(r.line());
  }
}

CsvReader Text(const std::string& text, const CsvOptions& options = {}) {
  auto r = CsvReader::FromText(text, "t.csv", options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return std::move(r).value();
}

TEST(CsvReader, HeaderMapsNamesToColumns) {
  CsvReader r = Text("id,submit,runtime\nj1,0,10\nj2,5,20\n");
  EXPECT_EQ(r.columns(), (std::vector<std::string>{"id", "submit", "runtime"}));
  EXPECT_EQ(r.Find("runtime"), 2);
  EXPECT_EQ(r.Find("missing"), -1);
  std::vector<int64_t> lines;
  EXPECT_EQ(ReadAll(r, nullptr, &lines), (Rows{{"j1", "0", "10"}, {"j2", "5", "20"}}));
  EXPECT_EQ(lines, (std::vector<int64_t>{2, 3}));
}

TEST(CsvReader, TrimsBlanksAroundCommaSpaceSeparators) {
  // AIST-style ", " separators; the last line has no newline.
  CsvReader r = Text("id, user ,\tgpus\n0, 5 , 8");
  EXPECT_EQ(r.columns(), (std::vector<std::string>{"id", "user", "gpus"}));
  EXPECT_EQ(ReadAll(r), (Rows{{"0", "5", "8"}}));
}

TEST(CsvReader, QuotedFieldsHoldDelimitersQuotesAndNewlines) {
  CsvReader r = Text(
      "a,b,c\n"
      "\"x,y\",\"he said \"\"hi\"\"\", plain\n"
      " \"multi\nline\" ,\"\",3\n"
      "in\"side,\"\"\"\",z\n");
  std::vector<int64_t> lines;
  std::string err;
  Rows rows = ReadAll(r, &err, &lines);
  EXPECT_EQ(err, "");
  EXPECT_EQ(rows, (Rows{{"x,y", "he said \"hi\"", "plain"},
                        {"multi\nline", "", "3"},
                        {"in\"side", "\"", "z"}}));
  // The quoted newline makes row 3 span lines 3-4; the next row is on line 5.
  EXPECT_EQ(lines, (std::vector<int64_t>{2, 3, 5}));
}

TEST(CsvReader, HandlesCrlfAndByteOrderMark) {
  CsvReader r = Text("\xEF\xBB\xBFid,v\r\na,1\r\n\"q\r\nq\",2\r\n");
  EXPECT_EQ(r.columns(), (std::vector<std::string>{"id", "v"}));
  EXPECT_EQ(ReadAll(r), (Rows{{"a", "1"}, {"q\r\nq", "2"}}));
}

TEST(CsvReader, SkipsCommentsAndBlankLinesKeepingLeadingComments) {
  CsvOptions o;
  o.comment_prefix = ";";
  CsvReader r = Text("; Version: 2.2\n  ;  Computer: x\n\nid,v\n;mid\n   \na,1\n", o);
  ASSERT_EQ(r.leading_comments().size(), 2u);
  EXPECT_EQ(r.leading_comments()[0].line, 1);
  EXPECT_EQ(r.leading_comments()[0].text, "Version: 2.2");
  EXPECT_EQ(r.leading_comments()[1].line, 2);
  EXPECT_EQ(r.leading_comments()[1].text, "Computer: x");
  EXPECT_EQ(r.line(), 4);  // the header
  std::vector<int64_t> lines;
  EXPECT_EQ(ReadAll(r, nullptr, &lines), (Rows{{"a", "1"}}));
  EXPECT_EQ(lines, (std::vector<int64_t>{7}));
}

TEST(CsvReader, WhitespaceModeWithoutHeader) {
  CsvOptions o;
  o.whitespace = true;
  o.header = false;
  o.comment_prefix = ";";
  CsvReader r = Text("; SWF\n    1        0   -1\n\t2 1460  3 \n 3 5\n", o);
  std::string err;
  EXPECT_EQ(ReadAll(r, &err), (Rows{{"1", "0", "-1"}, {"2", "1460", "3"}}));
  // The first row fixed the count at 3; names default to "column <k>".
  EXPECT_EQ(err, "t.csv:4: expected 3 fields, got 2");
  EXPECT_EQ(r.ColumnName(1), "column 2");
}

TEST(CsvReader, CustomDelimiterAndColumnNames) {
  CsvOptions o;
  o.delimiter = '\t';
  o.header = false;
  o.column_names = {"job", "gpus"};
  CsvReader r = Text(" a \t 2 \n\tb\t\n", o);
  // Tab is the delimiter, so only spaces are trimmed: " a " -> "a".
  std::string err;
  EXPECT_EQ(ReadAll(r, &err), (Rows{{"a", "2"}}));
  EXPECT_EQ(err, "t.csv:2: expected 2 fields, got 3");
}

TEST(CsvReader, WrongFieldCountNamesFileLineAndExpectedCount) {
  CsvReader r = Text("a,b\n1,2\n1,2,3\n4,5\n");
  std::string err;
  EXPECT_EQ(ReadAll(r, &err).size(), 1u);
  EXPECT_EQ(err, "t.csv:3: expected 2 fields (as in the header), got 3");
  // The reader stays failed.
  auto again = r.Next();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().message(), err);
}

TEST(CsvReader, QuotingErrors) {
  std::string err;
  CsvReader r1 = Text("a,b\n1,\"open\n2,3\n");
  ReadAll(r1, &err);
  EXPECT_EQ(err, "t.csv:2: unterminated quoted field 2");
  CsvReader r2 = Text("a,b\n\"x\"y,2\n");
  ReadAll(r2, &err);
  EXPECT_EQ(err, "t.csv:2: unexpected text after closing quote in field 1");
}

TEST(CsvReader, EmptyInputAndMissingFile) {
  auto empty = CsvReader::FromText("\n  \n", "e.csv");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "e.csv: empty file, expected a header row");
  auto missing = CsvReader::Open("/nonexistent/x.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "/nonexistent/x.csv: cannot open: No such file or directory");
  auto dir = CsvReader::Open("/");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().message(), "/: read error: Is a directory");
}

TEST(CsvReader, EmptyHeaderNameIsNamedByPosition) {
  CsvReader r = Text(",model\n0,x\n");
  EXPECT_EQ(r.ColumnName(0), "column 1");
  EXPECT_EQ(r.ColumnName(1), "model");
}

// Every refill and growth path: the same text read through tiny buffers.
TEST(CsvReader, TinyBuffersGiveTheSameRows) {
  std::string text = "\xEF\xBB\xBFid,name,v\r\n";
  for (int i = 0; i < 200; ++i) {
    text += std::to_string(i) + ",";
    if (i % 3 == 0)
      text += "\"q,\"\"" + std::string(i % 17, 'x') + "\nline\"";
    else
      text += std::string(i % 23, 'y');
    text += "," + std::to_string(i * 7) + (i % 2 ? "\r\n" : "\n");
    if (i % 10 == 0) text += "\n";
  }
  CsvReader ref = Text(text);
  std::vector<int64_t> ref_lines;
  Rows want = ReadAll(ref, nullptr, &ref_lines);
  ASSERT_EQ(want.size(), 200u);
  EXPECT_EQ(want[3][1], "q,\"xxx\nline");
  for (size_t size : {4, 5, 7, 16, 61}) {
    CsvOptions o;
    o.buffer_size = size;
    CsvReader r = Text(text, o);
    std::string err;
    std::vector<int64_t> lines;
    EXPECT_EQ(ReadAll(r, &err, &lines), want) << "buffer " << size;
    EXPECT_EQ(err, "");
    EXPECT_EQ(lines, ref_lines);
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
