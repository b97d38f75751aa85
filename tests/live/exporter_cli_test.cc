// `utilsim exporter` as a program: port 0 and the one-line address on
// standard output, GET /metrics from a client, --speed moving the replayed
// values, SIGTERM and SIGINT -> exit 0, bad input -> exit 1 naming
// file:line, usage errors -> exit 2, --list-entities.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

#include "child_process.h"
#include "testutil/testutil.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

using testutil::ChildProcess;

using testutil::Has;

// Starts the exporter with `args`; *addr = its first stdout line.
std::unique_ptr<ChildProcess> StartExporter(const std::vector<std::string>& args,
                                            std::string* addr) {
  std::vector<std::string> argv = {testutil::BinaryPath(), "exporter"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string error;
  auto child = ChildProcess::Start(argv, testutil::TempDir() + "/exporter.log", &error);
  EXPECT_NE(child, nullptr) << error;
  if (child && !child->ReadLine(addr, 10000)) {
    ADD_FAILURE() << "no address line; log: " << child->Log();
    return nullptr;
  }
  return child;
}

std::string Scrape(const std::string& addr) {
  httplib::Client cli("http://" + addr);
  auto res = cli.Get("/metrics");
  if (!res || res->status != 200) return "";
  EXPECT_TRUE(Has(res->get_header_value("Content-Type"), "text/plain; version=0.0.4"));
  return res->body;
}

TEST(ExporterCliTest, ServesOnPortZeroAndExitsCleanlyOnSigterm) {
  std::string addr;
  auto ex = StartExporter({"--telemetry", testutil::Fixture("live/two_nodes.prom"), "--listen",
                           "127.0.0.1:0", "--speed", "10"},
                          &addr);
  ASSERT_NE(ex, nullptr);
  ASSERT_EQ(addr.rfind("127.0.0.1:", 0), 0u) << addr;
  EXPECT_NE(addr, "127.0.0.1:0");
  const std::string first = Scrape(addr);
  EXPECT_TRUE(Has(first, "# TYPE DCGM_FI_DEV_GPU_UTIL gauge")) << first;
  EXPECT_TRUE(
      Has(first, "Hostname=\"node-a\",container=\"main\",namespace=\"ml\",pod=\"train-a\"} 90\n"))
      << first;
  EXPECT_TRUE(Has(first, "Hostname=\"node-b\"} 10\n")) << first;
  // Trace second 30 (the swap) is 3 s of wall time away at --speed 10.
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  const std::string later = Scrape(addr);
  EXPECT_TRUE(Has(later, "Hostname=\"node-a\"} 10\n")) << later;
  EXPECT_TRUE(Has(later, "Hostname=\"node-b\"} 90\n")) << later;
  const int st = ex->Signal(SIGTERM, 3000);
  ASSERT_NE(st, -1) << "still running 3 s after SIGTERM";
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st << " " << ex->Log();
  EXPECT_TRUE(Has(ex->Log(), "/metrics: trace 1700000000.000 .. 1700000090.000 s")) << ex->Log();
}

TEST(ExporterCliTest, SigintAlsoExitsZero) {
  std::string addr;
  auto ex = StartExporter({"--telemetry", testutil::Fixture("live/two_nodes.prom"), "--listen",
                           "127.0.0.1:0", "--hostname-label", "hostname", "--start", "+30"},
                          &addr);
  ASSERT_NE(ex, nullptr);
  const std::string text = Scrape(addr);
  EXPECT_TRUE(Has(text, "hostname=\"node-a\"} 10\n")) << text;  // from trace second 30
  const int st = ex->Signal(SIGINT, 3000);
  ASSERT_NE(st, -1);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st << " " << ex->Log();
}

TEST(ExporterCliTest, BadInputExitsOneWithFileAndLine) {
  const std::string dir = testutil::TempDir();
  const std::string bad =
      testutil::WriteFile(dir + "/bad.prom",
                          "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"a\"} 1 1700000000000\n"
                          "DCGM_FI_DEV_GPU_UTIL{gpu=\"x\",Hostname=\"a\"} 1 1700000000000\n");
  std::string out;
  EXPECT_EQ(testutil::RunCli("exporter --telemetry " + bad, &out), 1) << out;
  EXPECT_TRUE(Has(out, "bad.prom:2: field 'gpu': expected a GPU index")) << out;
  const std::string map = testutil::WriteFile(dir + "/map.csv", "entity,node,gpu\nnope,n,0\n");
  EXPECT_EQ(testutil::RunCli("exporter --telemetry " + testutil::Fixture("live/two_nodes.prom") +
                                 " --map " + map,
                             &out),
            1)
      << out;
  EXPECT_TRUE(Has(out, "map.csv:2: field 'entity': no series 'nope'")) << out;
  EXPECT_EQ(testutil::RunCli("exporter --telemetry " + dir + "/missing.prom", &out), 1) << out;
  EXPECT_EQ(testutil::RunCli("exporter --telemetry " + testutil::Fixture("live/two_nodes.prom") +
                                 " --start 1800000000",
                             &out),
            1)
      << out;
  EXPECT_TRUE(Has(out, "--start: start 1800000000.000 s is after the last sample")) << out;
}

TEST(ExporterCliTest, UsageErrorsExitTwo) {
  const std::string t = " --telemetry " + testutil::Fixture("live/two_nodes.prom");
  for (const std::string& args :
       {std::string("exporter"), "exporter" + t + " --speed 0", "exporter" + t + " --listen nope",
        "exporter" + t + " --listen 127.0.0.1:70000", "exporter" + t + " --start +x",
        "exporter" + t + " --nodes 2 --map " + testutil::Fixture("live/two_nodes.prom"),
        "exporter" + t + " --hostname-label host", "exporter" + t + " --nodes 0",
        "exporter" + t + " --telemetry-format philly-windows"}) {
    std::string out;
    EXPECT_EQ(testutil::RunCli(args, &out), 2) << args << "\n" << out;
  }
}

TEST(ExporterCliTest, ListEntitiesAndHelp) {
  std::string out;
  ASSERT_EQ(testutil::RunCli("exporter --telemetry " + testutil::Fixture("live/two_nodes.prom") +
                                 " --list-entities",
                             &out),
            0)
      << out;
  EXPECT_EQ(out,
            "entity,node,gpu,pod,namespace\n"
            "host=node-a;gpu=1,node-a,1,,\n"
            "host=node-b;gpu=1,node-b,1,,\n"
            "pod=ml/train-a;container=main;host=node-a;gpu=0,node-a,0,train-a,ml\n"
            "pod=ml/train-b;container=main;host=node-b;gpu=0,node-b,0,train-b,ml\n");
  ASSERT_EQ(testutil::RunCli("exporter --help", &out), 0) << out;
  for (const char* part : {"--listen", "--speed", "--start", "--loop", "--map", "--nodes",
                           "--gpus-per-node", "--hostname-label", "--list-entities", "SIGTERM"})
    EXPECT_TRUE(Has(out, part)) << part;
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
