// Reader of the openb pod lists (openb_pod_list_*.csv) into a Workload; the
// mapping is documented in docs/formats/openb.md.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "name_index.h"
#include "openb_internal.h"
#include "utilsim/engine/units.h"
#include "utilsim/traces/csv.h"
#include "utilsim/traces/openb.h"

namespace utilsim::traces {

namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

// Columns: the first five are required, the next three optional, the times
// come all three or not at all.
// clang-format off
enum PodCol { kName, kCpuMilli, kMemoryMib, kNumGpu, kGpuMilli, kGpuSpec, kQos, kPodPhase,
              kCreation, kDeletion, kScheduled, kNumPodCols };
// clang-format on
constexpr std::array<const char*, kNumPodCols> kPodColumns = {
    "name", "cpu_milli", "memory_mib",    "num_gpu",       "gpu_milli",     "gpu_spec",
    "qos",  "pod_phase", "creation_time", "deletion_time", "scheduled_time"};

// One parsed row: the job plus what the notes and the pending rule need.
struct Row {
  Job job;
  bool pending = false;
};

#define UTILSIM_TRY(expr)               \
  do {                                  \
    if (Status _s = (expr); !_s.ok()) { \
      return _s;                        \
    }                                   \
  } while (0)

class PodParser {
 public:
  PodParser(const CsvReader& csv, const std::array<int, kNumPodCols>& idx, Warnings* warnings)
      : csv_(csv), idx_(idx), warnings_(warnings) {}

  bool Has(PodCol c) const { return idx_[c] >= 0; }
  size_t At(PodCol c) const { return static_cast<size_t>(idx_[c]); }
  std::string_view Text(PodCol c) const { return Has(c) ? csv_.field(At(c)) : ""; }
  void Warn(const std::string& kind, const std::string& detail) const {
    warnings_->Add(kind, csv_.source() + ":" + std::to_string(csv_.line()) + ": " + detail);
  }

  Status Int(PodCol c, int64_t lo, int64_t hi, const std::string& what, int64_t* out) const {
    auto v = csv_.Int(At(c));
    if (!v.ok() || v.value() < lo || v.value() > hi) return csv_.FieldError(At(c), what);
    *out = v.value();
    return Status::Ok();
  }
  Status Time(PodCol c, Micros* out) const {
    auto t = csv_.Time(At(c));
    if (!t.ok() || t.value().us < 0) return csv_.FieldError(At(c), "seconds >= 0");
    *out = t.value();
    return Status::Ok();
  }

  // Fills the demand of row->job from the resource columns.
  Status Demand(Row* row) const {
    TaskDemand& d = row->job.task;
    int64_t v = 0;
    UTILSIM_TRY(Int(kCpuMilli, 0, INT64_MAX / 2, "an integer >= 0", &d.cpu_milli));
    auto mib = csv_.Double(At(kMemoryMib));
    if (!mib.ok() || !(mib.value() >= 0) || mib.value() > 8.0e12) {
      return csv_.FieldError(At(kMemoryMib), "MiB >= 0");
    }
    d.mem_bytes = std::llround(mib.value() * static_cast<double>(kMiB));
    UTILSIM_TRY(Int(kNumGpu, 0, 1000000, "an integer 0..1000000", &v));
    d.gpus = static_cast<int32_t>(v);
    UTILSIM_TRY(Int(kGpuMilli, d.gpus == 1 ? 1 : 0, 1000,
                    d.gpus == 1 ? "an integer 1..1000 when num_gpu is 1" : "an integer 0..1000",
                    &v));
    d.gpu_milli = d.gpus == 1 ? static_cast<int32_t>(v) : kMilliPerUnit;
    if (d.gpus > 1 && v != kMilliPerUnit) {
      Warn("gpu_milli != 1000 with num_gpu > 1 (set to 1000)",
           "gpu_milli " + std::to_string(v) + " with num_gpu " + std::to_string(d.gpus));
    }
    return Status::Ok();
  }

  // Splits gpu_spec on '|' into row->job.gpu_models.
  Status Models(Row* row) const {
    std::string_view spec = Text(kGpuSpec);
    if (spec.empty()) return Status::Ok();
    if (row->job.task.gpus == 0) {
      Warn("gpu_spec on a CPU-only pod (ignored)", "gpu_spec '" + std::string(spec) + "'");
      return Status::Ok();
    }
    auto& models = row->job.gpu_models;
    while (true) {
      const size_t bar = spec.find('|');
      std::string_view m = spec.substr(0, bar);
      while (!m.empty() && m.front() == ' ') m.remove_prefix(1);
      while (!m.empty() && m.back() == ' ') m.remove_suffix(1);
      if (m.empty()) return csv_.FieldError(At(kGpuSpec), "GPU model names separated by '|'");
      if (std::find(models.begin(), models.end(), m) == models.end()) {
        models.emplace_back(m);
      } else {
        Warn("duplicate model in gpu_spec (dropped)",
             "'" + std::string(m) + "' in '" + std::string(Text(kGpuSpec)) + "'");
      }
      if (bar == std::string_view::npos) break;
      spec.remove_prefix(bar + 1);
    }
    return Status::Ok();
  }

