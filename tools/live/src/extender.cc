#include "utilsim/live/extender.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

namespace utilsim::live {
namespace {

using nlohmann::json;

bool SameKey(const std::string& a, const char* b) {
  size_t i = 0;
  for (; i < a.size() && b[i]; ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return i == a.size() && !b[i];
}

// The member `key` of object j, matched case-insensitively (Go's decoder),
// or null when absent.
const json* Field(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto exact = j.find(key);
  if (exact != j.end()) return &*exact;
  for (auto it = j.begin(); it != j.end(); ++it)
    if (SameKey(it.key(), key)) return &*it;
  return nullptr;
}

bool Absent(const json* j) { return !j || j->is_null(); }

// JSON text; invalid UTF-8 from the request is replaced, never thrown on.
std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::vector<std::pair<std::string, int64_t>> ZeroScores(const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, int64_t>> zero;
  for (const std::string& n : names) zero.emplace_back(n, 0);
  return zero;
}

HttpReply BadRequest(const std::string& why, VerbRecord* rec) {
  rec->reason = why;
  return {400, Dump(json{{"Error", why}})};
}

// Parses the body as a JSON object, or says why not.
std::optional<json> ParseBody(std::string_view body, std::string* why) {
  try {
    json j = json::parse(body.begin(), body.end());
    if (!j.is_object()) {
      *why = "request body: expected a JSON object";
      return std::nullopt;
    }
    return j;
  } catch (const json::parse_error& e) {
    *why = "request body is not JSON (" + std::to_string(body.size()) + " bytes): " + e.what();
    return std::nullopt;
  }
}

// ExtenderArgs, parsed.
struct Args {
  K8sPod pod;
  bool cache_capable = true;  // NodeNames given (else Nodes)
  std::vector<std::string> names;
  json node_items;  // the Nodes form's items, as sent
};

std::optional<Args> ParseArgs(const json& j, std::string* why) {
  Args a;
  const json* pod = Field(j, "Pod");
  if (Absent(pod) || !pod->is_object()) {
    *why = "Pod: expected a v1.Pod object";
    return std::nullopt;
  }
  auto p = ParsePod(*pod, "Pod");
  if (!p.ok()) {
    *why = p.status().message();
    return std::nullopt;
  }
  a.pod = std::move(p).value();
  const json* names = Field(j, "NodeNames");
  const json* nodes = Field(j, "Nodes");
  if (!Absent(names)) {
    if (!names->is_array()) {
      *why = "NodeNames: expected an array of node names";
      return std::nullopt;
    }
    for (size_t i = 0; i < names->size(); ++i) {
      if (!(*names)[i].is_string()) {
        *why = "NodeNames[" + std::to_string(i) + "]: expected a string";
        return std::nullopt;
      }
      a.names.push_back((*names)[i].get<std::string>());
    }
    return a;
  }
  if (Absent(nodes)) {
    *why = "neither NodeNames nor Nodes given";
    return std::nullopt;
  }
  const json* items = nodes->is_object() ? Field(*nodes, "items") : nullptr;
  if (!nodes->is_object() || (items && !items->is_array() && !items->is_null())) {
    *why = "Nodes: expected a v1.NodeList object with items";
    return std::nullopt;
  }
  a.cache_capable = false;
  a.node_items = Absent(items) ? json::array() : *items;
  for (size_t i = 0; i < a.node_items.size(); ++i) {
    const json* meta = Field(a.node_items[i], "metadata");
    const json* name = meta ? Field(*meta, "name") : nullptr;
    if (!name || !name->is_string()) {
      *why = "Nodes.items[" + std::to_string(i) + "].metadata.name: expected a string";
      return std::nullopt;
    }
    a.names.push_back(name->get<std::string>());
  }
  return a;
}

json FilterReply(const Args& a, const std::vector<std::string>& passed,
                 const std::map<std::string, std::string>& failed) {
  json r;
  if (a.cache_capable) {
    r["Nodes"] = nullptr;
    r["NodeNames"] = passed;
  } else {
    json items = json::array();
    size_t k = 0;  // passed keeps request order: walk both lists once
    for (size_t i = 0; i < a.names.size() && k < passed.size(); ++i)
      if (a.names[i] == passed[k]) {
        items.push_back(a.node_items[i]);
        ++k;
      }
    r["Nodes"] = {{"metadata", json::object()}, {"items", std::move(items)}};
    r["NodeNames"] = nullptr;
  }
  r["FailedNodes"] = failed;
  r["FailedAndUnresolvableNodes"] = json::object();
  r["Error"] = "";
  return r;
}

json ScoreReply(const std::vector<std::pair<std::string, int64_t>>& scores, bool every) {
  json r = json::array();
  for (const auto& [host, score] : scores)
    if (every || score > 0) r.push_back({{"Host", host}, {"Score", score}});
  return r;
}

void Fill(const Args& a, VerbRecord* rec) {
  rec->pod = a.pod.key();
  rec->uid = a.pod.uid;
  rec->nodes = a.names.size();
  rec->node_cache_capable = a.cache_capable;
}

// The body as ExtenderArgs, recorded in *rec; or nullopt and *bad the 400.
std::optional<Args> ParseRequest(std::string_view body, VerbRecord* rec, HttpReply* bad) {
  std::string why;
  auto j = ParseBody(body, &why);
  std::optional<Args> a;
  if (j) a = ParseArgs(*j, &why);
  if (!a) {
    *bad = BadRequest(why, rec);
    return std::nullopt;
  }
  Fill(*a, rec);
  return a;
}

// Victims per node: node -> (UIDs, NumPDBViolations), from either form.
struct Victims {
  std::map<std::string, std::pair<std::vector<std::string>, int64_t>> nodes;
  // node -> victim UIDs, as LiveState::Preempt takes them.
  std::map<std::string, std::vector<std::string>> Asked() const {
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& [node, uv] : nodes) out[node] = uv.first;
    return out;
  }
};

std::optional<Victims> ParseVictims(const json& j, std::string* why) {
  Victims v;
  const json* meta = Field(j, "NodeNameToMetaVictims");
  const json* full = Field(j, "NodeNameToVictims");
  const bool use_meta = !Absent(meta);
  const json* m = use_meta ? meta : full;
  const char* name = use_meta ? "NodeNameToMetaVictims" : "NodeNameToVictims";
  if (Absent(m)) return v;
  if (!m->is_object()) {
    *why = std::string(name) + ": expected an object of node -> victims";
    return std::nullopt;
  }
  for (auto it = m->begin(); it != m->end(); ++it) {
    const std::string where = std::string(name) + "." + it.key();
    auto& [uids, pdb] = v.nodes[it.key()];
    if (it->is_null()) continue;
    const json* pods = Field(*it, "Pods");
    const json* n = Field(*it, "NumPDBViolations");
    if (n && n->is_number_integer()) pdb = n->get<int64_t>();
    if (Absent(pods)) continue;
    if (!pods->is_array()) {
      *why = where + ".Pods: expected an array";
      return std::nullopt;
    }
    for (size_t i = 0; i < pods->size(); ++i) {
      const json& p = (*pods)[i];
      const json* uid = nullptr;
      if (use_meta) {
        uid = Field(p, "UID");
      } else if (const json* md = Field(p, "metadata")) {
        uid = Field(*md, "uid");
      }
      if (!uid || !uid->is_string()) {
        *why = where + ".Pods[" + std::to_string(i) + "]: expected " +
               (use_meta ? "a UID" : "metadata.uid");
        return std::nullopt;
      }
      uids.push_back(uid->get<std::string>());
    }
  }
  return v;
}

json PreemptReply(const Victims& v, const std::map<std::string, std::vector<std::string>>& keep) {
  json out = json::object();
  for (const auto& [node, uids] : keep) {
    json pods = json::array();
    for (const std::string& u : uids) pods.push_back({{"UID", u}});
    auto it = v.nodes.find(node);
    out[node] = {{"Pods", std::move(pods)},
                 {"NumPDBViolations", it == v.nodes.end() ? 0 : it->second.second}};
  }
  return {{"NodeNameToMetaVictims", std::move(out)}};
}

}  // namespace

Extender::Extender(LiveState* state, ExtenderOptions options)
    : state_(state), options_(std::move(options)) {}

HttpReply Extender::Filter(std::string_view body, Deadline deadline, VerbRecord* rec) const {
  rec->verb = "filter";
  HttpReply bad;
  auto a = ParseRequest(body, rec, &bad);
  if (!a) return bad;
  if (!options_.managed_resources.empty() && !RequestsAny(a->pod, options_.managed_resources)) {
    rec->reason = "pod requests none of the managed resources";
    return {200, Dump(FilterReply(*a, a->names, {}))};
  }
  Decision d = state_->Filter(a->pod, a->names, deadline);
  rec->opinion = d.opinion;
  rec->reason = d.reason;
  rec->failed = d.failed.size();
  rec->demand = d.demand;
  return {200, Dump(FilterReply(*a, d.passed, d.failed))};
}

HttpReply Extender::Prioritize(std::string_view body, Deadline deadline, VerbRecord* rec) const {
  rec->verb = "prioritize";
  HttpReply bad;
  auto a = ParseRequest(body, rec, &bad);
  if (!a) return bad;
  if (!options_.managed_resources.empty() && !RequestsAny(a->pod, options_.managed_resources)) {
    rec->reason = "pod requests none of the managed resources";
    return {200, Dump(ScoreReply(ZeroScores(a->names), options_.score_every_node))};
  }
  Decision d = state_->Prioritize(a->pod, a->names, deadline);
  rec->opinion = d.opinion;
  rec->reason = d.reason;
  rec->top = d.top;
  rec->demand = d.demand;
  rec->pod_util = d.pod_util;
  for (const auto& s : d.scores)
    if (s.second > 1) rec->best.push_back(s);
  std::sort(rec->best.begin(), rec->best.end(),
            [](const auto& x, const auto& y) { return x.second > y.second; });
  return {200, Dump(ScoreReply(d.scores, options_.score_every_node))};
}

HttpReply Extender::Preempt(std::string_view body, Deadline /*deadline*/, VerbRecord* rec) const {
  rec->verb = "preempt";
  std::string why;
  auto j = ParseBody(body, &why);
  if (!j) return BadRequest(why, rec);
  const json* pod = Field(*j, "Pod");
  if (Absent(pod) || !pod->is_object()) return BadRequest("Pod: expected a v1.Pod object", rec);
  auto p = ParsePod(*pod, "Pod");
  if (!p.ok()) return BadRequest(p.status().message(), rec);
  auto v = ParseVictims(*j, &why);
  if (!v) return BadRequest(why, rec);
  rec->pod = p.value().key();
  rec->uid = p.value().uid;
  rec->nodes = v->nodes.size();
  const auto asked = v->Asked();
  if (!options_.managed_resources.empty() && !RequestsAny(p.value(), options_.managed_resources)) {
    rec->reason = "pod requests none of the managed resources";
    return {200, Dump(PreemptReply(*v, asked))};
  }
  auto keep = state_->Preempt(p.value(), asked);
  rec->opinion = true;
  rec->failed = asked.size() - keep.size();
  return {200, Dump(PreemptReply(*v, keep))};
}

HttpReply Extender::Bind(std::string_view body, const Binder& bind, VerbRecord* rec) const {
  rec->verb = "bind";
  std::string why;
  auto j = ParseBody(body, &why);
  if (!j) return BadRequest(why, rec);
  std::string f[4];
  const char* keys[4] = {"PodName", "PodNamespace", "PodUID", "Node"};
  for (int i = 0; i < 4; ++i) {
    const json* v = Field(*j, keys[i]);
    if (!v || !v->is_string() || (i != 2 && v->get<std::string>().empty()))
      return BadRequest(std::string(keys[i]) + ": expected a string", rec);
    f[i] = v->get<std::string>();
  }
  rec->pod = f[1] + "/" + f[0];
  rec->uid = f[2];
  rec->top = f[3];
  const std::string err = bind(f[1], f[0], f[2], f[3]);
  rec->opinion = err.empty();
  rec->reason = err;
  return {200, Dump(json{{"Error", err}})};
}

HttpReply Extender::NoOpinion(const std::string& verb, std::string_view body,
                              const std::string& reason, VerbRecord* rec) const {
  rec->verb = verb;
  rec->reason = reason;
  if (verb == "preempt") {
    std::string why;
    auto j = ParseBody(body, &why);
    if (!j) return BadRequest(why, rec);
    auto v = ParseVictims(*j, &why);
    if (!v) return BadRequest(why, rec);
    return {200, Dump(PreemptReply(*v, v->Asked()))};
  }
  HttpReply bad;
  auto a = ParseRequest(body, rec, &bad);
  if (!a) return bad;
  if (verb == "filter") return {200, Dump(FilterReply(*a, a->names, {}))};
  return {200, Dump(ScoreReply(ZeroScores(a->names), options_.score_every_node))};
}

}  // namespace utilsim::live
