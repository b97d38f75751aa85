// Reader of the AIST AAIC quarter files (utilsim/traces/aaic.h,
// docs/formats/aaic.md). AaicCluster is in aaic_cluster.cc.
#include "utilsim/traces/aaic.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <chrono>
#include <cstdio>
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

// Rows per value of one column, for the notes. Values 0..63 (all of AAIC's
// termcodes, queues, nodes and gpus so far) are counted in an array, others
// in a map: no tree lookup per row.
class AaicValueCounts {
 public:
  void Add(int64_t value) {
    if (value >= 0 && value < kDense) {
      ++dense_[static_cast<size_t>(value)];
    } else {
      ++sparse_[value];
    }
  }
  // Every value seen, in increasing order, with its count.
  std::map<int64_t, int64_t> Sorted() const {
    std::map<int64_t, int64_t> all = sparse_;
    for (int64_t v = 0; v < kDense; ++v) {
      if (dense_[static_cast<size_t>(v)] > 0) all[v] = dense_[static_cast<size_t>(v)];
    }
    return all;
  }

 private:
  static constexpr int64_t kDense = 64;
  std::array<int64_t, kDense> dense_{};
  std::map<int64_t, int64_t> sparse_;
};

// Counts for the notes.
struct AaicTally {
  AaicValueCounts termcode, queue, nodes, gpus;
  std::vector<std::pair<std::string, int64_t>> files;  // stem, jobs
};

// Lines of the ids seen in one file, for the duplicate check. While ids
// ascend (as in every AAIC quarter) a new id cannot repeat an old one, and
// ids and lines are only appended to a list; from the first id that does
// not ascend, they are looked up in an open-addressing table (linear
// probing, no heap node per id).
class AaicIdLines {
 public:
  // Asks the CPU to load the slot where FindOrInsert(id, ...) looks (a
  // hint: no effect on results), to have it in cache some work later.
  void Prefetch(int64_t id) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[Home(id) & (slots_.size() - 1)]);
  }
  // The line `id` was first seen on, or -1 after storing `line` (> 0) for it.
  int64_t FindOrInsert(int64_t id, int64_t line) {
    if (slots_.empty()) {
      if (ascending_.empty() || id > ascending_.back().id) {
        ascending_.push_back({id, line});
        return -1;
      }
      for (const Slot& seen : ascending_) Insert(seen.id, seen.line);  // distinct ids
      ascending_ = {};
    }
    return Insert(id, line);
  }

 private:
  struct Slot {
    int64_t id = 0;
    int64_t line = 0;  // 0: empty
  };
  // Spreads nearby ids (Fibonacci hashing: high bits of a multiple).
  size_t Home(int64_t id) const {
    return static_cast<size_t>((static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  // FindOrInsert on the table.
  int64_t Insert(int64_t id, int64_t line) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    const size_t mask = slots_.size() - 1;
    for (size_t s = Home(id) & mask;; s = (s + 1) & mask) {
      Slot& slot = slots_[s];
      if (slot.line == 0) {
        slot = {id, line};
        ++size_;
        return -1;
      }
      if (slot.id == id) return slot.line;
    }
  }
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
    shift_ = 64 - std::countr_zero(slots_.size());
    const size_t mask = slots_.size() - 1;
    for (const Slot& o : old) {
      if (o.line == 0) continue;
      size_t s = Home(o.id) & mask;
      while (slots_[s].line != 0) s = (s + 1) & mask;
      slots_[s] = o;
    }
  }
  std::vector<Slot> ascending_;  // ids and lines while ids ascend
  std::vector<Slot> slots_;      // the table, once they no longer do
  size_t size_ = 0;
  int shift_ = 63;  // set by Grow
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
  AaicIdLines id_line;
  std::unordered_map<int64_t, uint32_t> tenant_of_group;
  int64_t last_group = -1;  // the group of the previous row (-1: none yet)
  uint32_t last_tenant = 0;
};

// "<stem>:<id>", built in one allocation.
std::string AaicJobName(const std::string& stem, int64_t id) {
  char digits[24];
  const auto length =
      static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, id).ptr - digits);
  std::string name;
  name.reserve(stem.size() + 1 + length);
  name.append(stem).append(1, ':').append(digits, length);
  return name;
}

// The tenant index of `group` in this file, interned on first sight.
uint32_t AaicTenant(int64_t group, FileState* fs, Workload* w) {
  if (group == fs->last_group) return fs->last_tenant;
  auto t = fs->tenant_of_group.find(group);
  if (t == fs->tenant_of_group.end()) {
    const uint32_t index = w->InternTenant(fs->stem + ":g" + std::to_string(group));
    t = fs->tenant_of_group.emplace(group, index).first;
  }
  fs->last_group = group;
  fs->last_tenant = t->second;
  return t->second;
}