  // Times: submit, recorded start and runtime; tallies the time span.
  Status Times(const OpenbOptions& opt, Row* row, internal::OpenbPodTally* tally) const {
    Job& j = row->job;
    if (!Has(kCreation)) {
      j.runtime = Seconds(opt.assumed_runtime_s);
      return Status::Ok();
    }
    Micros created, deleted;
    UTILSIM_TRY(Time(kCreation, &created));
    UTILSIM_TRY(Time(kDeletion, &deleted));
    j.submit = created;
    Micros from = created;
    if (!Text(kScheduled).empty()) {
      Micros scheduled;
      UTILSIM_TRY(Time(kScheduled, &scheduled));
      if (scheduled < created) {
        return csv_.FieldError(At(kScheduled),
                               "seconds >= creation_time (" + std::string(Text(kCreation)) + ")");
      }
      j.recorded_start = scheduled;
      from = scheduled;
    } else {
      row->pending = true;
    }
    j.runtime = deleted - from;
    const bool skipped = row->pending && opt.pending == OpenbPending::kSkip;
    if (j.runtime.us <= 0 && !skipped) {
      Warn("runtime <= 0 (clamped to 1 s)",
           "deletion_time " + std::string(Text(kDeletion)) + " <= " +
               (row->pending ? "creation_time " + std::string(Text(kCreation))
                             : "scheduled_time " + std::string(Text(kScheduled))));
      j.runtime = Seconds(1);
    }
    tally->min_creation = std::min(tally->min_creation, created);
    tally->max_creation = std::max(tally->max_creation, created);
    tally->max_deletion = std::max(tally->max_deletion, deleted);
    return Status::Ok();
  }

  // Tenant (interned in *w unless w is null: a skipped pod) and priority from
  // qos; phase consistency.
  Status Qos(Workload* w, Row* row, internal::OpenbPodTally* tally) const {
    if (Has(kQos)) {
      std::string_view qos = Text(kQos);
      const int32_t prio = OpenbQosPriority(qos);
      if (prio < 0) return csv_.FieldError(At(kQos), "one of LS, BE, Burstable, Guaranteed");
      row->job.priority = prio;
      if (w != nullptr) row->job.tenant = w->InternTenant(std::string(qos));
      ++tally->qos[std::string(qos)];
    }
    if (Has(kPodPhase)) {
      std::string_view phase = Text(kPodPhase);
      ++tally->phase[phase.empty() ? std::string("(empty)") : std::string(phase)];
      if (Has(kCreation) && (phase == "Pending") != row->pending) {
        Warn("pod_phase disagrees with scheduled_time", "pod_phase '" + std::string(phase) +
                                                            "', scheduled_time '" +
                                                            std::string(Text(kScheduled)) + "'");
      }
    }
    return Status::Ok();
  }

 private:
  const CsvReader& csv_;
  const std::array<int, kNumPodCols>& idx_;
  Warnings* warnings_;
};

}  // namespace

Result<TraceData> ReadOpenbPods(const std::string& pod_csv, const OpenbOptions& opt) {
  if (opt.assumed_runtime_s <= 0 || opt.assumed_runtime_s > static_cast<int64_t>(kMaxSeconds)) {
    return Status::Error(pod_csv + ": option assumed_runtime_s: expected seconds > 0, got '" +
                         std::to_string(opt.assumed_runtime_s) + "'");
  }
  auto opened = CsvReader::Open(pod_csv);
  if (!opened.ok()) return opened.status();
  CsvReader csv = std::move(opened).value();
  std::array<int, kNumPodCols> idx{};
  for (int c = 0; c < kNumPodCols; ++c) idx[c] = csv.Find(kPodColumns[c]);
  const bool any_time = idx[kCreation] >= 0 || idx[kDeletion] >= 0 || idx[kScheduled] >= 0;
  for (int c = 0; c < kNumPodCols; ++c) {
    const bool required = c <= kGpuMilli || (c >= kCreation && any_time);
    if (required && idx[c] < 0) {
      return Status::Error(pod_csv + ":" + std::to_string(csv.line()) +
                           ": missing required column '" + kPodColumns[c] + "'");
    }
  }

  TraceData out;
  Workload& w = out.workload;
  PodParser parser(csv, idx, &out.warnings);
  internal::OpenbPodTally tally;
  internal::NameIndex ids;
  std::vector<std::string> names;  // every row's name, also of skipped pods
  std::vector<int64_t> lines;
  while (true) {
    auto more = csv.Next();
    if (!more.ok()) return more.status();
    if (!more.value()) break;
    ++out.rows_read;
    Row row;
    std::string_view name = parser.Text(kName);
    if (name.empty()) return csv.FieldError(parser.At(kName), "a non-empty name");
    const auto index = static_cast<uint32_t>(names.size());
    const int64_t prev = ids.FindOrInsert(name, index, [&](uint32_t i) -> std::string_view {
      return i == index ? name : std::string_view(names[i]);
    });
    if (prev >= 0) {
      return csv.FieldError(parser.At(kName), "a name not already used on line " +
                                                  std::to_string(lines[static_cast<size_t>(prev)]));
    }
    names.emplace_back(name);
    lines.push_back(csv.line());
    row.job.name = std::string(name);
    UTILSIM_TRY(parser.Demand(&row));
    UTILSIM_TRY(parser.Models(&row));
    UTILSIM_TRY(parser.Times(opt, &row, &tally));
    const bool skip = row.pending && opt.pending == OpenbPending::kSkip;
    UTILSIM_TRY(parser.Qos(skip ? nullptr : &w, &row, &tally));
    ++tally.num_gpu[row.job.task.gpus];
    if (row.job.task.fractional()) ++tally.sharing;
    tally.pending += row.pending;
    if (skip) {
      parser.Warn("pending pod skipped", "pod '" + row.job.name + "' never scheduled");
      continue;
    }
    w.jobs.push_back(std::move(row.job));
  }
  out.bytes_read = internal::CountInputBytes(pod_csv);
  w.source = pod_csv;
  w.Finalize();
  internal::AddOpenbPodNotes(idx[kPodPhase] >= 0, idx[kQos] >= 0, idx[kCreation] >= 0, opt, tally,
                             &out);
  return out;
}

}  // namespace utilsim::traces
