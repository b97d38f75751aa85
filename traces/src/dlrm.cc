// Reader of Alibaba cluster-trace-gpu-v2025 disaggregated_DLRM_trace.csv;
// the mapping is documented in docs/formats/dlrm.md.
#include "utilsim/traces/dlrm.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <unordered_map>

#include "row_helpers.h"
#include "utilsim/engine/units.h"
#include "utilsim/traces/csv.h"
#include "utilsim/traces/text_writer.h"

namespace utilsim::traces {

namespace {

using internal::ColumnSpec;

constexpr double kGiB = static_cast<double>(kBytesPerGiB);  // for double arithmetic

enum Col {
  kSn,
  kRole,
  kApp,
  kCpuReq,
  kCpuLim,
  kGpuReq,
  kGpuLim,
  kRdmaReq,
  kRdmaLim,
  kMemReq,
  kMemLim,
  kDiskReq,
  kDiskLim,
  kSpread,
  kCreate,
  kSched,
  kDelete,
  kNumCols
};

const std::vector<ColumnSpec>& Columns() {
  static const std::vector<ColumnSpec> cols = {
      {"instance_sn", true},   {"role", true},
      {"app_name", true},      {"cpu_request", true},
      {"cpu_limit", false},    {"gpu_request", true},
      {"gpu_limit", false},    {"rdma_request", true},
      {"rdma_limit", false},   {"memory_request", true},
      {"memory_limit", false}, {"disk_request", true},
      {"disk_limit", false},   {"max_instance_per_node", true},
      {"creation_time", true}, {"scheduled_time", true},
      {"deletion_time", true}};
  return cols;
}

struct Row {
  Job job;
  DlrmInstance extra;
  bool alive_at_end = false;
  bool before_start = false;          // no creation_time
  std::optional<Micros> sched_delay;  // scheduled_time - creation_time
};

struct Tally {
  std::map<std::string, int64_t> role;
  std::map<double, int64_t> rdma;
  std::map<int32_t, int64_t> spread;
  double disk_gib = 0;
  int64_t before_start = 0, alive = 0;
  std::vector<Micros> delays;
};

void DlrmNotes(Tally& t, Micros end, std::vector<std::string>* notes) {
  using internal::Num;
  using internal::Thousands;
  std::string roles = "roles:";
  for (const auto& [r, n] : t.role) roles += " " + r + " " + Thousands(n);
  notes->push_back(roles);
  notes->push_back(Thousands(t.before_start) + " instances existed before the trace (submit = " +
                   "start = 0), " + Thousands(t.alive) + " alive at its end (run cut at " +
                   FormatSeconds(end) + " s)");
  if (!t.delays.empty()) {
    std::sort(t.delays.begin(), t.delays.end());
    double sum = 0;
    for (Micros d : t.delays) sum += d.seconds();
    notes->push_back("recorded scheduling delay (scheduled - creation) of " +
                     Thousands(static_cast<int64_t>(t.delays.size())) + " instances: mean " +
                     Num(sum / static_cast<double>(t.delays.size()), 4) + " s, median " +
                     Num(t.delays[t.delays.size() / 2].seconds(), 4) + " s, max " +
                     Num(t.delays.back().seconds(), 8) + " s");
  }
  std::string rdma = "rdma_request (% of one NIC, not modelled):";
  for (const auto& [v, n] : t.rdma) rdma += " " + Num(v) + ":" + Thousands(n);
  notes->push_back(rdma);
  std::string spread = "max_instance_per_node (spread limit, not modelled):";
  for (const auto& [v, n] : t.spread) spread += " " + std::to_string(v) + ":" + Thousands(n);
  notes->push_back(spread);
  notes->push_back("disk_request total " + Num(t.disk_gib, 8) + " GiB (not modelled)");
  notes->push_back(
      "all instances are long-running, latency-sensitive, high-priority services "
      "(priority left 0)");
}

class Parser {
 public:
  Parser(const CsvReader& csv, const std::vector<int>& idx) : csv_(csv), idx_(idx) {}
  size_t At(Col c) const { return static_cast<size_t>(idx_[c]); }
  bool Has(Col c) const { return idx_[c] >= 0; }
  // A number >= 0 (<= hi) of the request column, or of the limit with
  // use_limits when the file has it.
  Status Value(Col req, Col lim, bool use_limit, double hi, const std::string& what, double* out,
               Warnings* w) const {
    UTILSIM_RETURN_IF_ERROR(internal::DoubleIn(csv_, At(req), 0, hi, what, out));
    if (!Has(lim)) return Status::Ok();
    double l = 0;
    UTILSIM_RETURN_IF_ERROR(internal::DoubleIn(csv_, At(lim), 0, hi, what, &l));
    if (l < *out) {
      internal::WarnAt(w, csv_, kDlrmWarnLimitBelowRequest, Columns()[lim].name);
    }
    if (use_limit) *out = l;
    return Status::Ok();
  }
  // Empty or NaN: nullopt; else seconds >= 0.
  Status Time(Col c, std::optional<Micros>* out) const {
    std::string_view s = csv_.field(At(c));
    out->reset();
    if (s.empty() || s == "NaN" || s == "nan") return Status::Ok();
    auto t = ParseSeconds(s);
    if (!t || t->us < 0) return csv_.FieldError(At(c), "seconds >= 0 (or empty)");
    *out = *t;
    return Status::Ok();
  }

