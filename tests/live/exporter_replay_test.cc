// The exporter's model (utilsim/live/exporter.h) without the binary:
// placement (as labelled, round-robin, a map file and its errors), the
// served text at replay times (latest sample at or before, hold, labels,
// percent vs ratio, memory), the clock (speed, start, loop), and that what
// it serves reads back through the dcgm-exporter reader unchanged.
#include <gtest/gtest.h>

#include "testutil/testutil.h"
#include "utilsim/live/exporter.h"
#include "utilsim/traces/telemetry.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

using testutil::TempDir;
using testutil::WriteFile;

using testutil::Has;

traces::UtilTrack Track(std::string host, int32_t gpu, std::string pod, UtilSignal sig,
                        std::vector<int64_t> t_s, std::vector<float> busy) {
  traces::UtilTrack t;
  t.host = std::move(host);
  t.gpu = gpu;
  t.job = std::move(pod);
  t.signal = sig;
  for (int64_t s : t_s) t.time.push_back(Seconds(s));
  t.busy = std::move(busy);
  return t;
}

traces::TelemetryData TwoNodes() {
  traces::TelemetryData d;
  d.tracks.push_back(
      Track("node-a", 0, "", UtilSignal::kGpuUtil, {100, 110, 120}, {0.9f, 0.5f, 0.1f}));
  d.tracks.push_back(Track("node-b", 1, "", UtilSignal::kGpuUtil, {100, 120}, {0.1f, 0.9f}));
  d.tracks.back().namespace_name = "ml";
  d.tracks.back().job = "train-b";
  d.tracks.back().mem_bytes = {1048576 * 1024, -1};
  return d;
}

TEST(ExporterReplayTest, ServesLatestSampleAtOrBefore) {
  std::vector<std::string> notes;
  auto r = Replay::Build(TwoNodes(), {}, {}, &notes);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Replay& rp = r.value();
  EXPECT_EQ(rp.size(), 2u);
  EXPECT_EQ(rp.first(), Seconds(100));
  EXPECT_EQ(rp.last(), Seconds(120));
  EXPECT_FALSE(Has(rp.Render(Seconds(99)), "node-a\"} "));  // before the first sample
  const std::string at100 = rp.Render(Seconds(100));
  EXPECT_TRUE(Has(at100,
                  "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
                  "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"))
      << at100;
  EXPECT_TRUE(Has(at100, "\",device=\"nvidia0\",modelName=\"unknown\",Hostname=\"node-a\"} 90\n"))
      << at100;
  EXPECT_TRUE(Has(at100,
                  ",device=\"nvidia1\",modelName=\"unknown\",Hostname=\"node-b\","
                  "namespace=\"ml\",pod=\"train-b\"} 10\n"))
      << at100;
  EXPECT_TRUE(Has(at100, "DCGM_FI_DEV_FB_USED{gpu=\"1\"")) << at100;
  EXPECT_TRUE(Has(at100, "pod=\"train-b\"} 1024\n")) << at100;
  const std::string at119 = rp.Render(Micros(Seconds(119).us + 999999));
  EXPECT_TRUE(Has(at119, "Hostname=\"node-a\"} 50\n")) << at119;
  EXPECT_TRUE(Has(at119, "pod=\"train-b\"} 10\n")) << at119;
  const std::string at120 = rp.Render(Seconds(120));
  EXPECT_TRUE(Has(at120, "Hostname=\"node-a\"} 10\n")) << at120;
  EXPECT_TRUE(Has(at120, "pod=\"train-b\"} 90\n")) << at120;
  EXPECT_FALSE(Has(at120, "DCGM_FI_DEV_FB_USED{")) << "-1 = no memory sample: " << at120;
  // Held 300 s after the last sample, then gone.
  EXPECT_TRUE(Has(rp.Render(Seconds(420)), "node-a\"} 10\n"));
  EXPECT_FALSE(Has(rp.Render(Seconds(421)), "node-a\"} "));
  ServeOptions forever;
  forever.hold_s = 0;
  forever.hostname_label = "hostname";
  forever.model_name = "NVIDIA \"A100\"";
  const std::string late =
      Replay::Build(TwoNodes(), {}, forever, nullptr).value().Render(Seconds(1000000));
  EXPECT_TRUE(Has(late, "modelName=\"NVIDIA \\\"A100\\\"\",hostname=\"node-a\"} 10\n")) << late;
}