Status ParseRow(const CsvReader& csv, const std::array<int, kNumCols>& idx, const AaicOptions& opt,
                FileState* fs, TraceData* out, AaicTally* tally) {
  std::array<int64_t, kNumCols> v{};
  for (int c = 0; c < kNumCols; ++c) {
    const Range& r = kRanges[static_cast<size_t>(c)];
    UTILSIM_RETURN_IF_ERROR(
        internal::IntIn(csv, static_cast<size_t>(idx[c]), r.lo, r.hi, r.what, &v[c]));
    // The id's table slot (a cache miss in large files) is fetched while
    // the other fields are parsed.
    if (c == kId) fs->id_line.Prefetch(v[kId]);
  }
  auto field = [&](Col c) { return static_cast<size_t>(idx[c]); };
  const int64_t first_line = fs->id_line.FindOrInsert(v[kId], csv.line());
  if (first_line >= 0) {
    return csv.FieldError(field(kId),
                          "an id not already used on line " + std::to_string(first_line));
  }
  if (v[kStart] < v[kSubmit]) {
    return csv.FieldError(field(kStart),
                          "UNIX seconds >= time_submit (" + std::to_string(v[kSubmit]) + ")");
  }
  if (v[kEnd] < v[kStart]) {
    return csv.FieldError(field(kEnd),
                          "UNIX seconds >= time_start (" + std::to_string(v[kStart]) + ")");
  }
  // Filled in place (no copy of the 256-byte Job); no error follows.
  Job& job = out->workload.jobs.emplace_back();
  job.name = AaicJobName(fs->stem, v[kId]);
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
  job.tenant = AaicTenant(v[kGroup], fs, &out->workload);
  tally->termcode.Add(v[kTermcode]);
  tally->queue.Add(v[kQueue]);
  tally->nodes.Add(v[kNodes]);
  tally->gpus.Add(gpus);
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
  notes.push_back("termcode: " + Counts(tally.termcode.Sorted(), kTermNames, 5));
  notes.push_back("queue (= priority): " + Counts(tally.queue.Sorted()));
  notes.push_back("nodes (= tasks): " + Counts(tally.nodes.Sorted()));
  notes.push_back("gpus per node (after the multi-node fix): " + Counts(tally.gpus.Sorted()));
  std::vector<int64_t> waits;
  waits.reserve(out->workload.jobs.size());
  int64_t sum = 0;
  for (const Job& j : out->workload.jobs) {
    waits.push_back((*j.recorded_start - j.submit).us / kMicrosPerSecond);
    sum += waits.back();
  }
  if (!waits.empty()) {
    // The middle one or two and the largest, without a full sort.
    const size_t n = waits.size();
    const auto mid = waits.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(waits.begin(), mid, waits.end());
    const double median =
        n % 2 ? static_cast<double>(*mid)
              : 0.5 * static_cast<double>(*std::max_element(waits.begin(), mid) + *mid);
    const int64_t max = *std::max_element(mid, waits.end());
    notes.push_back("recorded wait (time_start - time_submit): median " + internal::Num(median) +
                    " s, mean " + internal::Num(static_cast<double>(sum) / static_cast<double>(n)) +
                    " s, max " + internal::Thousands(max) + " s");
  }
}

// Orders the jobs by (submit, input order), the order Workload::Finalize's
// stable sort gives, but moves each Job once along the cycles of the
// permutation instead of O(log n) times through a buffer of copies.
void AaicSortBySubmit(std::vector<Job>* jobs) {
  auto by_submit = [](const Job& a, const Job& b) { return a.submit < b.submit; };
  if (std::is_sorted(jobs->begin(), jobs->end(), by_submit)) return;
  // order[p].second: the input position of the job that goes to p. The
  // keys are distinct, so any sort gives the stable order.
  std::vector<std::pair<int64_t, size_t>> order(jobs->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = {(*jobs)[i].submit.us, i};
  std::sort(order.begin(), order.end());
  for (size_t start = 0; start < order.size(); ++start) {
    if (order[start].second == start) continue;  // in place, or a cycle done
    Job held = std::move((*jobs)[start]);
    size_t p = start;
    for (;;) {
      const size_t from = order[p].second;
      order[p].second = p;
      if (from == start) break;
      (*jobs)[p] = std::move((*jobs)[from]);
      p = from;
    }
    (*jobs)[p] = std::move(held);
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
  {
    // Room for the rows of all files at once (rows are 60-80 bytes; more
    // room is never touched), before the first is written: in huge pages
    // (utilsim/engine/huge_pages.h), fewer page faults, and no job moved
    // when a later file needs more.
    int64_t bytes = 0;
    for (const std::string& path : paths) bytes += internal::PlainSizeHint(path);
    ReserveHuge(out.workload.jobs, std::min<size_t>(static_cast<size_t>(bytes / 48), 50'000'000));
  }
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
  AaicSortBySubmit(&w.jobs);
  w.Finalize();
  out.cluster = AaicCluster(opt.nodes);
  AddNotes(origin_us / kMicrosPerSecond, opt, tally, &out);
  return out;
}

}  // namespace utilsim::traces
