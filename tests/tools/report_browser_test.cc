// The HTML report in a real browser: headless Chromium opens a report made
// from a small compare, and the test reads back what the page recorded (the
// data-rendered attribute of every chart container and the page's error list,
// docs/report.md) from the DOM Chromium dumps. It fails on any console error
// or warning and on any chart without data rows or drawn marks, which the
// second test proves on a report with an empty chart and one with a console
// error; the third draws the Sweep section of two sweeps. A screenshot is
// saved under the build folder.
//
// Chromium: $UTILSIM_CHROMIUM, else /usr/bin/chromium (Debian's package,
// installed by tools/install-deps.sh). Missing, the tests fail; set
// UTILSIM_SKIP_BROWSER=1 to skip them on a machine without it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "testutil/testutil.h"
#include "utilsim/analysis/report.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ChromiumPath() {
  const char* env = std::getenv("UTILSIM_CHROMIUM");
  return env && *env ? env : "/usr/bin/chromium";
}

bool SkipBrowser() {
  const char* env = std::getenv("UTILSIM_SKIP_BROWSER");
  return env && std::string(env) == "1";
}

#define REQUIRE_CHROMIUM()                                                             \
  do {                                                                                 \
    if (Status built = CheckReportBuilt(); !built.ok())                                \
      GTEST_SKIP() << "no report to open: " << built.message();                        \
    if (SkipBrowser()) GTEST_SKIP() << "UTILSIM_SKIP_BROWSER=1: browser test skipped"; \
    ASSERT_EQ(::access(ChromiumPath().c_str(), X_OK), 0)                               \
        << "headless Chromium not found at " << ChromiumPath()                         \
        << ": install Debian's chromium (tools/install-deps.sh test), or set "         \
           "UTILSIM_CHROMIUM to its path; UTILSIM_SKIP_BROWSER=1 skips this test";     \
  } while (0)

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Opens `html` in headless Chromium with `mode` (--dump-dom or
// --screenshot=...); returns Chromium's exit code, its stdout in *out and its
// stderr in *log. Each run gets a fresh profile; no network is used.
int OpenInChromium(const std::string& html, const std::string& mode, std::string* out,
                   std::string* log) {
  const std::string dir = testutil::TempDir();
  const std::string cmd =
      "timeout 180 " + Quote(ChromiumPath()) +
      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
      " --disable-background-networking --disable-component-update --disable-sync"
      " --disable-extensions --hide-scrollbars --user-data-dir=" +
      Quote(dir + "/profile") + " --virtual-time-budget=30000 " + mode + " " +
      Quote("file://" + fs::absolute(html).string()) + " > " + Quote(dir + "/out") + " 2> " +
      Quote(dir + "/err");
  const int rc = std::system(cmd.c_str());
  *out = testutil::ReadFile(dir + "/out");
  *log = testutil::ReadFile(dir + "/err");
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string Unescape(std::string s) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"&lt;", "<"},
                                 {"&gt;", ">"},
                                 {"&quot;", "\""},
                                 {"&amp;", "&"}}) {
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
      s.replace(p, from.size(), to);
  }
  return s;
}

// The chart ids of a report, from its source: data-chart="<id>".
std::vector<std::string> ChartIds(const std::string& html) {
  std::vector<std::string> ids;
  const std::regex re("data-chart=\"([a-z0-9-]+)\"");
  for (std::sregex_iterator it(html.begin(), html.end(), re), end; it != end; ++it)
    ids.push_back((*it)[1]);
  return ids;
}