 private:
  const CsvReader& csv_;
  const std::vector<int>& idx_;
};

Status ParseRow(const CsvReader& csv, const Parser& p, const DlrmOptions& opt, Warnings* w,
                Row* row, Micros* latest) {
  Job& job = row->job;
  DlrmInstance& x = row->extra;
  job.name = csv.field(p.At(kSn));
  if (job.name.empty()) return csv.FieldError(p.At(kSn), "a non-empty instance id");
  x.name = job.name;
  x.role = csv.field(p.At(kRole));
  if (x.role != "CN" && x.role != "HN") return csv.FieldError(p.At(kRole), "CN or HN");
  if (csv.field(p.At(kApp)).empty()) return csv.FieldError(p.At(kApp), "a non-empty app name");
  double cpu = 0, gpu = 0, mem = 0, disk = 0;
  UTILSIM_RETURN_IF_ERROR(p.Value(kCpuReq, kCpuLim, opt.use_limits, 1e6, "vCPUs >= 0", &cpu, w));
  UTILSIM_RETURN_IF_ERROR(p.Value(kGpuReq, kGpuLim, opt.use_limits, 64, "GPUs 0..64", &gpu, w));
  UTILSIM_RETURN_IF_ERROR(
      p.Value(kRdmaReq, kRdmaLim, opt.use_limits, 100, "a percentage 0..100", &x.rdma_pct, w));
  UTILSIM_RETURN_IF_ERROR(p.Value(kMemReq, kMemLim, opt.use_limits, 1e7, "GiB >= 0", &mem, w));
  UTILSIM_RETURN_IF_ERROR(p.Value(kDiskReq, kDiskLim, opt.use_limits, 1e9, "GiB >= 0", &disk, w));
  if (gpu > 1 && gpu != std::floor(gpu)) {
    return csv.FieldError(p.At(opt.use_limits && p.Has(kGpuLim) ? kGpuLim : kGpuReq),
                          "a whole number of GPUs or a fraction below 1");
  }
  job.task.cpu_milli = std::llround(cpu * kMilliPerUnit);
  job.task.mem_bytes = std::llround(mem * kGiB);
  job.task.gpus = gpu > 0 && gpu < 1 ? 1 : static_cast<int32_t>(gpu);
  if (gpu > 0 && gpu < 1)
    job.task.gpu_milli =
        static_cast<int32_t>(std::max<int64_t>(1, std::llround(gpu * kMilliPerUnit)));
  x.disk_bytes = std::llround(disk * kGiB);
  auto spread = csv.Int(p.At(kSpread));
  if (!spread.ok() || spread.value() == 0 || spread.value() < -1 || spread.value() > 1000000) {
    return csv.FieldError(p.At(kSpread), "-1 or an integer 1..1000000");
  }
  x.max_per_node = static_cast<int32_t>(spread.value());
  std::optional<Micros> create, sched, del;
  UTILSIM_RETURN_IF_ERROR(p.Time(kCreate, &create));
  UTILSIM_RETURN_IF_ERROR(p.Time(kSched, &sched));
  UTILSIM_RETURN_IF_ERROR(p.Time(kDelete, &del));
  if (create && sched && *sched < *create) {
    return csv.FieldError(p.At(kSched), "a time >= creation_time");
  }
  const Micros start = sched.value_or(Micros(0));
  if (del && *del < start) return csv.FieldError(p.At(kDelete), "a time >= scheduled_time");
  for (const auto& t : {create, sched, del})
    if (t) *latest = std::max(*latest, *t);
  if (create && !sched) {
    internal::WarnAt(w, csv, kDlrmWarnNeverScheduled, "instance '" + job.name + "'");
    job.tasks = 0;  // marks the row as skipped
    return Status::Ok();
  }
  row->before_start = !create;
  if (create && sched) row->sched_delay = *sched - *create;
  job.submit = create.value_or(Micros(0));
  job.recorded_start = start;
  row->alive_at_end = !del;
  job.runtime = del.value_or(Micros(0)) - start;  // set at the end when alive
  return Status::Ok();
}

}  // namespace

Result<TraceData> ReadDlrm(const std::string& path, const DlrmOptions& opt,
                           std::vector<DlrmInstance>* extra) {
  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  auto found = internal::FindColumns(csv, Columns());
  if (!found.ok()) return found.status();
  const Parser p(csv, found.value());
  TraceData out;
  std::vector<Row> rows;
  std::unordered_map<std::string, int64_t> seen;
  std::unordered_map<std::string, uint32_t> tenants;
  Tally tally;
  Micros latest{0};
  for (;;) {
    auto next = csv.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    ++out.rows_read;
    Row row;
    UTILSIM_RETURN_IF_ERROR(ParseRow(csv, p, opt, &out.warnings, &row, &latest));
    if (auto [it, ok] = seen.emplace(row.job.name, csv.line()); !ok) {
      return csv.FieldError(
          p.At(kSn), "an instance id not already used on line " + std::to_string(it->second));
    }
    if (row.job.tasks == 0) continue;
    const std::string app(csv.field(p.At(kApp)));
    auto t = tenants.find(app);
    if (t == tenants.end()) t = tenants.emplace(app, out.workload.InternTenant(app)).first;
    row.job.tenant = t->second;
    if (row.job.runtime.us == 0 && !row.alive_at_end) {
      internal::WarnAt(&out.warnings, csv, kDlrmWarnZeroRuntime, "instance '" + row.job.name + "'");
      row.job.runtime = Seconds(1);
    }
    rows.push_back(std::move(row));
  }
  Micros end = latest;
  if (opt.end_s) {
    auto e = FromSeconds(*opt.end_s);
    if (!e || *e < latest) {
      return Status::Error(path +
                           ": option end_s: expected seconds >= the latest time in the "
                           "file (" +
                           FormatSeconds(latest) + "), got '" + internal::Num(*opt.end_s, 12) +
                           "'");
    }
    end = *e;
  }
  for (Row& r : rows) {
    const Micros start = *r.job.recorded_start;
    if (r.before_start) ++tally.before_start;
    if (r.sched_delay) tally.delays.push_back(*r.sched_delay);
    if (r.alive_at_end) {
      ++tally.alive;
      r.job.runtime = std::max(end - start, Seconds(1));
    }
    ++tally.role[r.extra.role];
    ++tally.rdma[r.extra.rdma_pct];
    ++tally.spread[r.extra.max_per_node];
    tally.disk_gib += static_cast<double>(r.extra.disk_bytes) / kGiB;
  }
  std::vector<size_t> order(rows.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return rows[a].job.submit < rows[b].job.submit; });
  Workload& w = out.workload;
  w.jobs.reserve(rows.size());
  if (extra) extra->clear();
  for (size_t i : order) {
    w.jobs.push_back(std::move(rows[i].job));
    if (extra) extra->push_back(std::move(rows[i].extra));
  }
  w.source = path;
  w.Finalize();
  out.bytes_read = internal::InputBytes(path);
  DlrmNotes(tally, end, &out.notes);
  return out;
}

bool LooksLikeDlrm(const std::vector<std::string>& header) {
  return internal::HeaderHas(
      header, {"instance_sn", "role", "app_name", "cpu_request", "gpu_request", "rdma_request",
               "memory_request", "max_instance_per_node"});
}

}  // namespace utilsim::traces
