// dcgm-exporter Prometheus text: labels, escapes, MIG, both hostname
// spellings, blanks, NaN, order, memory join, scrape files, errors.
#include <gtest/gtest.h>

#include <string>

#include "testutil/testutil.h"
#include "utilsim/traces/telemetry.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::TempDir;
using testutil::WriteFile;

constexpr int64_t kMiB = 1 << 20;
constexpr int64_t kT0 = 1700000000;  // UNIX seconds of the first scrape

TelemetryData MustRead(const Result<TelemetryData>& r) {
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : TelemetryData{};
}

std::string ErrorOf(const std::string& text, const TelemetryOptions& opt = {}) {
  const std::string path = WriteFile(TempDir() + "/m.prom", text);
  auto r = ReadDcgmExposition(path, opt);
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  const std::string m = r.status().message();
  EXPECT_EQ(m.rfind(path + ":", 0), 0u) << m;
  return m.substr(path.size());
}

TEST(TelemetryExposition, ReadsTheFixture) {
  TelemetryData t = MustRead(ReadDcgmExposition(Fixture("telemetry/dcgm_exporter.prom")));
  ASSERT_EQ(t.tracks.size(), 6u);
  EXPECT_EQ(t.rows_read, 17);

  // Sorted by (job, namespace, container, host, gpu, instance, uuid, signal).
  const UtilTrack& bare = t.tracks[0];  // no pod, no host
  EXPECT_EQ(bare.host, "");
  EXPECT_EQ(bare.gpu, 3);
  EXPECT_EQ(bare.signal, UtilSignal::kGrEngineActive);
  EXPECT_EQ(bare.time, (std::vector<Micros>{Seconds(kT0)}));
  EXPECT_EQ(bare.busy, (std::vector<float>{0.75f}));

  const UtilTrack& g0 = t.tracks[1];  // "Hostname" label, GPU_UTIL in percent
  EXPECT_EQ(g0.job, "");
  EXPECT_EQ(g0.host, "node-1");
  EXPECT_EQ(g0.gpu, 0);
  EXPECT_EQ(g0.gpu_instance, "");
  EXPECT_EQ(g0.signal, UtilSignal::kGpuUtil);
  EXPECT_EQ(g0.time, (std::vector<Micros>{Seconds(kT0), Seconds(kT0 + 30), Seconds(kT0 + 60)}));
  EXPECT_EQ(g0.busy, (std::vector<float>{0.4f, 0.6f, 0.2f}));  // 99 at +30 came late: dropped
  EXPECT_EQ(g0.mem_bytes, (std::vector<int64_t>{1024 * kMiB, 2048 * kMiB, -1}));

  // MIG instance 1 of GPU 2 on node-2 ("hostname" label): SM and GR tracks.
  const UtilTrack& sm = t.tracks[2];
  const UtilTrack& gr = t.tracks[3];
  for (const UtilTrack* m : {&sm, &gr}) {
    EXPECT_EQ(m->host, "node-2");
    EXPECT_EQ(m->gpu, 2);
    EXPECT_EQ(m->gpu_instance, "1");
    EXPECT_TRUE(m->mem_bytes.empty());
  }
  EXPECT_EQ(sm.signal, UtilSignal::kSmActive);
  EXPECT_EQ(sm.busy, (std::vector<float>{0.25f}));
  EXPECT_EQ(gr.signal, UtilSignal::kGrEngineActive);
  EXPECT_EQ(gr.busy, (std::vector<float>{0.5f}));

  const UtilTrack& pod = t.tracks[4];
  EXPECT_EQ(pod.job, "train-7");
  EXPECT_EQ(pod.namespace_name, "ml");
  EXPECT_EQ(pod.container, "trainer");
  EXPECT_EQ(pod.host, "node-1");
  EXPECT_EQ(pod.gpu, 1);
  // The blank at +30 is dropped; its memory sample then joins nothing.
  EXPECT_EQ(pod.time, (std::vector<Micros>{Seconds(kT0), Seconds(kT0 + 60)}));
  EXPECT_EQ(pod.busy, (std::vector<float>{1.0f, 0.5f}));
  EXPECT_EQ(pod.mem_bytes, (std::vector<int64_t>{40960 * kMiB, -1}));

  const UtilTrack& esc = t.tracks[5];
  EXPECT_EQ(esc.job, "we\"ird\\pod\nx");
  EXPECT_EQ(esc.container, "c,}{");
  EXPECT_EQ(esc.busy, (std::vector<float>{0.125f}));

  EXPECT_EQ(t.warnings.count(kWarnBlank), 1);
  EXPECT_EQ(t.warnings.count(kWarnNonFinite), 1);
  EXPECT_EQ(t.warnings.count(kWarnOutOfOrder), 1);
  EXPECT_EQ(t.warnings.count(kWarnNoJoinLabel), 1);
  EXPECT_EQ(t.warnings.count(kWarnMemoryOnly), 1);
  EXPECT_EQ(t.warnings.count(kWarnMemoryUnmatched), 1);
  EXPECT_EQ(t.warnings.total(), 6);
  const std::string path = Fixture("telemetry/dcgm_exporter.prom");
  EXPECT_EQ(t.warnings.examples().at(kWarnBlank).front(), path + ":26: '2147483647'");
  EXPECT_EQ(t.warnings.examples().at(kWarnOutOfOrder).front().rfind(path + ":32: host 'node-1'", 0),
            0u);
  ASSERT_EQ(t.notes.size(), 2u);
  EXPECT_EQ(t.notes[1], "skipped 2 samples of 2 other metrics (first: DCGM_FI_DEV_GPU_TEMP)");
}