// What is wrong with a rendered report, one line each; empty when every chart
// in `ids` rendered data rows and marks and the page logged no error or
// warning. `dom` is Chromium's --dump-dom output.
std::vector<std::string> Problems(const std::string& dom, const std::vector<std::string>& ids) {
  std::vector<std::string> p;
  const std::string open = "<pre id=\"report-check\" hidden=\"\">";
  const size_t a = dom.find(open), b = dom.find("</pre>", a);
  if (a == std::string::npos || b == std::string::npos || b == a + open.size())
    return {"the page never finished embedding its charts (no report-check)"};
  const json check =
      json::parse(Unescape(dom.substr(a + open.size(), b - a - open.size())), nullptr, false);
  if (check.is_discarded()) return {"report-check is not JSON"};
  if (!check.value("done", false)) p.push_back("not done");
  for (const auto& e : check["errors"]) p.push_back("console error: " + e.get<std::string>());
  for (const auto& w : check["warnings"]) p.push_back("console warning: " + w.get<std::string>());
  for (const auto& id : ids) {
    // The container's own attributes, as the page set them.
    const size_t at = dom.find("data-chart=\"" + id + "\"");
    if (at == std::string::npos) {
      p.push_back(id + ": no container in the page");
      continue;
    }
    const size_t tag = dom.rfind('<', at);
    const std::string attrs = dom.substr(tag, dom.find('>', at) - tag);
    std::smatch m;
    if (!std::regex_search(attrs, m, std::regex("data-rendered=\"([^\"]*)\""))) {
      p.push_back(id + ": not rendered");
      continue;
    }
    if (m[1] == "error") {
      p.push_back(id + ": embedding failed");
      continue;
    }
    if (std::stol(m[1]) == 0) p.push_back(id + ": nothing drawn");
    if (std::regex_search(attrs, m, std::regex("data-rows=\"([0-9]+)\"")) && std::stol(m[1]) == 0)
      p.push_back(id + ": no data rows");
  }
  return p;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "  " + x + "\n";
  return s;
}

// Chart ids named by problems ("<id>: ...").
std::set<std::string> ChartsIn(const std::vector<std::string>& problems,
                               const std::vector<std::string>& ids) {
  std::set<std::string> out;
  for (const auto& p : problems)
    for (const auto& id : ids)
      if (p.rfind(id + ":", 0) == 0) out.insert(id);
  return out;
}

TEST(ReportBrowser, EveryChartRendersWithDataAndNoConsoleErrors) {
  REQUIRE_CHROMIUM();
  // Under the build folder (ctest runs in <build>/tests), kept for a look.
  const fs::path dir = fs::current_path() / "report-browser";
  fs::create_directories(dir);
  const std::string db = (dir / "report.db").string(), html = (dir / "report.html").string(),
                    png = (dir / "report.png").string();
  fs::remove(png);
  std::string out;
  ASSERT_EQ(testutil::RunCli("compare --trace builtin:demo --jobs 1500 --policies "
                             "first-fit,best-fit,worst-fit --out " +
                                 db + " --report " + html,
                             &out),
            0)
      << out;
  const std::vector<std::string> ids = ChartIds(testutil::ReadFile(html));
  // 3 allocated-vs-busy, wait, JCT, slowdown, wait causes, idle causes, energy, power, stranded
  ASSERT_EQ(ids.size(), 11u);

  std::string dom, log;
  ASSERT_EQ(OpenInChromium(html, "--dump-dom", &dom, &log), 0) << log;
  const auto problems = Problems(dom, ids);
  EXPECT_TRUE(problems.empty()) << "report problems:\n" << Join(problems) << "chromium:\n" << log;
  EXPECT_NE(dom.find("data-report-done=\"1\""), std::string::npos);

  ASSERT_EQ(
      OpenInChromium(html, "--screenshot=" + Quote(png) + " --window-size=1200,2400", &out, &log),
      0)
      << log;
  const std::string image = testutil::ReadFile(png);
  ASSERT_GT(image.size(), 20000u) << "screenshot " << png << "\n" << log;
  EXPECT_EQ(image.substr(1, 3), "PNG");
  std::cout << "screenshot: " << png << "\n";
}

TEST(ReportBrowser, CheckFailsOnAChartWithoutDataAndOnAConsoleError) {
  REQUIRE_CHROMIUM();
  const std::string dir = testutil::TempDir();
  std::string out;
  ASSERT_EQ(
      testutil::RunCli("compare --trace builtin:demo --jobs 300 --policies first-fit,best-fit "
                       "--out " +
                           dir + "/r.db",
                       &out),
      0)
      << out;
  auto runs = ReadResults(dir + "/r.db");
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_FALSE(runs.value()[1].samples.empty());
  runs.value()[1].samples.clear();  // the second run's allocated-vs-busy chart has no data
  const std::string html = dir + "/empty.html";
  ASSERT_TRUE(WriteReport(runs.value(), html).ok());
  const std::vector<std::string> ids = ChartIds(testutil::ReadFile(html));
  ASSERT_EQ(ids.size(), 10u);

  std::string dom, log;
  ASSERT_EQ(OpenInChromium(html, "--dump-dom", &dom, &log), 0) << log;
  const auto problems = Problems(dom, ids);
  EXPECT_EQ(ChartsIn(problems, ids), std::set<std::string>{"alloc-busy-2"}) << Join(problems);
  EXPECT_NE(std::find(problems.begin(), problems.end(), "alloc-busy-2: no data rows"),
            problems.end())
      << Join(problems);
  EXPECT_NE(std::find(problems.begin(), problems.end(), "alloc-busy-2: nothing drawn"),
            problems.end())
      << Join(problems);

  // A page script that logs an error is caught too.
  std::string page = testutil::ReadFile(html);
  page.insert(page.rfind("</body>"), "<script>console.error('injected failure');</script>\n");
  testutil::WriteFile(dir + "/error.html", page);
  ASSERT_EQ(OpenInChromium(dir + "/error.html", "--dump-dom", &dom, &log), 0) << log;
  const auto errors = Problems(dom, ids);
  EXPECT_NE(std::find(errors.begin(), errors.end(), "console error: injected failure"),
            errors.end())
      << Join(errors);
}

