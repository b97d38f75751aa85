// sacct --parsable2 text: a header of '|'-separated field names, then one
// record per line (utilsim/traces/sacct.h).
#include <array>
#include <limits>

#include "row_helpers.h"
#include "sacct_internal.h"
#include "slurm_internal.h"

namespace utilsim::traces::internal {

namespace {

enum Col : int {
  kJobId,
  kJobIdRaw,
  kJobName,
  kState,
  kSubmit,
  kEligible,
  kStart,
  kEnd,
  kElapsed,
  kTimelimit,
  kPartition,
  kQos,
  kUser,
  kAccount,
  kPriority,
  kAllocTres,
  kReqTres,
  kNodeList,
  kExitCode,
  kNumCols,
};

constexpr std::array<const char*, kNumCols> kNames = {
    "JobID",    "JobIDRaw",  "JobName",   "State",     "Submit",   "Eligible", "Start",
    "End",      "Elapsed",   "Timelimit", "Partition", "QOS",      "User",     "Account",
    "Priority", "AllocTRES", "ReqTRES",   "NodeList",  "ExitCode",
};

constexpr std::array<Col, 5> kRequired = {kJobId, kState, kSubmit, kStart, kEnd};

std::vector<std::string_view> Split(std::string_view line) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  for (;;) {
    const size_t bar = line.find('|', pos);
    out.push_back(line.substr(pos, bar - pos));
    if (bar == std::string_view::npos) return out;
    pos = bar + 1;
  }
}

// A row that starts like data: a job id ("123", "5_0", "15+1", "7.batch").
bool LooksLikeData(std::string_view first_field) {
  return !first_field.empty() && first_field[0] >= '0' && first_field[0] <= '9';
}

struct Row {
  const std::array<int, kNumCols>& idx;
  const std::vector<std::string_view>& f;
  const std::string& where;
  std::string_view get(Col c) const {
    return idx[c] < 0 ? std::string_view() : f[static_cast<size_t>(idx[c])];
  }
  Status Time(Col c, std::optional<int64_t>* out) const {
    auto t = ParseSlurmTime(get(c));
    if (!t.ok()) return AtField(where, kNames[c], t.status());
    *out = t.value();
    return Status::Ok();
  }
  Status Tres(Col c, bool* has, SlurmTres* out) const {
    if (get(c).empty()) return Status::Ok();
    auto t = ParseTres(get(c));
    if (!t.ok()) return AtField(where, kNames[c], t.status());
    *has = true;
    *out = t.value();
    return Status::Ok();
  }
};

Status ParseRow(const Row& row, SacctRecord* r) {
  r->where = row.where;
  r->names = &kTextNames;
  r->job_id = std::string(row.get(kJobId));
  r->state = BaseState(row.get(kState));
  if (r->state.empty())
    return AtField(row.where, "State", Expected("a job state (as COMPLETED)", row.get(kState)));
  UTILSIM_RETURN_IF_ERROR(row.Time(kSubmit, &r->submit));
  UTILSIM_RETURN_IF_ERROR(row.Time(kEligible, &r->eligible));
  UTILSIM_RETURN_IF_ERROR(row.Time(kStart, &r->start));
  UTILSIM_RETURN_IF_ERROR(row.Time(kEnd, &r->end));
  r->submit_text = std::string(row.get(kSubmit));
  r->end_text = std::string(row.get(kEnd));
  if (!row.get(kElapsed).empty()) {
    auto e = ParseSlurmDuration(row.get(kElapsed));
    if (!e.ok()) return AtField(row.where, "Elapsed", e.status());
    if (e.value()) r->elapsed_s = e.value()->us / kMicrosPerSecond;
  }
  if (!row.get(kTimelimit).empty()) {
    auto l = ParseSlurmDuration(row.get(kTimelimit));
    if (!l.ok()) return AtField(row.where, "Timelimit", l.status());
    r->limit = l.value();
  }
  if (!row.get(kPriority).empty()) {
    r->priority = Digits(row.get(kPriority), std::numeric_limits<uint32_t>::max());
    if (!r->priority)
      return AtField(row.where, "Priority",
                     Expected("an integer 0..4294967295", row.get(kPriority)));
  }
  UTILSIM_RETURN_IF_ERROR(row.Tres(kAllocTres, &r->has_alloc, &r->alloc));
  UTILSIM_RETURN_IF_ERROR(row.Tres(kReqTres, &r->has_req, &r->req));
  r->partition = std::string(row.get(kPartition));
  r->qos = std::string(row.get(kQos));
  r->user = std::string(row.get(kUser));
  r->account = std::string(row.get(kAccount));
  r->node_list = std::string(row.get(kNodeList));
  r->exit_code = std::string(row.get(kExitCode));
  return Status::Ok();
}

}  // namespace

Status ReadSacctText(SacctInput& in, const std::string& path, SacctBuilder* b, int64_t* rows) {
  std::string_view line;
  // The header: the first line that is neither blank nor a '#' comment
  // (sacct writes none; they let a saved file say where it came from).
  for (;;) {
    auto more = in.NextLine(&line);
    if (!more.ok()) return more.status();
    if (!more.value())
      return Status::Error(StatusCode::kInvalidArgument,
                           path + ": empty file, expected a sacct --parsable2 header");
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line[first] != '#') break;
  }
  const std::string head_where = path + ":" + std::to_string(in.line());
  const std::vector<std::string_view> names = Split(line);
  std::array<int, kNumCols> idx;
  idx.fill(-1);
  for (size_t i = 0; i < names.size(); ++i)
    for (int c = 0; c < kNumCols; ++c)
      if (idx[c] < 0 && IEquals(names[i], kNames[c])) idx[c] = static_cast<int>(i);
  if (idx[kJobId] < 0 && LooksLikeData(names[0]))
    return Status::Error(StatusCode::kInvalidArgument,
                         head_where +
                             ": expected a header line of '|'-separated field names (JobID|State|"
                             "...), got a job record: run sacct without --noheader");
  if (names.size() < 2)
    return Status::Error(StatusCode::kInvalidArgument,
                         head_where +
                             ": expected a sacct --parsable2 header of '|'-separated "
                             "field names (JobID|State|...)");
  for (Col c : kRequired)
    if (idx[c] < 0)
      return Status::Error(StatusCode::kInvalidArgument,
                           head_where + ": missing required column '" + kNames[c] + "'");
  if (idx[kAllocTres] < 0 && idx[kReqTres] < 0)
    return Status::Error(StatusCode::kInvalidArgument,
                         head_where + ": missing required column 'AllocTRES' (or 'ReqTRES')");
  for (;;) {
    auto more = in.NextLine(&line);
    if (!more.ok()) return more.status();
    if (!more.value()) break;
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    ++*rows;
    b->SetFileBytes(in.bytes());
    const std::string where = path + ":" + std::to_string(in.line());
    const std::vector<std::string_view> f = Split(line);
    if (f.size() != names.size())
      return Status::Error(StatusCode::kInvalidArgument,
                           where + ": expected " + std::to_string(names.size()) +
                               " fields (as in the header), got " + std::to_string(f.size()) +
                               " (a '|' inside a field, e.g. in a job name?)");
    const Row row{idx, f, where};
    const std::string_view id = row.get(kJobId);
    if (id.empty()) return AtField(where, "JobID", Expected("a job id (as 123, 5_0, 15+1)", id));
    if (id.find('.') != std::string_view::npos) {
      b->CountStep();
      continue;
    }
    SacctRecord r;
    if (Status s = ParseRow(row, &r); !s.ok()) return s;
    if (Status s = b->Add(r); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace utilsim::traces::internal
