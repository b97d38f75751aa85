// The JSON decision protocol (docs/embedding.md, "Decisions from another
// process"): DecisionSession::Handle parses one request, checks every field
// (type, range, unknown names) before touching the state, runs the op and
// writes one response. Field names and units are the engine's (job.h).
#include <cmath>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>

#include "utilsim/analysis/decide.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/engine/time.h"

namespace utilsim {

namespace {

using Json = nlohmann::ordered_json;

constexpr int64_t kMaxExact = int64_t{1} << 53;  // integers a double holds exactly
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

Status Bad(const std::string& m) { return Status::Error(StatusCode::kInvalidArgument, m); }

// A value as it appears in a message, cut to about 40 characters. Not
// dump(): it recurses, and a request may nest arrays 100,000 deep.
void Preview(const Json& v, int depth, std::string* out) {
  if (out->size() > 40) return;
  if (v.is_array() || v.is_object()) {
    const bool array = v.is_array();
    if (depth >= 3) {
      *out += array ? "[...]" : "{...}";
      return;
    }
    *out += array ? '[' : '{';
    bool first = true;
    for (auto it = v.begin(); it != v.end() && out->size() <= 40; ++it) {
      if (!first) *out += ',';
      first = false;
      if (!array) *out += Json(it.key()).dump(-1, ' ', false, Json::error_handler_t::replace) + ':';
      Preview(*it, depth + 1, out);
    }
    *out += array ? ']' : '}';
    return;
  }
  *out += v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string Shown(const Json& v) {
  std::string s;
  Preview(v, 0, &s);
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

std::string Join(std::initializer_list<const char*> names) {
  std::string s;
  for (const char* n : names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

// The fields of one JSON object, each read at most once by name; `where`
// prefixes the field names in messages ("job.gpus").
class Fields {
 public:
  Fields(const Json& obj, std::string where) : obj_(obj), where_(std::move(where)) {}

  // Every member of the object is one of `accepted`; the object is one.
  Status Only(std::initializer_list<const char*> accepted) const {
    if (!obj_.is_object())
      return Bad((where_.empty() ? std::string("request") : where_) +
                 ": expected a JSON object, got " + Shown(obj_));
    for (const auto& [key, value] : obj_.items()) {
      bool known = false;
      for (const char* a : accepted) known |= key == a;
      if (!known)
        return Bad(Name(key) + ": unknown field" + (where_.empty() ? "" : " of " + where_) +
                   " (accepted: " + Join(accepted) + ")");
    }
    return Status::Ok();
  }
  const Json* Get(const std::string& key) const {
    auto it = obj_.find(key);
    return it == obj_.end() ? nullptr : &*it;
  }
  std::string Name(const std::string& key) const {
    return where_.empty() ? key : where_ + "." + key;
  }
  // An integer lo..hi (a float only when integral); *out kept when absent.
  Status Int(const std::string& key, int64_t lo, int64_t hi, int64_t* out) const {
    const Json* v = Get(key);
    if (!v) return Status::Ok();
    const std::string expected = Name(key) + ": expected an integer " + std::to_string(lo) + ".." +
                                 std::to_string(hi) + ", got " + Shown(*v);
    if (v->is_number_unsigned()) {
      if (v->get<uint64_t>() > static_cast<uint64_t>(hi)) return Bad(expected);
      *out = static_cast<int64_t>(v->get<uint64_t>());
    } else if (v->is_number_integer()) {
      *out = v->get<int64_t>();
    } else if (v->is_number_float()) {
      const double d = v->get<double>();
      if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > static_cast<double>(kMaxExact))
        return Bad(expected);
      *out = static_cast<int64_t>(d);
    } else {
      return Bad(expected);
    }
    if (*out < lo || *out > hi) return Bad(expected);
    return Status::Ok();
  }
  // A finite number lo..hi; *out kept when absent.
  Status Real(const std::string& key, double lo, double hi, const std::string& what,
              double* out) const {
    const Json* v = Get(key);
    if (!v) return Status::Ok();
    const double d = v->is_number() ? v->get<double>() : std::nan("");
    if (!(d >= lo && d <= hi)) return Bad(Name(key) + ": expected " + what + ", got " + Shown(*v));
    *out = d;
    return Status::Ok();
  }
  Status Bool(const std::string& key, bool* out) const {
    const Json* v = Get(key);
    if (!v) return Status::Ok();
    if (!v->is_boolean()) return Bad(Name(key) + ": expected true or false, got " + Shown(*v));
    *out = v->get<bool>();
    return Status::Ok();
  }
  // A non-empty string; `required` makes absence an error.
  Status Str(const std::string& key, bool required, std::string* out) const {
    const Json* v = Get(key);
    if (!v) return required ? Bad(Name(key) + ": required (a string)") : Status::Ok();
    if (!v->is_string() || v->get_ref<const std::string&>().empty())
      return Bad(Name(key) + ": expected a non-empty string, got " + Shown(*v));
    *out = v->get<std::string>();
    return Status::Ok();
  }
  // A job id: a non-empty string, or an integer written in decimal.
  Status Id(const std::string& key, std::string* out) const {
    const Json* v = Get(key);
    if (!v) return Status::Ok();
    if (v->is_number_integer()) {
      *out = v->dump();
      return Status::Ok();
    }
    if (v->is_string() && !v->get_ref<const std::string&>().empty()) {
      *out = v->get<std::string>();
      return Status::Ok();
    }
    return Bad(Name(key) + ": expected a non-empty string or an integer, got " + Shown(*v));
  }
  // Fails when both of two exclusive fields are given.
  Status Either(const char* a, const char* b) const {
    if (Get(a) && Get(b))
      return Bad(Name(a) + ", " + Name(b) + ": give one of them (the same quantity in two units)");
    return Status::Ok();
  }

 private:
  const Json& obj_;
  std::string where_;
};

#define UTILSIM_TRY(expr)                        \
  do {                                           \
    if (Status s_ = (expr); !s_.ok()) return s_; \
  } while (0)

// The job of a request ("job": {...}), in the engine's names and units.
Result<Job> ParseJob(const Json* v) {
  if (!v) return Bad("job: required (an object)");
  const Fields f(*v, "job");
  UTILSIM_TRY(f.Only({"id", "tasks", "gpus", "gpu_milli", "cpu_milli", "cpu", "mem_bytes",
                      "mem_gib", "gpu_mem_bytes", "gpu_mem_gib", "gpu_models", "gpu_model", "util",
                      "priority", "runtime_s"}));
  UTILSIM_TRY(f.Either("cpu_milli", "cpu"));
  UTILSIM_TRY(f.Either("mem_bytes", "mem_gib"));
  UTILSIM_TRY(f.Either("gpu_mem_bytes", "gpu_mem_gib"));
  UTILSIM_TRY(f.Either("gpu_models", "gpu_model"));
  Job j;
  j.name = "job";
  UTILSIM_TRY(f.Id("id", &j.name));
  int64_t tasks = 1, gpus = 0, milli = 1000, prio = 0;
  UTILSIM_TRY(f.Int("tasks", 1, 1'000'000, &tasks));
  UTILSIM_TRY(f.Int("gpus", 0, 64, &gpus));
  UTILSIM_TRY(f.Int("gpu_milli", 1, 1000, &milli));
  UTILSIM_TRY(f.Int("priority", std::numeric_limits<int32_t>::min(),
                    std::numeric_limits<int32_t>::max(), &prio));
  if (milli < 1000 && gpus != 1)
    return Bad("job.gpu_milli: a share below 1000 needs job.gpus 1, got gpus " +
               std::to_string(gpus));
  j.tasks = static_cast<int32_t>(tasks);
  j.task.gpus = static_cast<int32_t>(gpus);
  j.task.gpu_milli = static_cast<int32_t>(milli);
  j.priority = static_cast<int32_t>(prio);
  UTILSIM_TRY(f.Int("cpu_milli", 0, kMaxExact, &j.task.cpu_milli));
  double cores = -1, gib = -1, gpu_gib = -1;
  UTILSIM_TRY(f.Real("cpu", 0, 1e12, "cores >= 0", &cores));
  if (cores >= 0) j.task.cpu_milli = std::llround(cores * 1000);
  UTILSIM_TRY(f.Int("mem_bytes", 0, int64_t{1} << 62, &j.task.mem_bytes));
  UTILSIM_TRY(f.Real("mem_gib", 0, 1e9, "GiB >= 0", &gib));
  if (gib >= 0) j.task.mem_bytes = std::llround(gib * kGiB);
  UTILSIM_TRY(f.Int("gpu_mem_bytes", 0, int64_t{1} << 50, &j.task.gpu_mem_bytes));
  UTILSIM_TRY(f.Real("gpu_mem_gib", 0, 1e6, "GiB >= 0", &gpu_gib));
  if (gpu_gib >= 0) j.task.gpu_mem_bytes = std::llround(gpu_gib * kGiB);
  std::string model;
  UTILSIM_TRY(f.Str("gpu_model", false, &model));
  if (!model.empty()) j.gpu_models = {model};
  if (const Json* m = f.Get("gpu_models")) {
    const std::string bad = "job.gpu_models: expected an array of non-empty strings, got ";
    if (!m->is_array()) return Bad(bad + Shown(*m));
    for (const Json& e : *m) {
      if (!e.is_string() || e.get_ref<const std::string&>().empty()) return Bad(bad + Shown(*m));
      j.gpu_models.push_back(e.get<std::string>());
    }
  }
  double util = -1, runtime = -1;
  UTILSIM_TRY(f.Real("util", 0, 1, "a busy fraction 0..1", &util));
  if (util >= 0) {
    j.util = static_cast<float>(util);
    j.util_known = true;
  }
  UTILSIM_TRY(f.Real("runtime_s", 0, 1e12, "seconds >= 0", &runtime));
  if (runtime >= 0) j.runtime = FromSeconds(runtime).value_or(Micros{0});
  return j;
}

// {"nodes":[NAME,...],"gpus":[[GPU,...],...]} (one entry per task; "text",
// as responses carry it, is accepted and not read).
Result<Placement> ParsePlacement(const DecisionSession& s, const Json* v) {
  if (!v) return Bad("placement: required (an object)");
  const Fields f(*v, "placement");
  UTILSIM_TRY(f.Only({"nodes", "gpus", "text"}));
  const Json* nodes = f.Get("nodes");
  const Json* gpus = f.Get("gpus");
  if (!nodes || !nodes->is_array())
    return Bad("placement.nodes: expected an array of node names, got " +
               (nodes ? Shown(*nodes) : std::string("nothing")));
  if (!gpus || !gpus->is_array() || gpus->size() != nodes->size())
    return Bad("placement.gpus: expected an array of GPU index arrays, one per node entry, got " +
               (gpus ? Shown(*gpus) : std::string("nothing")));
  Placement p;
  for (size_t i = 0; i < nodes->size(); ++i) {
    const Json& name = (*nodes)[i];
    const std::string where = "placement.nodes[" + std::to_string(i) + "]";
    if (!name.is_string()) return Bad(where + ": expected a node name, got " + Shown(name));
    const int64_t n = s.NodeIndexOf(name.get<std::string>());
    if (n < 0)
      return Status::Error(StatusCode::kNotFound,
                           where + ": no node '" + name.get<std::string>() + "' in the cluster");
    const int32_t node_gpus = s.placer().state().node(static_cast<NodeIndex>(n)).gpus;
    const Json& list = (*gpus)[i];
    const std::string gw = "placement.gpus[" + std::to_string(i) + "]";
    if (!list.is_array()) return Bad(gw + ": expected an array of GPU indices, got " + Shown(list));
    TaskPlacement t{static_cast<NodeIndex>(n), 0};
    for (const Json& g : list) {
      if (!g.is_number_integer() || g.get<int64_t>() < 0 || g.get<int64_t>() >= node_gpus)
        return Bad(gw + ": expected GPU indices 0.." + std::to_string(node_gpus - 1) + " of " +
                   name.get<std::string>() + ", got " + Shown(g));
      const uint64_t bit = uint64_t{1} << g.get<int64_t>();
      if (t.gpu_mask & bit) return Bad(gw + ": GPU " + g.dump() + " listed twice");
      t.gpu_mask |= bit;
    }
    p.push_back(t);
  }
  return p;
}

Json PlacementJson(const DecisionSession& s, const Placement& p) {
  Json nodes = Json::array(), gpus = Json::array();
  const ClusterState& c = s.placer().state();
  for (const TaskPlacement& t : p) {
    nodes.push_back(c.node(t.node).name);
    Json list = Json::array();
    for (int g = 0; g < 64; ++g)
      if (t.gpu_mask >> g & 1) list.push_back(g);
    gpus.push_back(std::move(list));
  }
  Json out = Json::object();
  out["nodes"] = std::move(nodes);
  out["gpus"] = std::move(gpus);
  out["text"] = s.placer().Describe(p);
  return out;
}

Json NodeJson(const NodeFree& f) {
  Json n = Json::object();
  n["name"] = f.name;
  n["gpu_model"] = f.gpu_model;
  n["gpus"] = f.gpus;
  n["free_gpus"] = f.free_gpus;
  n["gpu_free_milli"] = f.gpu_free_milli;
  n["free_cpu_milli"] = f.free_cpu_milli;
  n["free_mem_bytes"] = f.free_mem_bytes;
  n["tasks"] = f.tasks;
  n["drained"] = f.drained;
  return n;
}

Json Ok() {
  Json r = Json::object();
  r["ok"] = true;
  return r;
}

constexpr const char* kOps = "place, rank, started, finished, drain, state or version";

// Runs one parsed request; an error leaves the state as it was.
Result<Json> Dispatch(DecisionSession& s, const Json& req) {
  if (!req.is_object()) return Bad("request: expected a JSON object, got " + Shown(req));
  const Fields top(req, "");
  std::string op;
  if (const Json* o = top.Get("op"); !o || !o->is_string())
    return Bad(std::string("op: required, one of ") + kOps +
               (o ? std::string(", got ") + Shown(*o) : ""));
  op = req["op"].get<std::string>();
  Json r = Ok();
  if (op == "place" || op == "rank") {
    if (op == "place")
      UTILSIM_TRY(top.Only({"op", "job"}));
    else
      UTILSIM_TRY(top.Only({"op", "job", "k"}));
    auto job = ParseJob(top.Get("job"));
    if (!job.ok()) return job.status();
    if (op == "place") {
      auto p = s.Place(job.value());
      if (p) {
        r["placement"] = PlacementJson(s, *p);
      } else {
        r["placement"] = nullptr;
        r["reason"] = s.WhyNot(job.value());
      }
      return r;
    }
    int64_t k = 1;
    UTILSIM_TRY(top.Int("k", 1, 1'000'000, &k));
    Json list = Json::array();
    int rank = 0;
    for (const Placement& p : s.Rank(job.value(), static_cast<size_t>(k))) {
      Json c = Json::object();
      c["rank"] = ++rank;
      c["placement"] = PlacementJson(s, p);
      list.push_back(std::move(c));
    }
    const bool none = list.empty();
    r["candidates"] = std::move(list);
    if (none) r["reason"] = s.WhyNot(job.value());
    return r;
  }
  if (op == "started") {
    UTILSIM_TRY(top.Only({"op", "id", "job", "placement"}));
    auto job = ParseJob(top.Get("job"));
    if (!job.ok()) return job.status();
    std::string id;
    UTILSIM_TRY(top.Id("id", &id));
    const Json* jid = top.Get("job")->is_object() ? &(*top.Get("job")) : nullptr;
    const bool job_named = jid && jid->contains("id");
    if (id.empty() && !job_named) return Bad("id: required (the job's id)");
    if (id.empty()) id = job.value().name;
    if (job_named && job.value().name != id)
      return Bad("job.id: '" + job.value().name + "' differs from id '" + id + "'");
    job.value().name = id;
    auto p = ParsePlacement(s, top.Get("placement"));
    if (!p.ok()) return p.status();
    UTILSIM_TRY(s.Started(id, job.value(), p.value()));
    r["id"] = id;
    r["running"] = s.running();
    return r;
  }
  if (op == "finished") {
    UTILSIM_TRY(top.Only({"op", "id"}));
    std::string id;
    UTILSIM_TRY(top.Id("id", &id));
    if (id.empty()) return Bad("id: required (the job's id)");
    UTILSIM_TRY(s.Finished(id));
    r["id"] = id;
    r["running"] = s.running();
    return r;
  }
  if (op == "drain") {
    UTILSIM_TRY(top.Only({"op", "node", "drained"}));
    std::string node;
    bool drained = true;
    UTILSIM_TRY(top.Str("node", true, &node));
    UTILSIM_TRY(top.Bool("drained", &drained));
    UTILSIM_TRY(s.SetDrained(node, drained));
    r["node"] = node;
    r["drained"] = drained;
    return r;
  }
  if (op == "state") {
    UTILSIM_TRY(top.Only({"op", "node"}));
    std::string node;
    UTILSIM_TRY(top.Str("node", false, &node));
    Json nodes = Json::array();
    if (!node.empty()) {
      const int64_t n = s.NodeIndexOf(node);
      if (n < 0) return Status::Error(StatusCode::kNotFound, "node: no node '" + node + "'");
      nodes.push_back(NodeJson(s.Free(static_cast<NodeIndex>(n))));
    } else {
      for (NodeIndex n = 0; n < s.num_nodes(); ++n) nodes.push_back(NodeJson(s.Free(n)));
    }
    r["running"] = s.running();
    r["nodes"] = std::move(nodes);
    return r;
  }
  if (op == "version") {
    UTILSIM_TRY(top.Only({"op"}));
    r["protocol"] = kDecisionProtocolVersion;
    r["utilsim"] = UtilsimVersion();
    r["policy"] = s.policy();
    r["cluster"] = s.cluster_name();
    r["nodes"] = s.num_nodes();
    return r;
  }
  return Bad("op: unknown '" + op + "', expected " + kOps);
}

#undef UTILSIM_TRY

std::string ErrorJson(const Status& st) {
  Json r = Json::object();
  r["ok"] = false;
  r["error"] = Json::object();
  r["error"]["code"] = StatusCodeName(st.code());
  r["error"]["message"] = st.message();
  return r.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string DecisionSession::Handle(const std::string& request_json, Status* outcome) {
  Status st;
  std::string out;
  try {
    Json req;
    try {
      req = Json::parse(request_json);
    } catch (const Json::exception& e) {  // parse_error; out_of_range for 1e400
      // "[json.exception.parse_error.101] parse error at line 1, ..." -> "parse error at ..."
      std::string m = e.what();
      if (const size_t p = m.find("] "); p != std::string::npos) m = m.substr(p + 2);
      st = Bad("request: not JSON: " + m);
    }
    if (st.ok()) {
      auto r = Dispatch(*this, req);
      if (r.ok())
        out = r.value().dump(-1, ' ', false, Json::error_handler_t::replace);
      else
        st = r.status();
    }
  } catch (const std::exception& e) {
    st = Status::Error(StatusCode::kRuntime, std::string("internal error: ") + e.what());
  }
  if (!st.ok()) out = ErrorJson(st);
  if (outcome) *outcome = st;
  return out;
}

}  // namespace utilsim
