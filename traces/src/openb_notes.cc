// Notes of an openb pod list (TraceData::notes) and the byte count of its
// input.
#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "csv_input.h"
#include "openb_internal.h"

namespace utilsim::traces::internal {

namespace {

// Whole numbers without decimals, others with one.
std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf,
                v == static_cast<double>(static_cast<int64_t>(v)) ? "%.0f" : "%.1f", v);
  return buf;
}

// "A 3, B 2" by count, descending (ties by name).
std::string Counts(const std::map<std::string, int64_t>& m) {
  std::vector<std::pair<std::string, int64_t>> v(m.begin(), m.end());
  std::stable_sort(v.begin(), v.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string s;
  for (const auto& [k, n] : v) s += (s.empty() ? "" : ", ") + k + " " + std::to_string(n);
  return s;
}

}  // namespace

int64_t CountInputBytes(const std::string& path) {
  auto in = OpenCsvInput(path);
  if (!in.ok()) return 0;
  std::vector<char> buf(size_t{1} << 16);
  int64_t total = 0;
  for (int64_t n; (n = in.value()->Read(buf.data(), buf.size())) > 0;) total += n;
  return total;
}

void AddOpenbPodNotes(bool has_phase, bool has_qos, bool has_times, const OpenbOptions& opt,
                      const OpenbPodTally& t, TraceData* out) {
  auto& notes = out->notes;
  const Workload& w = out->workload;
  const int64_t cpu_only = t.num_gpu.count(0) ? t.num_gpu.at(0) : 0;
  std::string ng;
  for (const auto& [g, n] : t.num_gpu) {
    ng += (ng.empty() ? "" : ", ") + std::to_string(g) + " -> " + std::to_string(n);
  }
  notes.push_back("pods: " + std::to_string(out->rows_read) + " rows, " +
                  std::to_string(w.jobs.size()) + " jobs (" +
                  std::to_string(out->rows_read - cpu_only) + " GPU pods, " +
                  std::to_string(cpu_only) + " CPU-only, " + std::to_string(t.sharing) +
                  " sharing a GPU with gpu_milli < 1000); num_gpu: " + ng);
  if (has_phase) notes.push_back("pod_phase: " + Counts(t.phase));
  if (has_qos) {
    notes.push_back("qos (tenants): " + Counts(t.qos) +
                    "; priority LS 3 > Guaranteed 2 > Burstable 1 > BE 0");
  } else {
    notes.push_back("no qos column: every pod is tenant 'default', priority 0");
  }
  if (!has_times) {
    notes.push_back(
        "no creation/deletion/scheduled times in the file: every pod submits at 0 in file order "
        "with an assumed runtime of " +
        std::to_string(opt.assumed_runtime_s) +
        " s (option assumed_runtime_s); meant for arrival-only packing (FGD), not for time "
        "replay");
    return;
  }
  if (t.min_creation != kNever) {
    notes.push_back("times: seconds relative to the trace start; creation_time " +
                    Num(t.min_creation.seconds()) + " .. " + Num(t.max_creation.seconds()) +
                    " s (" + Num((t.max_creation - t.min_creation).seconds() / 86400.0) +
                    " days), deletion_time max " + Num(t.max_deletion.seconds()) + " s");
  }
  notes.push_back(
      "never scheduled (empty scheduled_time): " + std::to_string(t.pending) + " pods, " +
      (opt.pending == OpenbPending::kSkip
           ? std::string("skipped (option pending=skip)")
           : std::string("run from creation_time to deletion_time without a recorded start")));
  const OpenbDelayStats d = SummarizeDelays(OpenbScheduleDelays(w));
  notes.push_back("recorded scheduling delay (scheduled_time - creation_time) of " +
                  std::to_string(d.count) + " scheduled pods: mean " + Num(d.mean_s) +
                  " s, median " + Num(d.median_s) + " s, max " + Num(d.max_s) + " s");
}

}  // namespace utilsim::traces::internal
