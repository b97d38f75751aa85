// `make bench` parse throughput: the largest trace files through their
// readers, and the canonical CSV of the one-million-job benchmark workload.
// Prints one line per input: rows, bytes (uncompressed), seconds, rows/s, MB/s
// of the fastest of three reads (reps).
// The AAIC quarters are read twice: as stored (gzip) and decompressed into
// TMP_DIR first (the reader's own speed, without zlib's).
//
// Usage: bench_parse TRACES_DIR TMP_DIR [ONLY]   (ONLY: run the inputs whose
// name starts with it, e.g. "canonical", for a profile of one reader)
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <tuple>

#include "utilsim/traces/aaic.h"
#include "utilsim/traces/canonical.h"
#include "utilsim/traces/dlrm.h"
#include "utilsim/traces/itp.h"
#include "utilsim/traces/openb.h"
#include "utilsim/traces/telemetry.h"
#include "utilsim/workloads/synthetic.h"

namespace {

using namespace utilsim;
namespace fs = std::filesystem;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string only;  // name prefix of the inputs to run ("" = all)

bool Wanted(const char* name) { return std::string(name).rfind(only, 0) == 0; }

// Each input is read kReps times and the fastest read is reported: one read
// (its result freed inside the timing, as a run frees it) drifts by 30 % on
// a VM whose speed changes from one second to the next.
constexpr int kReps = 3;

void Report(const char* name, const std::function<std::pair<int64_t, int64_t>()>& read) {
  if (!Wanted(name)) return;
  double s = 0;
  int64_t rows = -1, bytes = 0;
  for (int rep = 0; rep < kReps; ++rep) {
    const double t0 = Now();
    std::tie(rows, bytes) = read();
    const double t = Now() - t0;
    if (rows < 0) {
      std::printf("input=%s skipped (absent or unreadable)\n", name);
      return;
    }
    s = rep == 0 ? t : std::min(s, t);
  }
  std::printf("input=%s rows=%lld bytes=%lld seconds=%.3f rows_per_s=%.0f mb_per_s=%.1f reps=%d\n",
              name, static_cast<long long>(rows), static_cast<long long>(bytes), s,
              static_cast<double>(rows) / s, static_cast<double>(bytes) / 1e6 / s, kReps);
}

// Writes the decompressed bytes of gzip file `from` to `to`; false on any
// failure.
bool Gunzip(const std::string& from, const std::string& to) {
  gzFile in = gzopen(from.c_str(), "rb");
  if (in == nullptr) return false;
  std::FILE* out = std::fopen(to.c_str(), "wb");
  bool ok = out != nullptr;
  char buf[1 << 16];
  for (int n; ok && (n = gzread(in, buf, sizeof buf)) != 0;) {
    ok = n > 0 && std::fwrite(buf, 1, static_cast<size_t>(n), out) == static_cast<size_t>(n);
  }
  gzclose(in);
  if (out != nullptr) ok = std::fclose(out) == 0 && ok;
  return ok;
}

template <typename R>
std::pair<int64_t, int64_t> Counts(const R& r) {
  if (!r.ok()) return {-1, 0};
  return {r.value().rows_read, r.value().bytes_read};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_parse TRACES_DIR TMP_DIR [ONLY]\n");
    return 2;
  }
  const std::string dir = argv[1], tmp = argv[2];
  if (argc > 3) only = argv[3];
  auto p = [&](const std::string& rel) { return dir + "/" + rel; };
  Report("aaic-2017Q3..2018Q1.csv.gz", [&] {
    return Counts(
        traces::ReadAaic({p("aist-aaic/aaicwl-2017Q3.csv.gz"), p("aist-aaic/aaicwl-2017Q4.csv.gz"),
                          p("aist-aaic/aaicwl-2018Q1.csv.gz")}));
  });
  {
    // Decompressed before the clock starts.
    const char* name = "aaic-plain-2017Q3..2018Q1.csv";
    std::vector<std::string> plain;
    for (const char* q : {"2017Q3", "2017Q4", "2018Q1"}) {
      const std::string file = std::string("aaicwl-") + q + ".csv";
      plain.push_back(tmp + "/" + file);
      if (Wanted(name) && !Gunzip(p("aist-aaic/" + file + ".gz"), plain.back())) plain.clear();
    }
    Report(name, [&] {
      if (plain.empty()) return std::pair<int64_t, int64_t>{-1, 0};
      return Counts(traces::ReadAaic(plain));
    });
  }
  Report("openb_pod_list_default.csv", [&] {
    return Counts(traces::ReadOpenbPods(p("alibaba-gpu-v2023/openb_pod_list_default.csv")));
  });
  Report("itp-cluster01..10.csv", [&] {
    std::vector<std::string> files;
    for (int i = 1; i <= 10; ++i) {
      char name[64];
      std::snprintf(name, sizeof name, "microsoft-itp-elasticflow/raw-traces/cluster%02d.csv", i);
      files.push_back(p(name));
    }
    return Counts(traces::ReadItp(files));
  });
  Report("dlrm.csv", [&] {
    return Counts(traces::ReadDlrm(p("alibaba-gpu-v2025-dlrm/disaggregated_DLRM_trace.csv")));
  });
  Report("genai-duty-cycle+memory.csv", [&] {
    auto t = traces::ReadGenAiPodUtil(p("alibaba-genai-v2026/pod_gpu_duty_cycle_anon.csv"),
                                      p("alibaba-genai-v2026/pod_gpu_memory_used_bytes_anon.csv"));
    if (!t.ok()) return std::pair<int64_t, int64_t>{-1, 0};
    const int64_t bytes = static_cast<int64_t>(
        fs::file_size(p("alibaba-genai-v2026/pod_gpu_duty_cycle_anon.csv")) +
        fs::file_size(p("alibaba-genai-v2026/pod_gpu_memory_used_bytes_anon.csv")));
    return std::pair<int64_t, int64_t>{t.value().rows_read, bytes};
  });
  // The canonical CSV of the 1M-job benchmark workload (written first).
  const std::string jobs = tmp + "/bench-jobs.csv";
  {
    Workload w = GenerateSynthetic(BenchParams(), 1);
    if (!traces::WriteJobsCsv(w, jobs).ok()) return 1;
  }
  Report("canonical-1M-jobs.csv", [&] {
    auto w = traces::ReadJobsCsv(jobs);
    if (!w.ok()) return std::pair<int64_t, int64_t>{-1, 0};
    return std::pair<int64_t, int64_t>{static_cast<int64_t>(w.value().jobs.size()),
                                       static_cast<int64_t>(fs::file_size(jobs))};
  });
  return 0;
}
