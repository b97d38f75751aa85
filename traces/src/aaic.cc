// Reader of the AIST AAIC quarter files (utilsim/traces/aaic.h,
// docs/formats/aaic.md). AaicCluster is in aaic_cluster.cc.
#include "utilsim/traces/aaic.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <string_view>
#include <unordered_map>

#include "csv_input.h"
#include "row_helpers.h"
#include "utilsim/engine/huge_pages.h"
#include "utilsim/engine/units.h"
#include "utilsim/traces/csv.h"

namespace utilsim::traces {

namespace {

// Counts for the notes.
struct AaicTally {
  std::map<int64_t, int64_t> termcode, queue, nodes, gpus;
  std::vector<std::pair<std::string, int64_t>> files;  // stem, jobs
};

enum Col : int {
  kId,
  kUser,
  kGroup,
  kQueue,
  kNodes,
  kGpus,
  kWalltimeReq,
  kTermcode,
  kSubmit,
  kStart,
  kEnd,
  kWaittime,
  kWalltime,
  kNumCols,
};

constexpr std::array<const char*, kNumCols> kNames = {
    "id",       "user",        "group",      "queue",    "nodes",    "gpus",     "walltime_req",
    "termcode", "time_submit", "time_start", "time_end", "waittime", "walltime",
};

struct Range {
  int64_t lo, hi;
  const char* what;
};

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr auto kMaxSec = static_cast<int64_t>(kMaxSeconds);

// Accepted values of each column, in column order.
constexpr std::array<Range, kNumCols> kRanges = {{
    {0, kI64Max, "an integer >= 0"},
    {0, kI64Max, "an integer >= 0"},
    {0, kI64Max, "an integer >= 0"},
    {0, kI32Max, "an integer 0..2147483647"},
    {1, 1000000, "an integer 1..1000000"},
    {1, kAaicGpusPerNode, "an integer 1..8"},
    {0, kMaxSec, "seconds >= 0"},
    {kI64Min, kI64Max, "an integer"},
    {0, kMaxSec, "UNIX seconds >= 0"},
    {0, kMaxSec, "UNIX seconds >= 0"},
    {0, kMaxSec, "UNIX seconds >= 0"},
    {kI64Min, kI64Max, "an integer"},
    {kI64Min, kI64Max, "an integer"},
}};

// Per-file state: ids seen (id -> line) and tenants by group.
struct FileState {
  std::string stem;
  std::unordered_map<int64_t, int64_t> id_line;
  std::unordered_map<int64_t, uint32_t> tenant_of_group;
};

Status ParseRow(const CsvReader& csv, const std::array<int, kNumCols>& idx, const AaicOptions& opt,
                FileState* fs, TraceData* out, AaicTally* tally) {
  std::array<int64_t, kNumCols> v{};
  for (int c = 0; c < kNumCols; ++c) {
    const Range& r = kRanges[static_cast<size_t>(c)];
    UTILSIM_RETURN_IF_ERROR(
        internal::IntIn(csv, static_cast<size_t>(idx[c]), r.lo, r.hi, r.what, &v[c]));
  }
  auto field = [&](Col c) { return static_cast<size_t>(idx[c]); };
  auto [it, fresh] = fs->id_line.emplace(v[kId], csv.line());
  if (!fresh) {
    return csv.FieldError(field(kId),
                          "an id not already used on line " + std::to_string(it->second));
  }
  if (v[kStart] < v[kSubmit]) {
    return csv.FieldError(field(kStart),
                          "UNIX seconds >= time_submit (" + std::to_string(v[kSubmit]) + ")");
  }
  if (v[kEnd] < v[kStart]) {
    return csv.FieldError(field(kEnd),
                          "UNIX seconds >= time_start (" + std::to_string(v[kStart]) + ")");
  }
  Job job;
  job.name = fs->stem + ":" + std::to_string(v[kId]);
  const int64_t run = v[kEnd] - v[kStart];
  if (run != v[kWalltime]) {
    internal::WarnAt(&out->warnings, csv, kAaicWarnWalltimeDiffers,
                     "job " + job.name + ": time_end - time_start " + std::to_string(run) +
                         " s, walltime " + std::to_string(v[kWalltime]) + " s");
  }
  if (v[kStart] - v[kSubmit] != v[kWaittime]) {
    internal::WarnAt(&out->warnings, csv, kAaicWarnWaittimeDiffers,
                     "job " + job.name + ": time_start - time_submit " +
                         std::to_string(v[kStart] - v[kSubmit]) + " s, waittime " +
                         std::to_string(v[kWaittime]) + " s");
  }
  if (run == 0) {
    internal::WarnAt(&out->warnings, csv, kAaicWarnZeroRuntime, "job " + job.name);
  }
  // Absolute UNIX times for now; ReadAaic subtracts the common origin.
  job.submit = Seconds(v[kSubmit]);
  job.recorded_start = Seconds(v[kStart]);
  job.runtime = Seconds(run == 0 ? 1 : run);
  int64_t gpus = v[kGpus];
  if (v[kNodes] > 1 && gpus < kAaicGpusPerNode) {
    internal::WarnAt(&out->warnings, csv, kAaicWarnMultiNodeGpus,
                     "job " + job.name + ": nodes " + std::to_string(v[kNodes]) + ", gpus " +
                         std::to_string(gpus));
    gpus = kAaicGpusPerNode;
  }
  if (v[kNodes] > opt.nodes) {
    internal::WarnAt(&out->warnings, csv, kAaicWarnTooLarge,
                     "job " + job.name + ": nodes " + std::to_string(v[kNodes]) + " > " +
                         std::to_string(opt.nodes));
  }
  job.tasks = static_cast<int32_t>(v[kNodes]);
  job.task.gpus = static_cast<int32_t>(gpus);
  job.task.cpu_milli = gpus * kAaicCpuMilliPerGpu;
  job.task.mem_bytes = gpus * kAaicMemBytesPerGpu;
  if (v[kWalltimeReq] == 0) {
    internal::WarnAt(&out->warnings, csv, kAaicWarnNoWalltimeReq, "job " + job.name);
  } else {
    job.walltime_limit = Seconds(v[kWalltimeReq]);
    // AAIC's scheduler ends jobs at their request (termcode 2, "walltime
    // exceeded"; the recorded runtime is capped there).
    job.kill_at_limit = true;
  }
  if (v[kTermcode] < 0 || v[kTermcode] > 4) {
    internal::WarnAt(&out->warnings, csv, kAaicWarnUnknownTermcode,
                     "job " + job.name + ": termcode " + std::to_string(v[kTermcode]));
  }
  job.priority = static_cast<int32_t>(v[kQueue]);
  auto t = fs->tenant_of_group.find(v[kGroup]);
  if (t == fs->tenant_of_group.end()) {
    const uint32_t index = out->workload.InternTenant(fs->stem + ":g" + std::to_string(v[kGroup]));
    t = fs->tenant_of_group.emplace(v[kGroup], index).first;
  }
  job.tenant = t->second;
  ++tally->termcode[v[kTermcode]];
  ++tally->queue[v[kQueue]];
  ++tally->nodes[v[kNodes]];
  ++tally->gpus[gpus];
  out->workload.jobs.push_back(std::move(job));
  return Status::Ok();
}

Status ReadOneFile(const std::string& path, const std::string& stem, const AaicOptions& opt,
                   TraceData* out, AaicTally* tally) {
  const int64_t* bytes = nullptr;  // counted as the reader reads: no second pass
  auto opened = internal::OpenCounted(path, &bytes);
  if (!opened.ok()) return opened.status();
  CsvReader csv(std::move(opened).value());
  std::vector<internal::ColumnSpec> specs;
  for (const char* name : kNames) specs.push_back({name, true});
  auto found = internal::FindColumns(csv, specs);
  if (!found.ok()) return found.status();
  std::array<int, kNumCols> idx{};
  for (size_t c = 0; c < idx.size(); ++c) idx[c] = found.value()[c];
  FileState fs;
  fs.stem = stem;
  const size_t first = out->workload.jobs.size();
  {
    // Room for the rows of a plain file (rows are 60-80 bytes; more room is
    // never touched); a gzip file's rows are grown as they come. In huge
    // pages (utilsim/engine/huge_pages.h): fewer page faults.
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec) ReserveHuge(out->workload.jobs, first + std::min<size_t>(size / 48, 50'000'000));
  }
  for (;;) {
    auto more = csv.Next();
    if (!more.ok()) return more.status();
    if (!more.value()) break;
    ++out->rows_read;
    UTILSIM_RETURN_IF_ERROR(ParseRow(csv, idx, opt, &fs, out, tally));
  }
  tally->files.push_back({stem, static_cast<int64_t>(out->workload.jobs.size() - first)});
  out->bytes_read += *bytes;
  return Status::Ok();
}

std::string Counts(const std::map<int64_t, int64_t>& m, const char* const* names = nullptr,
                   int64_t num_names = 0) {
  std::string s;
  for (const auto& [k, n] : m) {
    if (!s.empty()) s += "; ";
    s += std::to_string(k);
    if (names && k >= 0 && k < num_names) s += std::string(" ") + names[k];
    s += ": " + internal::Thousands(n);
  }
  return s;
}

void AddNotes(int64_t origin, const AaicOptions& opt, const AaicTally& tally, TraceData* out) {
  std::vector<std::string>& notes = out->notes;
  notes.push_back(out->workload.jobs.empty()
                      ? "time origin: none (no jobs)"
                      : "time origin: UNIX " + std::to_string(origin) + " = " +
                            internal::UtcText(origin) + " (the earliest time_submit over " +
                            std::to_string(tally.files.size()) +
                            " file(s)); submit and recorded start are relative to it");
  std::string files = "jobs per file:";
  for (const auto& [stem, n] : tally.files) files += " " + stem + " " + internal::Thousands(n);
  notes.push_back(files);
  notes.push_back("cluster: " + std::to_string(opt.nodes) +
                  " nodes x 8 GPUs (model not stated: AAIC-GPU, memory unknown), 20 cores, "
                  "256 GiB (documented in the AAIC README, not read from the file; 50 installed, "
                  "the scheduler managed 32 to 40)");
  notes.push_back(
      "runtime = time_end - time_start (the time the job held its nodes); the walltime column "
      "is capped at walltime_req where a job overran its limit");
  notes.push_back(
      "cpu and memory per job are not in the trace: 2,500 milli-cores and 32 GiB per GPU (a "
      "node's 20 cores and 256 GiB split over its 8 GPUs)");
  static const char* const kTermNames[] = {"(success)", "(fail)", "(walltime exceeded)",
                                           "(cancelled by user)", "(cancelled by system)"};
  notes.push_back("termcode: " + Counts(tally.termcode, kTermNames, 5));
  notes.push_back("queue (= priority): " + Counts(tally.queue));
  notes.push_back("nodes (= tasks): " + Counts(tally.nodes));
  notes.push_back("gpus per node (after the multi-node fix): " + Counts(tally.gpus));
  std::vector<int64_t> waits;
  waits.reserve(out->workload.jobs.size());
  int64_t sum = 0;
  for (const Job& j : out->workload.jobs) {
    waits.push_back((*j.recorded_start - j.submit).us / kMicrosPerSecond);
    sum += waits.back();
  }
  if (!waits.empty()) {
    std::sort(waits.begin(), waits.end());
    const size_t n = waits.size();
    const double median = n % 2 ? static_cast<double>(waits[n / 2])
                                : 0.5 * static_cast<double>(waits[n / 2 - 1] + waits[n / 2]);
    notes.push_back("recorded wait (time_start - time_submit): median " + internal::Num(median) +
                    " s, mean " + internal::Num(static_cast<double>(sum) / static_cast<double>(n)) +
                    " s, max " + internal::Thousands(waits.back()) + " s");
  }
}

}  // namespace