// The Sweep section (docs/report.md, "Sweeps") draws too: a grid sweep (line
// charts with min..max bands) and a Morris sweep (mu* bars), each from
// `utilsim sweep run`, every chart with data and no console error or warning.
TEST(ReportBrowser, SweepChartsRender) {
  REQUIRE_CHROMIUM();
  const std::string dir = testutil::TempDir();
  const std::map<std::string, std::string> sweeps = {
      {"grid",
       "base: {trace: builtin:demo, jobs: 300, sample-interval: 3600}\n"
       "axes:\n  policy: [best-fit, first-fit]\n  cluster-scale: [0.5, 1]\n  seed: [1, 2]\n"},
      {"morris",
       "base: {trace: builtin:demo, jobs: 300, sample-interval: 3600}\n"
       "axes:\n  policy: [best-fit]\n"
       "morris: {trajectories: 4, levels: 6, seed: 4, factors: {arrival-scale: [0.5, 2], "
       "price: [1, 4]}}\n"}};
  for (const auto& [name, yaml] : sweeps) {
    const std::string spec = dir + "/" + name + ".yaml", out = dir + "/" + name;
    const std::string html = out + ".html";
    testutil::WriteFile(spec, yaml);
    std::string log;
    ASSERT_EQ(testutil::RunCli("sweep run " + spec + " --out " + out, &log), 0) << log;
    ASSERT_EQ(testutil::RunCli("report " + out + "/merged.db -o " + html, &log), 0) << log;
    const std::vector<std::string> ids = ChartIds(testutil::ReadFile(html));
    const size_t sweep_charts = static_cast<size_t>(std::count_if(
        ids.begin(), ids.end(), [](const std::string& id) { return id.rfind("sweep-", 0) == 0; }));
    EXPECT_EQ(sweep_charts, 3u) << name;  // 3 metrics against cluster_scale; mu* of 3 metrics
    std::string dom;
    ASSERT_EQ(OpenInChromium(html, "--dump-dom", &dom, &log), 0) << log;
    const auto problems = Problems(dom, ids);
    EXPECT_TRUE(problems.empty()) << name << ": report problems:\n"
                                  << Join(problems) << "chromium:\n"
                                  << log;
  }
}

// fgd-experiment --report, and `utilsim report` of its --csv: three charts,
// each drawn with data and no console error.
TEST(ReportBrowser, FgdCurvesRender) {
  REQUIRE_CHROMIUM();
  const std::string dir = testutil::TempDir();
  const std::string csv = dir + "/curves.csv", html = dir + "/fgd.html", again = dir + "/csv.html";
  std::string log;
  ASSERT_EQ(testutil::RunCli("fgd-experiment --trace builtin:demo --jobs 300 --seeds 2 --csv " +
                                 csv + " --report " + html,
                             &log),
            0)
      << log;
  ASSERT_EQ(testutil::RunCli("report " + csv + " -o " + again, &log), 0) << log;
  for (const std::string& page : {html, again}) {
    const std::vector<std::string> ids = ChartIds(testutil::ReadFile(page));
    EXPECT_EQ(ids, (std::vector<std::string>{"fgd-alloc", "fgd-frag", "fgd-frag-ratio"}));
    std::string dom;
    ASSERT_EQ(OpenInChromium(page, "--dump-dom", &dom, &log), 0) << log;
    const auto problems = Problems(dom, ids);
    EXPECT_TRUE(problems.empty()) << page << ": report problems:\n"
                                  << Join(problems) << "chromium:\n"
                                  << log;
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