TEST(TelemetryExposition, ScrapeTimeAndDefaultHost) {
  const std::string dir = TempDir();
  const std::string path = WriteFile(dir + "/s.prom",
                                     "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 30\n"
                                     "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\"} 70 1700000000500\n");
  TelemetryOptions opt;
  opt.scrape_time = Seconds(kT0 + 5);
  opt.host = "fallback";
  TelemetryData t = MustRead(ReadDcgmExposition(path, opt));
  ASSERT_EQ(t.tracks.size(), 2u);
  EXPECT_EQ(t.tracks[0].host, "fallback");
  EXPECT_EQ(t.tracks[0].time, (std::vector<Micros>{Seconds(kT0 + 5)}));
  EXPECT_EQ(t.tracks[1].time, (std::vector<Micros>{Micros(1700000000500000)}));  // own stamp wins
  EXPECT_EQ(t.warnings.total(), 0);
}

TEST(TelemetryExposition, BlanksAroundLabelsAsInTheGoParser) {
  const std::string path = WriteFile(TempDir() + "/b.prom",
                                     "DCGM_FI_DEV_GPU_UTIL {pod=\"p\" , gpu = \"2\" ,}7 1000\n"
                                     "  DCGM_FI_DEV_GPU_UTIL\t8\t2000  \r\n");
  TelemetryData t = MustRead(ReadDcgmExposition(path));
  ASSERT_EQ(t.tracks.size(), 2u);
  EXPECT_EQ(t.tracks[0].job, "");  // the unlabelled series sorts first
  EXPECT_EQ(t.tracks[0].busy, (std::vector<float>{0.08f}));
  EXPECT_EQ(t.tracks[1].job, "p");
  EXPECT_EQ(t.tracks[1].gpu, 2);
  EXPECT_EQ(t.tracks[1].busy, (std::vector<float>{0.07f}));
  EXPECT_EQ(t.tracks[1].time, (std::vector<Micros>{Micros(1000000)}));
}

TEST(TelemetryExposition, RangeAndSentinels) {
  const std::string path =
      WriteFile(TempDir() + "/r.prom",
                "DCGM_FI_DEV_GPU_UTIL{Hostname=\"h\"} 101 1000\n"
                "DCGM_FI_DEV_GPU_UTIL{Hostname=\"h\"} -1 2000\n"
                "DCGM_FI_DEV_GPU_UTIL{Hostname=\"h\"} 18446744073709551615 3000\n"
                "DCGM_FI_PROF_SM_ACTIVE{Hostname=\"h\"} 140737488355328 4000\n"
                "DCGM_FI_PROF_SM_ACTIVE{Hostname=\"h\"} 1.5 5000\n"
                "DCGM_FI_PROF_SM_ACTIVE{Hostname=\"h\"} +Inf 6000\n"
                "DCGM_FI_PROF_SM_ACTIVE{Hostname=\"h\"} 1.0000000001 7000\n");
  TelemetryData t = MustRead(ReadDcgmExposition(path));
  EXPECT_EQ(t.warnings.count(kWarnRange), 3);
  EXPECT_EQ(t.warnings.count(kWarnBlank), 2);
  EXPECT_EQ(t.warnings.count(kWarnNonFinite), 1);
  ASSERT_EQ(t.tracks.size(), 1u);  // only the clamped 1.0000000001 survives
  EXPECT_EQ(t.tracks[0].busy, (std::vector<float>{1.0f}));
  EXPECT_EQ(t.tracks[0].time, (std::vector<Micros>{Micros(7000000)}));
}

