// sacct --json: {"jobs": [...]} in Slurm 22.05's v0.0.38 shape or the
// v0.0.40+ shape (numbers as {"set","infinite","number"}, state.current an
// array of flags) (utilsim/traces/sacct.h).
#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "sacct_internal.h"
#include "slurm_internal.h"

namespace utilsim::traces::internal {

namespace {

using nlohmann::json;

constexpr int64_t kMaxCount = int64_t{1} << 62;

// JSON text of v (invalid UTF-8 replaced, so it never throws).
std::string Dump(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

// Where a job's fields are reported from.
struct At {
  const std::string& where;
  Status Bad(const std::string& field, const char* what, const json& v) const {
    return AtField(where, field, Expected(what, Dump(v)));
  }
};

// A member, or null when absent.
const json& Member(const json& j, const char* key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

// An integer 0..max given plainly or as {"set","infinite","number"}:
// nullopt when null, not set or infinite (*infinite tells which).
Result<std::optional<int64_t>> Number(const json& v, const At& at, const std::string& field,
                                      int64_t max, bool* infinite = nullptr) {
  if (infinite) *infinite = false;
  const json* n = &v;
  if (v.is_object()) {
    const json& set = Member(v, "set");
    const json& inf = Member(v, "infinite");
    if (inf.is_boolean() && inf.get<bool>()) {
      if (infinite) *infinite = true;
      return std::optional<int64_t>();
    }
    if (set.is_boolean() && !set.get<bool>()) return std::optional<int64_t>();
    n = &Member(v, "number");
  }
  if (n->is_null()) return std::optional<int64_t>();
  if (n->is_number_unsigned() && n->get<uint64_t>() <= static_cast<uint64_t>(max))
    return std::optional<int64_t>(static_cast<int64_t>(n->get<uint64_t>()));
  if (n->is_number_integer() && n->get<int64_t>() >= 0 && n->get<int64_t>() <= max)
    return std::optional<int64_t>(n->get<int64_t>());
  return at.Bad(field, "an integer >= 0 (or {\"set\", \"infinite\", \"number\"})", v);
}

std::string Str(const json& j, const char* key) {
  const json& v = Member(j, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

// A time: 0 = not known (Slurm prints 0 for a job that never started).
Status Time(const json& time, const char* key, const At& at, std::optional<int64_t>* out,
            std::string* text = nullptr) {
  const json& v = Member(time, key);
  auto n = Number(v, at, std::string("time.") + key, static_cast<int64_t>(kMaxSeconds));
  if (!n.ok()) return n.status();
  if (n.value() && *n.value() > 0) *out = n.value();
  if (text) *text = Dump(v);
  return Status::Ok();
}

Status Tres(const json& list, const At& at, const std::string& field, bool* has, SlurmTres* out) {
  if (list.is_null()) return Status::Ok();
  if (!list.is_array()) return at.Bad(field, "an array of {type, name, count}", list);
  int64_t typed = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const json& t = list[i];
    const std::string where = field + "[" + std::to_string(i) + "]";
    if (!t.is_object()) return at.Bad(where, "an object {type, name, count}", t);
    const std::string type = Str(t, "type"), name = Str(t, "name");
    auto count = Number(Member(t, "count"), at, where + ".count", kMaxCount);
    if (!count.ok()) return count.status();
    if (!count.value()) continue;  // e.g. energy: null
    const int64_t n = *count.value();
    if (type == "cpu") {
      out->cpus = n;
    } else if (type == "mem") {
      if (n > kMaxCount >> 20) return at.Bad(where + ".count", "MiB below 2^42", t);
      out->mem_bytes = n << 20;
    } else if (type == "node") {
      out->nodes = n;
    } else if (type == "gres" && name == "gpu") {
      out->gpus = n;
    } else if (type == "gres" && name.rfind("gpu:", 0) == 0 && name.size() > 4) {
      auto [it, fresh] = out->gpus_by_type.emplace(name.substr(4), n);
      typed += n - (fresh ? 0 : it->second);
      it->second = n;
      if (typed > kMaxCount) return at.Bad(where + ".count", "GPU counts below 2^62", t);
    }
    *has = true;
  }
  if (out->gpus < 0 && !out->gpus_by_type.empty()) out->gpus = typed;
  return Status::Ok();
}

// state.current: a string (v0.0.38) or an array of flags (v0.0.40+), where
// REQUEUED wins (as sacct's text prints it), else the first base state.
std::string State(const json& current) {
  if (current.is_string()) return BaseState(current.get<std::string>());
  if (!current.is_array()) return "";
  std::string first;
  for (const json& f : current) {
    if (!f.is_string()) continue;
    const std::string s = BaseState(f.get<std::string>());
    if (s == "REQUEUED") return s;
    if (first.empty()) first = s;
  }
  return first;
}

Status ParseJob(const json& j, const At& at, SacctRecord* r) {
  r->where = at.where;
  r->names = &kJsonNames;
  auto id = Number(Member(j, "job_id"), at, "job_id", kMaxCount);
  if (!id.ok()) return id.status();
  if (!id.value()) return at.Bad("job_id", "a job id", Member(j, "job_id"));
  const json &array = Member(j, "array"), &het = Member(j, "het");
  auto task = Number(Member(array, "task_id"), at, "array.task_id", kMaxCount);
  auto array_id = Number(Member(array, "job_id"), at, "array.job_id", kMaxCount);
  auto offset = Number(Member(het, "job_offset"), at, "het.job_offset", kMaxCount);
  auto het_id = Number(Member(het, "job_id"), at, "het.job_id", kMaxCount);
  for (const Status& s : {task.status(), array_id.status(), offset.status(), het_id.status()})
    if (!s.ok()) return s;
  const int64_t array_job = array_id.value().value_or(0), het_job = het_id.value().value_or(0);
  if (task.value() && array_job > 0) {
    r->job_id = std::to_string(array_job) + "_" + std::to_string(*task.value());
  } else if (array_job > 0 && !Str(array, "task").empty()) {
    r->job_id = std::to_string(array_job) + "_[" + Str(array, "task") + "]";
  } else if (offset.value() && het_job > 0) {
    r->job_id = std::to_string(het_job) + "+" + std::to_string(*offset.value());
  } else {
    r->job_id = std::to_string(*id.value());
  }
  r->state = State(Member(Member(j, "state"), "current"));
  if (r->state.empty())
    return at.Bad("state.current", "a job state (as \"COMPLETED\" or [\"COMPLETED\"])",
                  Member(Member(j, "state"), "current"));
  const json& time = Member(j, "time");
  for (const Status& s :
       {Time(time, "submission", at, &r->submit, &r->submit_text),
        Time(time, "eligible", at, &r->eligible), Time(time, "start", at, &r->start),
        Time(time, "end", at, &r->end, &r->end_text)})
    if (!s.ok()) return s;
  auto elapsed = Number(Member(time, "elapsed"), at, "time.elapsed", kMaxCount);
  if (!elapsed.ok()) return elapsed.status();
  r->elapsed_s = elapsed.value();
  bool infinite = false;
  // Minutes; NO_VAL (4294967294) and INFINITE (4294967295) of old versions = none.
  auto limit = Number(Member(time, "limit"), at, "time.limit", kMaxCount, &infinite);
  if (!limit.ok()) return limit.status();
  if (limit.value() && *limit.value() < 4294967294) {
    if (*limit.value() > static_cast<int64_t>(kMaxSeconds) / 60)
      return at.Bad("time.limit", "minutes of at most 1000 years", Member(time, "limit"));
    r->limit = Seconds(*limit.value() * 60);
  }
  auto prio = Number(Member(j, "priority"), at, "priority", std::numeric_limits<uint32_t>::max());
  if (!prio.ok()) return prio.status();
  r->priority = prio.value();
  const json& tres = Member(j, "tres");
  if (Status s = Tres(Member(tres, "allocated"), at, "tres.allocated", &r->has_alloc, &r->alloc);
      !s.ok())
    return s;
  if (Status s = Tres(Member(tres, "requested"), at, "tres.requested", &r->has_req, &r->req);
      !s.ok())
    return s;
  r->node_list = Str(j, "nodes");
  r->partition = Str(j, "partition");
  r->qos = Str(j, "qos");
  r->user = Str(j, "user");
  r->account = Str(j, "account");
  const json& exit = Member(j, "exit_code");
  auto rc = Number(Member(exit, "return_code"), at, "exit_code.return_code", kMaxCount);
  r->exit_code = rc.ok() && rc.value() ? std::to_string(*rc.value()) + ":0" : "";
  return Status::Ok();
}

}  // namespace

Status ReadSacctJson(SacctInput& in, const std::string& path, SacctBuilder* b, int64_t* rows) {
  auto text = in.Rest();
  if (!text.ok()) return text.status();
  const std::string& t = text.value();
  b->SetFileBytes(in.bytes());
  json doc;
  try {
    doc = json::parse(t);
  } catch (const json::parse_error& e) {
    const auto upto = std::min(t.size(), static_cast<size_t>(e.byte));
    const int64_t line = 1 + std::count(t.begin(), t.begin() + static_cast<ptrdiff_t>(upto), '\n');
    return Status::Error(StatusCode::kInvalidArgument,
                         path + ":" + std::to_string(line) + ": JSON error: " + e.what());
  } catch (const json::exception& e) {
    return Status::Error(StatusCode::kInvalidArgument, path + ": JSON error: " + e.what());
  }
  const json& jobs = Member(doc, "jobs");
  if (!jobs.is_array())
    return Status::Error(StatusCode::kInvalidArgument,
                         path + ": expected a sacct --json object with a \"jobs\" array");
  for (size_t i = 0; i < jobs.size(); ++i) {
    ++*rows;
    const std::string where = path + ": jobs[" + std::to_string(i) + "]";
    if (!jobs[i].is_object())
      return Status::Error(StatusCode::kInvalidArgument, where + ": expected a job object, got '" +
                                                             Dump(jobs[i]).substr(0, 100) + "'");
    SacctRecord r;
    if (Status s = ParseJob(jobs[i], At{where}, &r); !s.ok()) return s;
    if (Status s = b->Add(r); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace utilsim::traces::internal