TEST(ExporterReplayTest, RatiosMigAndStableUuid) {
  traces::TelemetryData d;
  d.tracks.push_back(Track("n", 2, "", UtilSignal::kSmActive, {0}, {0.25f}));
  d.tracks.back().gpu_instance = "3";
  d.tracks.push_back(Track("n", 2, "", UtilSignal::kGrEngineActive, {0}, {0.7f}));
  const std::string text = Replay::Build(d, {}, {}, nullptr).value().Render(Seconds(0));
  EXPECT_TRUE(Has(text, "# TYPE DCGM_FI_PROF_SM_ACTIVE gauge\n")) << text;
  EXPECT_TRUE(Has(text, "GPU_I_ID=\"3\",Hostname=\"n\"} 0.25\n")) << text;
  EXPECT_TRUE(Has(text, "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"2\"")) << text;
  EXPECT_TRUE(Has(text, "} 0.7\n")) << text;
  EXPECT_EQ(text, Replay::Build(d, {}, {}, nullptr).value().Render(Seconds(0))) << "stable";
  const size_t u = text.find("UUID=\"GPU-");
  ASSERT_NE(u, std::string::npos);
  ASSERT_GT(text.size(), u + 6 + 40);
  EXPECT_EQ(text[u + 6 + 40], '"') << "GPU- and 8-4-4-4-12 hex digits";
}

TEST(ExporterReplayTest, RoundRobinPlacementAndClashes) {
  traces::TelemetryData d;
  for (const char* pod : {"p0", "p1", "p2", "p3", "p4"})
    d.tracks.push_back(Track("", -1, pod, UtilSignal::kGpuUtil, {0}, {0.5f}));
  EXPECT_FALSE(Replay::Build(d, {}, {}, nullptr).ok()) << "no host: needs a placement";
  const Status need = Replay::Build(d, {}, {}, nullptr).status();
  EXPECT_TRUE(Has(need.message(), "5 of 5 series have no host or GPU index (e.g. 'pod=p0')"))
      << need.message();
  PlacementOptions p;
  p.nodes = 2;
  p.gpus_per_node = 2;
  auto r = Replay::Build(d, p, {}, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().MapCsv(),
            "entity,node,gpu,pod,namespace\n"
            "pod=p0,node-0,0,p0,default\n"
            "pod=p1,node-1,0,p1,default\n"
            "pod=p2,node-0,1,p2,default\n"
            "pod=p3,node-1,1,p3,default\n"
            "pod=p4,node-0,0,p4,default\n");  // wraps: GPUs shared by pods
  // Without pod labels, two series on one GPU would be one series.
  for (size_t i = 0; i < d.tracks.size(); ++i) {
    d.tracks[i].job.clear();
    d.tracks[i].gpu = static_cast<int32_t>(i);
  }
  auto clash = Replay::Build(d, p, {}, nullptr);
  ASSERT_FALSE(clash.ok());
  EXPECT_TRUE(Has(clash.status().message(), "would both be served as DCGM_FI_DEV_GPU_UTIL"))
      << clash.status().message();
}