TEST(TelemetryExposition, BadLinesNameFileAndLine) {
  EXPECT_EQ(ErrorOf("# HELP x\n\nDCGM_FI_DEV_GPU_UTIL{gpu=\"0\" 5 1\n"),
            ":3: field 'labels': expected ',' or '}', got '5 1'");
  EXPECT_EQ(ErrorOf("DCGM_FI_DEV_GPU_UTIL{pod=\"a\\tb\"} 5 1\n"),
            ":1: field 'labels': expected an escape \\\\, \\\" or \\n in label 'pod', got '\\t'");
  EXPECT_EQ(ErrorOf("DCGM_FI_DEV_GPU_UTIL{pod=\"a} 5 1\n"),
            ":1: field 'labels': expected a closing '\"' for label 'pod', got 'pod=\"a} 5 1'");
  EXPECT_EQ(ErrorOf("DCGM_FI_DEV_GPU_UTIL{pod=a} 5 1\n"),
            ":1: field 'labels': expected a quoted value for label 'pod', got 'a} 5 1'");
  EXPECT_EQ(ErrorOf("DCGM_FI_DEV_GPU_UTIL 5x 1\n"),
            ":1: field 'value': expected a number, got '5x'");
  EXPECT_EQ(ErrorOf("DCGM_FI_DEV_GPU_UTIL 5 1.5\n"),
            ":1: field 'timestamp': expected milliseconds since the UNIX epoch (integer), got "
            "'1.5'");
  EXPECT_EQ(ErrorOf("DCGM_FI_DEV_GPU_UTIL 5 1 extra\n"),
            ":1: field 'timestamp': expected the end of the line, got 'extra'");
  EXPECT_EQ(ErrorOf("DCGM_FI_DEV_GPU_UTIL{}\n"),
            ":1: field 'value': expected a sample value, got ''");
  EXPECT_EQ(ErrorOf("9metric 1\n"), ":1: field 'metric': expected a metric name, got '9metric 1'");
  EXPECT_EQ(ErrorOf("DCGM_FI_DEV_GPU_UTIL-5 1\n"),
            ":1: field 'metric': expected a metric name followed by a blank or '{', got "
            "'DCGM_FI_DEV_GPU_UTIL-5 1'");
  EXPECT_EQ(ErrorOf("DCGM_FI_DEV_GPU_UTIL{gpu=\"x\"} 5 1\n"),
            ":1: field 'gpu': expected a GPU index (integer >= 0), got 'x'");
  EXPECT_EQ(ErrorOf("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5\n"),
            ":1: sample has no timestamp and no scrape time was given");
}

TEST(TelemetryExposition, EveryTruncationIsReadOrRejectedWithALine) {
  const std::string text = testutil::ReadFile(Fixture("telemetry/dcgm_exporter.prom"));
  const std::string path = TempDir() + "/cut.prom";
  for (size_t n = 0; n <= text.size(); n += 7) {
    WriteFile(path, text.substr(0, n));
    auto r = ReadDcgmExposition(path);
    if (!r.ok()) {
      EXPECT_EQ(r.status().message().rfind(path + ":", 0), 0u) << r.status().message();
    }
  }
}

TEST(TelemetryExposition, MissingFileIsAnError) {
  auto r = ReadDcgmExposition(TempDir() + "/none.prom");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot open"), std::string::npos);
}

TEST(TelemetryScrapes, DirectoryOfScrapeFilesNamedByTime) {
  auto files = ListScrapeFiles(Fixture("telemetry/scrapes"));
  ASSERT_TRUE(files.ok()) << files.status().message();
  ASSERT_EQ(files.value().size(), 2u);
  EXPECT_EQ(files.value()[0].time, Seconds(kT0));
  EXPECT_EQ(files.value()[1].time, Micros(1700000030500000));
  // Reading them in reverse order still sorts by scrape time.
  std::vector<ScrapeFile> reversed{files.value()[1], files.value()[0]};
  TelemetryData t = MustRead(ReadDcgmScrapes(reversed));
  ASSERT_EQ(t.tracks.size(), 1u);
  const UtilTrack& tr = t.tracks[0];
  EXPECT_EQ(tr.job, "cuda-1");
  EXPECT_EQ(tr.namespace_name, "default");
  EXPECT_EQ(tr.container, "cuda");
  EXPECT_EQ(tr.host, "gpu-a");
  EXPECT_EQ(tr.signal, UtilSignal::kSmActive);
  EXPECT_EQ(tr.time, (std::vector<Micros>{Seconds(kT0), Micros(1700000030500000)}));
  EXPECT_EQ(tr.busy, (std::vector<float>{0.125f, 0.375f}));
  EXPECT_EQ(tr.mem_bytes, (std::vector<int64_t>{512 * kMiB, 1536 * kMiB}));
  EXPECT_EQ(t.warnings.total(), 0);
  EXPECT_EQ(t.rows_read, 4);
}

TEST(TelemetryScrapes, BadFileNameIsAnError) {
  const std::string dir = TempDir();
  WriteFile(dir + "/.hidden", "");
  WriteFile(dir + "/scrape-a.prom", "");
  auto files = ListScrapeFiles(dir);
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().message(),
            dir + "/scrape-a.prom: expected a file name <unix seconds>[.ext], got 'scrape-a.prom'");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
