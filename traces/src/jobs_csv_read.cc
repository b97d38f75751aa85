// Reader of the canonical jobs CSV (docs/trace-format.md).
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <unordered_map>

#include "csv_input.h"
#include "jobs_columns.h"
#include "name_index.h"
#include "row_helpers.h"
#include "utilsim/engine/huge_pages.h"
#include "utilsim/traces/canonical.h"
#include "utilsim/traces/csv.h"

namespace utilsim::traces {

namespace {

using internal::JobCol;
using internal::kJobColumns;
using internal::kMiB;
using internal::kNumJobCols;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<UtilSignal> ParseSignal(std::string_view name) {
  for (UtilSignal s : {UtilSignal::kGpuUtil, UtilSignal::kSmActive, UtilSignal::kGrEngineActive,
                       UtilSignal::kSynthetic}) {
    if (name == UtilSignalName(s)) return s;
  }
  return std::nullopt;
}

// Parses the fields of one row. Absent columns read as empty fields, and an
// empty optional field means the default.
class RowParser {
 public:
  RowParser(const CsvReader& csv, const std::array<int, kNumJobCols>& idx) : csv_(csv), idx_(idx) {}

  std::string_view Text(JobCol c) const {
    return idx_[c] < 0 ? std::string_view() : csv_.field(static_cast<size_t>(idx_[c]));
  }
  bool Empty(JobCol c) const { return Text(c).empty(); }

  Status Bad(JobCol c, std::string_view expected) const {
    if (idx_[c] >= 0) return csv_.FieldError(static_cast<size_t>(idx_[c]), expected);
    return csv_.RowError("field '" + std::string(kJobColumns[c]) + "': expected " +
                         std::string(expected) + ", got ''");
  }

  // Seconds, >= 0 (or > 0 when `positive`).
  Status Time(JobCol c, bool positive, Micros* out) const {
    auto t = ParseSeconds(Text(c));
    if (!t || t->us < 0 || (positive && t->us == 0)) {
      return Bad(c, positive ? "seconds > 0" : "seconds >= 0");
    }
    *out = *t;
    return Status::Ok();
  }

  // Integer in [lo, hi].
  Status Int(JobCol c, int64_t lo, int64_t hi, std::string_view expected, int64_t* out) const {
    const size_t i = static_cast<size_t>(idx_[c]);
    int64_t v = 0;
    if (!internal::PlainDigits(csv_.field(i), &v)) {
      auto parsed = csv_.Int(i);
      if (!parsed.ok()) return Bad(c, expected);
      v = parsed.value();
    }
    if (v < lo || v > hi) return Bad(c, expected);
    *out = v;
    return Status::Ok();
  }

  // Float in [0, 1].
  Status Fraction(JobCol c, float* out) const {
    auto v = csv_.Float(static_cast<size_t>(idx_[c]));
    if (!v.ok() || !(v.value() >= 0.0f && v.value() <= 1.0f)) return Bad(c, "a fraction 0..1");
    *out = v.value();
    return Status::Ok();
  }

  // GB/s (1e9 bytes/s) >= 0, as bytes/s.
  Status GbS(JobCol c, double* bytes_s) const {
    auto v = csv_.Double(static_cast<size_t>(idx_[c]));
    if (!v.ok() || !(v.value() >= 0) || v.value() > 1e6) return Bad(c, "GB/s >= 0");
    *bytes_s = v.value() * 1e9;
    return Status::Ok();
  }

  // Tokens per step: a number > 0.
  Status Tokens(JobCol c, float* out) const {
    auto v = csv_.Double(static_cast<size_t>(idx_[c]));
    if (!v.ok() || !(v.value() > 0) || v.value() > 1e9)
      return Bad(c, "a number > 0 (batch x sequence length)");
    *out = static_cast<float>(v.value());
    return Status::Ok();
  }

  // Non-negative MiB, possibly fractional, as bytes.
  Status MiB(JobCol c, int64_t* bytes) const {
    const size_t i = static_cast<size_t>(idx_[c]);
    int64_t whole = 0;
    double v = 0;
    if (internal::PlainDigits(csv_.field(i), &whole)) {
      // Converted as CsvReader::Double would: both round to nearest.
      v = static_cast<double>(whole);
    } else {
      auto parsed = csv_.Double(i);
      if (!parsed.ok()) return Bad(c, "MiB >= 0");
      v = parsed.value();
    }
    if (!(v >= 0) || v > 8.0e12) return Bad(c, "MiB >= 0");
    *bytes = std::llround(v * static_cast<double>(kMiB));
    return Status::Ok();
  }