bool LooksLikeAaic(const std::vector<std::string>& header) {
  std::vector<std::string_view> names(kNames.begin(), kNames.end());
  return internal::HeaderHas(header, names);
}

Result<TraceData> ReadAaic(const std::vector<std::string>& paths, const AaicOptions& opt) {
  if (paths.empty()) return Status::Error("ReadAaic: no input files");
  if (opt.nodes < 1 || opt.nodes > 1000000) {
    return Status::Error("AaicOptions.nodes: expected 1..1000000, got " +
                         std::to_string(opt.nodes));
  }
  TraceData out;
  AaicTally tally;
  std::unordered_map<std::string, std::string> path_of_stem;
  for (const std::string& path : paths) {
    const std::string stem = internal::FileStem(path);
    auto [it, fresh] = path_of_stem.emplace(stem, path);
    if (!fresh) {
      return Status::Error(path + ": same file stem '" + stem + "' as " + it->second +
                           " (job names would repeat)");
    }
    UTILSIM_RETURN_IF_ERROR(ReadOneFile(path, stem, opt, &out, &tally));
  }
  Workload& w = out.workload;
  int64_t origin_us = w.jobs.empty() ? 0 : w.jobs.front().submit.us;
  for (const Job& j : w.jobs) origin_us = std::min(origin_us, j.submit.us);
  const Micros origin(origin_us);
  for (Job& j : w.jobs) {
    j.submit = j.submit - origin;
    j.recorded_start = *j.recorded_start - origin;
  }
  for (size_t i = 0; i < paths.size(); ++i) w.source += (i ? "," : "") + paths[i];
  w.Finalize();
  out.cluster = AaicCluster(opt.nodes);
  AddNotes(origin_us / kMicrosPerSecond, opt, tally, &out);
  return out;
}

}  // namespace utilsim::traces