TEST(ExporterReplayTest, MapFile) {
  const std::string dir = TempDir();
  traces::TelemetryData d = TwoNodes();
  EXPECT_EQ(EntitySkeletonCsv(d),
            "entity,node,gpu,pod,namespace\n"
            "host=node-a;gpu=0,node-a,0,,\n"
            "pod=ml/train-b;host=node-b;gpu=1,node-b,1,train-b,ml\n");
  PlacementOptions p;
  p.map_path = WriteFile(dir + "/map.csv",
                         "# comment\nentity,node,gpu,pod,namespace\n"
                         "pod=ml/train-b;host=node-b;gpu=1,worker-7,3,serve-1,prod\n");
  std::vector<std::string> notes;
  auto r = Replay::Build(d, p, {}, &notes);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().size(), 1u) << "entities not in the map are not served";
  EXPECT_TRUE(Has(notes[0], "1 of 2 entities not in")) << notes[0];
  const std::string text = r.value().Render(Seconds(100));
  EXPECT_TRUE(Has(text, "gpu=\"3\"")) << text;
  EXPECT_TRUE(Has(text, "Hostname=\"worker-7\",namespace=\"prod\",pod=\"serve-1\"} 10\n")) << text;
  struct Bad {
    const char* csv;
    const char* want;
  } bad[] = {
      {"entity,node,gpu\nhost=node-x;gpu=0,n,0\n",
       "map.csv:2: field 'entity': no series 'host=node-x;gpu=0'"},
      {"entity,node,gpu\nhost=node-a;gpu=0,n,x\n",
       "map.csv:2: field 'gpu': expected an integer, got 'x'"},
      {"entity,node,gpu\nhost=node-a;gpu=0,n,-1\n", "map.csv:2: field 'gpu': expected a GPU index"},
      {"entity,node,gpu\nhost=node-a;gpu=0,,0\n", "map.csv:2: field 'node': expected a node name"},
      {"entity,node\nhost=node-a;gpu=0,n\n", "map.csv:1: no column 'gpu'"},
      {"entity,node,gpu,rack\n", "map.csv:1: unknown column 'rack'"},
      {"entity,node,gpu\nhost=node-a;gpu=0,n,0\nhost=node-a;gpu=0,m,1\n",
       "map.csv:3: entity 'host=node-a;gpu=0' is mapped already on line 2"},
  };
  for (const Bad& b : bad) {
    p.map_path = WriteFile(dir + "/map.csv", b.csv);
    auto e = Replay::Build(d, p, {}, nullptr);
    ASSERT_FALSE(e.ok()) << b.csv;
    EXPECT_TRUE(Has(e.status().message(), b.want)) << e.status().message();
  }
}

TEST(ExporterReplayTest, ClockSpeedStartAndLoop) {
  const Replay r = Replay::Build(TwoNodes(), {}, {}, nullptr).value();
  auto c = r.Clock(std::nullopt, 4, false).value();
  EXPECT_EQ(c.At(0), Seconds(100));
  EXPECT_EQ(c.At(2.5), Seconds(110));
  EXPECT_EQ(c.At(1e6), Seconds(4000100));
  auto from = r.Clock(Seconds(110), 1, true).value();
  EXPECT_EQ(from.period, Seconds(20));  // 110..120 plus one spacing (10 s)
  EXPECT_EQ(from.At(5), Seconds(115));
  EXPECT_EQ(from.At(20), Seconds(110));
  EXPECT_EQ(from.At(27), Seconds(117));
  EXPECT_FALSE(r.Clock(Seconds(121), 1, false).ok());
  EXPECT_FALSE(r.Clock(std::nullopt, 0, false).ok());
}

TEST(ExporterReplayTest, ServedTextReadsBackUnchanged) {
  const std::string path = testutil::Fixture("live/two_nodes.prom");
  auto data = traces::ReadDcgmExposition(path);
  ASSERT_TRUE(data.ok()) << data.status().message();
  const Replay r = Replay::Build(data.value(), {}, {}, nullptr).value();
  const Micros t = Seconds(1700000035);
  const std::string file = WriteFile(TempDir() + "/scrape.prom", r.Render(t));
  traces::TelemetryOptions o;
  o.scrape_time = t;
  auto back = traces::ReadDcgmExposition(file, o);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back.value().tracks.size(), 4u);
  for (const traces::UtilTrack& tr : back.value().tracks) {
    ASSERT_EQ(tr.busy.size(), 1u);
    EXPECT_FLOAT_EQ(tr.busy[0], tr.host == "node-a" ? 0.1f : 0.9f) << tr.host << " " << tr.gpu;
    EXPECT_EQ(tr.job.empty(), tr.gpu != 0) << "pods kept";
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