 private:
  const CsvReader& csv_;
  const std::array<int, kNumJobCols>& idx_;
};

struct ReadState {
  std::filesystem::path folder;
  internal::NameIndex ids;
  std::vector<int64_t> lines;  // line of each job, in file order
  std::unordered_map<std::string, int32_t> series_by_path;
  std::unordered_map<std::string, uint32_t> tenants;
  std::string last_tenant;
  uint32_t last_tenant_index = 0;
  bool has_last_tenant = false;
};

#define UTILSIM_TRY(expr)               \
  do {                                  \
    if (Status _s = (expr); !_s.ok()) { \
      return _s;                        \
    }                                   \
  } while (0)

// Loads (once per distinct path) the series named in the profile column and
// sets the job's series and util.
Status LoadProfile(const CsvReader& csv, const RowParser& row, ReadState* st, Workload* w,
                   Job* job) {
  std::filesystem::path rel(row.Text(JobCol::kProfile));
  std::string full = (rel.is_absolute() ? rel : st->folder / rel).lexically_normal().string();
  auto it = st->series_by_path.find(full);
  if (it == st->series_by_path.end()) {
    auto series = ReadUtilSeriesCsv(full);
    if (!series.ok()) {
      const std::string msg = series.status().message();
      if (msg.rfind(full + ": cannot open: ", 0) == 0) {
        return row.Bad(JobCol::kProfile, "a readable utilization series file (" + msg + ")");
      }
      return Status::Error(msg + " (profile of job '" + job->name + "' at " + csv.source() + ":" +
                           std::to_string(csv.line()) + ")");
    }
    w->series.push_back(std::move(series).value());
    it = st->series_by_path.emplace(full, static_cast<int32_t>(w->series.size() - 1)).first;
  }
  job->series = it->second;
  job->util =
      static_cast<float>(SeriesMean(w->series[static_cast<size_t>(it->second)], job->runtime));
  job->util_known = true;
  return Status::Ok();
}

// The fields of a row other than its id and profile, into *job.
Status ParseFields(const RowParser& row, ReadState* st, Workload* w, Job* job) {
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
  constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
  using enum JobCol;
  UTILSIM_TRY(row.Time(kSubmit, false, &job->submit));
  UTILSIM_TRY(row.Time(kRuntime, true, &job->runtime));
  int64_t v = 0;
  if (!row.Empty(kTasks)) {
    UTILSIM_TRY(row.Int(kTasks, 1, 1000000, "an integer 1..1000000", &v));
    job->tasks = static_cast<int32_t>(v);
  }
  job->task.gpus = 1;
  if (!row.Empty(kGpus)) {
    UTILSIM_TRY(row.Int(kGpus, 0, 1000000, "an integer 0..1000000", &v));
    job->task.gpus = static_cast<int32_t>(v);
  }
  if (!row.Empty(kGpuMilli)) {
    UTILSIM_TRY(row.Int(kGpuMilli, 1, 1000, "an integer 1..1000", &v));
    if (v < 1000 && job->task.gpus != 1) {
      return row.Bad(kGpuMilli, "1000 when gpus is not 1 (fractions need gpus == 1)");
    }
    job->task.gpu_milli = static_cast<int32_t>(v);
  }
  if (!row.Empty(kCpuMilli)) {
    UTILSIM_TRY(row.Int(kCpuMilli, 0, kInt64Max, "an integer >= 0", &job->task.cpu_milli));
  }
  if (!row.Empty(kMemMib)) UTILSIM_TRY(row.MiB(kMemMib, &job->task.mem_bytes));
  if (!row.Empty(kGpuMemMib)) UTILSIM_TRY(row.MiB(kGpuMemMib, &job->task.gpu_mem_bytes));
  if (!row.Empty(kGpuModels)) {
    std::string_view rest = row.Text(kGpuModels);
    for (;;) {
      size_t bar = rest.find('|');
      std::string_view model = Trim(rest.substr(0, bar));
      if (model.empty()) return row.Bad(kGpuModels, "GPU model names separated by '|'");
      job->gpu_models.emplace_back(model);
      if (bar == std::string_view::npos) break;
      rest.remove_prefix(bar + 1);
    }
  }
  const std::string_view tenant =
      row.Empty(kTenant) ? std::string_view("default") : row.Text(kTenant);
  if (!st->has_last_tenant || tenant != st->last_tenant) {
    auto t = st->tenants.find(std::string(tenant));
    if (t == st->tenants.end()) {
      t = st->tenants.emplace(std::string(tenant), w->InternTenant(std::string(tenant))).first;
    }
    st->last_tenant = tenant;
    st->last_tenant_index = t->second;
    st->has_last_tenant = true;
  }
  job->tenant = st->last_tenant_index;
  if (!row.Empty(kPriority)) {
    UTILSIM_TRY(row.Int(kPriority, kInt32Min, kInt32Max, "a 32-bit integer", &v));
    job->priority = static_cast<int32_t>(v);
  }
  if (!row.Empty(kUtil)) {
    UTILSIM_TRY(row.Fraction(kUtil, &job->util));
    job->util_known = true;
  }
  if (!row.Empty(kRecordedStart)) {
    Micros start;
    UTILSIM_TRY(row.Time(kRecordedStart, false, &start));
    if (start < job->submit) return row.Bad(kRecordedStart, "seconds >= submit_s");
    job->recorded_start = start;
  }
  if (!row.Empty(kWalltime)) {
    Micros limit;
    UTILSIM_TRY(row.Time(kWalltime, true, &limit));
    job->walltime_limit = limit;
  }
  if (!row.Empty(kKillAtLimit)) {
    UTILSIM_TRY(row.Int(kKillAtLimit, 0, 1, "0 or 1", &v));
    if (v == 1 && !job->walltime_limit) return row.Bad(kKillAtLimit, "0 when walltime_s is empty");
    job->kill_at_limit = v == 1;
  }
  // Where the non-busy time went: fractions of the runtime that, with util,
  // may not exceed the whole.
  const std::pair<JobCol, float*> stalls[] = {{kStallInputCpu, &job->stalls.input_cpu},
                                              {kStallInputStorage, &job->stalls.input_storage},
                                              {kStallComm, &job->stalls.comm}};
  double parts = job->util_known ? static_cast<double>(job->util) : 0.0;
  for (const auto& [col, field] : stalls) {
    if (row.Empty(col)) continue;
    UTILSIM_TRY(row.Fraction(col, field));
    parts += static_cast<double>(*field);
    if (!job->util_known) return row.Bad(col, "util to be given with stall fractions");
    if (parts > 1.0 + 1e-6)
      return row.Bad(col, "util + stall fractions <= 1 (the parts of the runtime), total " +
                              std::to_string(parts).substr(0, 5));
  }
  if (!row.Empty(kNicGbS)) UTILSIM_TRY(row.GbS(kNicGbS, &job->nic_bytes_s));
  if (!row.Empty(kStorageGbS)) UTILSIM_TRY(row.GbS(kStorageGbS, &job->storage_bytes_s));
  if (!row.Empty(kHostCpuMilli)) {
    UTILSIM_TRY(row.Int(kHostCpuMilli, 0, kInt64Max, "an integer >= 0", &job->host_cpu_used_milli));
  }
  if (!row.Empty(kGpuMemUsedMib)) UTILSIM_TRY(row.MiB(kGpuMemUsedMib, &job->gpu_mem_used_bytes));
  if (!row.Empty(kJobKind)) {
    const std::string_view k = row.Text(kJobKind);
    if (k == "train")
      job->kind = JobKind::kTraining;
    else if (k == "infer")
      job->kind = JobKind::kInference;
    else
      return row.Bad(kJobKind, "train or infer");
  }
  if (!row.Empty(kTokensPerStep)) {
    UTILSIM_TRY(row.Tokens(kTokensPerStep, &job->tokens_per_step));
    if (job->kind == JobKind::kTraining)
      return row.Bad(kTokensPerStep, "empty for a training job (job_kind train)");
  }
  return Status::Ok();
}

// Parses the current row into *job, the last of w->jobs. Errors are those of
// the first field at fault in the order id, the other fields in column order,
// profile. The id is checked for repeats after the other fields, whose
// parsing gives the prefetched table slot time to arrive (errors keep their
// order: a field's error waits for the id's check).
Status ParseRow(const CsvReader& csv, const RowParser& row, ReadState* st, Workload* w, Job* job) {
  using enum JobCol;
  const std::string_view id = row.Text(kId);
  if (id.empty()) return row.Bad(kId, "a non-empty id");
  const uint64_t hash = internal::NameIndex::Hash(id);
  st->ids.Prefetch(hash);
  const Status fields = ParseFields(row, st, w, job);
  const auto index = static_cast<uint32_t>(w->jobs.size() - 1);
  int64_t prev = st->ids.FindOrInsert(id, hash, index, [&](uint32_t i) -> std::string_view {
    return i == index ? id : std::string_view(w->jobs[i].name);
  });
  if (prev >= 0) {
    return row.Bad(kId, "an id not already used on line " +
                            std::to_string(st->lines[static_cast<size_t>(prev)]));
  }
  if (!fields.ok()) return fields;
  st->lines.push_back(csv.line());
  job->name = id;
  if (!row.Empty(kProfile)) UTILSIM_TRY(LoadProfile(csv, row, st, w, job));
  return Status::Ok();
}

}  // namespace

Result<Workload> ReadJobsCsv(const std::string& path) {
  CsvOptions options;
  options.comment_prefix = "#";
  auto opened = CsvReader::Open(path, options);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  Workload w;
  w.source = path;
  for (const CsvComment& c : csv.leading_comments()) {
    std::string_view text = c.text;
    if (text.substr(0, 7) != "signal:") continue;
    std::string_view name = Trim(text.substr(7));
    auto signal = ParseSignal(name);
    if (!signal) {
      return Status::Error(path + ":" + std::to_string(c.line) +
                           ": signal: expected gpu_util|sm_active|gr_engine_active|synthetic, "
                           "got '" +
                           std::string(name) + "'");
    }
    w.signal = *signal;
  }
  std::array<int, kNumJobCols> idx;
  idx.fill(-1);
  const std::string at_header = path + ":" + std::to_string(csv.line()) + ": ";
  for (size_t i = 0; i < csv.columns().size(); ++i) {
    const std::string& name = csv.columns()[i];
    size_t c = 0;
    while (c < kJobColumns.size() && kJobColumns[c] != name) ++c;
    if (c == kJobColumns.size()) {
      return Status::Error(at_header + "unknown column '" + name +
                           "' (known: " + internal::JobColumnList() + ")");
    }
    if (idx[c] >= 0) return Status::Error(at_header + "duplicate column '" + name + "'");
    idx[c] = static_cast<int>(i);
  }
  for (JobCol c : {JobCol::kId, JobCol::kSubmit, JobCol::kRuntime}) {
    if (idx[c] < 0) {
      return Status::Error(at_header + "missing required column '" + std::string(kJobColumns[c]) +
                           "'");
    }
  }
  ReadState st;
  st.folder = std::filesystem::path(path).parent_path();
  RowParser row(csv, idx);
  {
    // Room for every row of a file whose rows average 48 bytes or more
    // (the benchmark's average 88; a gzip file's size as its trailer gives
    // it): without it, growing the vector moves every job several times and
    // touches twice the memory. Pages not used are never touched (not
    // resident). In huge pages (huge_pages.h): fewer page faults. The lines
    // of the ids likewise.
    const auto rows =
        std::min<size_t>(static_cast<size_t>(internal::PlainSizeHint(path) / 48), 50'000'000);
    ReserveHuge(w.jobs, rows);
    ReserveHuge(st.lines, rows);
  }
  for (;;) {
    auto next = csv.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    if (w.jobs.size() >= size_t{UINT32_MAX} - 1) return csv.RowError("more than 2^32 - 2 jobs");
    // Parsed in place: no copy of the 256-byte Job. On an error the
    // workload, half-filled job included, is dropped.
    Job& job = w.jobs.emplace_back();
    if (Status s = ParseRow(csv, row, &st, &w, &job); !s.ok()) return s;
  }
  w.Finalize();
  return w;
}

#undef UTILSIM_TRY

}  // namespace utilsim::traces
