// Reader of the cluster events file (utilsim/traces/cluster_events_yaml.h).
#include "utilsim/traces/cluster_events_yaml.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>

#include "telemetry_common.h"
#include "utilsim/traces/text_writer.h"

namespace utilsim {
namespace {

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// What a value is, for "got '...'" in messages.
std::string Got(const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  if (n.IsMap()) return "<a mapping>";
  if (n.IsSequence()) return n.size() == 0 ? "[]" : "<a list>";
  return "";
}

// A finite number, the whole scalar; nullopt otherwise.
std::optional<double> ToNumber(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string Seconds(Micros t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", t.seconds());
  return buf;
}

// The keys each kind of event takes (besides `kind`).
const std::vector<std::string>* KindKeys(const std::string& kind) {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kKinds = {
      {"down", {"kind", "at", "nodes", "for", "until", "running", "cause", "component"}},
      {"up", {"kind", "at", "nodes"}},
      {"drain", {"kind", "at", "nodes", "for", "until"}},
      {"resume", {"kind", "at", "nodes"}},
      {"maintenance", {"kind", "at", "nodes", "for", "until", "running"}},
      {"add", {"kind", "at", "nodes"}},
      {"remove", {"kind", "at", "nodes", "running"}},
      {"outage", {"kind", "at", "nodes", "for", "until", "component"}},
      {"slow", {"kind", "at", "nodes", "speed", "for", "until"}},
      {"slow-end", {"kind", "at", "nodes", "speed"}},
  };
  for (const auto& [k, keys] : kKinds)
    if (k == kind) return &keys;
  return nullptr;
}

class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  Result<ClusterEventsFile> Parse(const YAML::Node& root) const {
    if (!root.IsMap()) return At(root, "expected 'events' or 'failures'");
    if (Status s = Keys(root, "", {"events", "failures", "checkpoints"}); !s.ok()) return s;
    if (!root["events"] && !root["failures"]) return At(root, "expected 'events' or 'failures'");
    ClusterEventsFile out;
    out.failures.source = source_;
    if (const YAML::Node events = root["events"]) {
      if (!events.IsSequence())
        return At(events, "key 'events': expected a list of events, got '" + Got(events) + "'");
      for (size_t i = 0; i < events.size(); ++i)
        if (Status s = Event(events[i], "events[" + std::to_string(i) + "]", &out.events); !s.ok())
          return s;
    }
    if (const YAML::Node f = root["failures"]) {
      if (Status s = Failures(f, &out.failures); !s.ok()) return s;
    }
    if (const YAML::Node c = root["checkpoints"]) {
      if (Status s = Checkpoints(c, &out.checkpoints); !s.ok()) return s;
    }
    return out;
  }

 private:
  // ---- Messages and scalars ------------------------------------------------

  int Line(const YAML::Node& n) const { return std::max(n.Mark().line, 0) + 1; }
  std::string Where(const YAML::Node& n) const { return source_ + ":" + std::to_string(Line(n)); }
  Status At(const YAML::Node& n, const std::string& message) const {
    return Status::Error(Where(n) + ": " + message);
  }
  Status Expected(const YAML::Node& n, const std::string& key, const std::string& what) const {
    return At(n, "key '" + key + "': expected " + what + ", got '" + Got(n) + "'");
  }
  // A mapping whose keys are all in `known`, each once.
  Status Keys(const YAML::Node& map, const std::string& path,
              const std::vector<std::string>& known) const {
    if (!map.IsMap())
      return At(map, (path.empty() ? std::string("document") : "key '" + path + "'") +
                         ": expected a mapping, got '" + Got(map) + "'");
    std::set<std::string> seen;
    for (const auto& kv : map) {
      const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "<not a string>";
      const std::string full = path.empty() ? k : path + "." + k;
      if (std::find(known.begin(), known.end(), k) == known.end())
        return At(kv.first, "unknown key '" + full + "' (known: " + Join(known) + ")");
      if (!seen.insert(k).second) return At(kv.first, "duplicate key '" + full + "'");
    }
    return Status::Ok();
  }
  Status Require(const YAML::Node& map, const std::string& path, const std::string& key) const {
    if (map[key]) return Status::Ok();
    return At(map, "key '" + path + "': missing '" + key + "'");
  }
  // A number >= min (> min when strict).
  Status Number(const YAML::Node& n, const std::string& key, double min, bool strict,
                const std::string& what, double* out) const {
    const std::optional<double> v = n.IsScalar() ? ToNumber(n.Scalar()) : std::nullopt;
    if (!v || *v < min || (strict && *v == min)) return Expected(n, key, what);
    *out = *v;
    return Status::Ok();
  }
  // checkpoints: {unknown|train|infer: {every: DURATION | none, restart: DURATION | 0}}
  Status Checkpoints(const YAML::Node& c, std::array<std::optional<Checkpointing>, 3>* out) const {
    if (Status s = Keys(c, "checkpoints", {"unknown", "train", "infer"}); !s.ok()) return s;
    const char* const kinds[] = {"unknown", "train", "infer"};  // JobKind order
    for (size_t k = 0; k < 3; ++k) {
      const YAML::Node n = c[kinds[k]];
      if (!n) continue;
      const std::string path = std::string("checkpoints.") + kinds[k];
      if (Status s = Keys(n, path, {"every", "restart"}); !s.ok()) return s;
      Checkpointing cp;
      if (const YAML::Node e = n["every"]; e && !(e.IsScalar() && e.Scalar() == "none")) {
        if (Status s = Duration(e, path + ".every", &cp.interval); !s.ok()) return s;
      }
      if (const YAML::Node r = n["restart"]; r && !(r.IsScalar() && r.Scalar() == "0")) {
        if (Status s = Duration(r, path + ".restart", &cp.restart); !s.ok()) return s;
      }
      (*out)[k] = cp;
    }
    return Status::Ok();
  }
  // A time: seconds >= 0.
  Status Time(const YAML::Node& n, const std::string& key, Micros* out) const {
    double s = 0;
    if (Status st = Number(n, key, 0, false, "a time in seconds >= 0", &s); !st.ok()) return st;
    const std::optional<Micros> t = FromSeconds(s);
    if (!t) return Expected(n, key, "a time in seconds >= 0, at most 1000 years");
    *out = *t;
    return Status::Ok();
  }
  // A duration: seconds > 0, or a number with a suffix s, m, h or d.
  Status Duration(const YAML::Node& n, const std::string& key, Micros* out) const {
    const std::string what = "a duration > 0 (seconds, or a number with s, m, h or d)";
    if (!n.IsScalar() || n.Scalar().empty()) return Expected(n, key, what);
    std::string text = n.Scalar();
    const std::string suffixes = "smhd";
    const double units[] = {1, 60, 3600, 86400};
    double unit = 1;
    if (const size_t k = suffixes.find(text.back()); k != std::string::npos) {
      unit = units[k];
      text.pop_back();
    }
    const std::optional<double> v = ToNumber(text);
    const std::optional<Micros> d = v && *v > 0 ? FromSeconds(*v * unit) : std::nullopt;
    if (!d || d->us <= 0) return Expected(n, key, what);
    *out = *d;
    return Status::Ok();
  }
  // One of `choices` (a scalar).
  Status Choice(const YAML::Node& n, const std::string& key,
                const std::vector<std::string>& choices, std::string* out) const {
    if (n.IsScalar() && std::find(choices.begin(), choices.end(), n.Scalar()) != choices.end()) {
      *out = n.Scalar();
      return Status::Ok();
    }
    std::string what;
    for (size_t i = 0; i < choices.size(); ++i)
      what += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
    return Expected(n, key, what);
  }
  Status NonEmptyString(const YAML::Node& n, const std::string& key, std::string* out) const {
    if (!n.IsScalar() || n.Scalar().empty()) return Expected(n, key, "a non-empty string");
    *out = n.Scalar();
    return Status::Ok();
  }
  // A non-empty list of non-empty names.
  Status Names(const YAML::Node& n, const std::string& key, std::vector<std::string>* out) const {
    const std::string what = "a non-empty list of node or group names";
    if (!n.IsSequence() || n.size() == 0) return Expected(n, key, what);
    out->clear();
    for (size_t i = 0; i < n.size(); ++i) {
      std::string name;
      if (Status s = NonEmptyString(n[i], key + "[" + std::to_string(i) + "]", &name); !s.ok())
        return s;
      out->push_back(std::move(name));
    }
    return Status::Ok();
  }

  // ---- Events ----------------------------------------------------------------

  // The end of an event given `for` or `until` (nullopt when neither).
  Status End(const YAML::Node& e, const std::string& path, Micros at,
             std::optional<Micros>* end) const {
    if (e["for"] && e["until"])
      return At(e["until"], "key '" + path + "': give 'for' or 'until', not both");
    if (const YAML::Node f = e["for"]) {
      Micros d;
      if (Status s = Duration(f, path + ".for", &d); !s.ok()) return s;
      *end = at + d;
    } else if (const YAML::Node u = e["until"]) {
      Micros t;
      if (Status s = Time(u, path + ".until", &t); !s.ok()) return s;
      if (t <= at) return Expected(u, path + ".until", "a time > at (" + Seconds(at) + ")");
      *end = t;
    }
    return Status::Ok();
  }

  // `running`: kill (the default) or wait.
  Status Kill(const YAML::Node& e, const std::string& path, bool* kill) const {
    *kill = true;
    if (!e["running"]) return Status::Ok();
    std::string v;
    if (Status s = Choice(e["running"], path + ".running", {"kill", "wait"}, &v); !s.ok()) return s;
    *kill = v == "kill";
    return Status::Ok();
  }

  // One entry of `events`, expanded into out.
  Status Event(const YAML::Node& e, const std::string& path, std::vector<ClusterEvent>* out) const {
    if (!e.IsMap()) return Expected(e, path, "a mapping with a 'kind'");
    if (Status s = Require(e, path, "kind"); !s.ok()) return s;
    std::string kind;
    if (Status s = Choice(e["kind"], path + ".kind",
                          {"down", "up", "drain", "resume", "maintenance", "add", "remove",
                           "outage", "slow", "slow-end"},
                          &kind);
        !s.ok())
      return s;
    if (Status s = Keys(e, path, *KindKeys(kind)); !s.ok()) return s;
    if (Status s = Require(e, path, "at"); !s.ok()) return s;
    ClusterEvent first;
    first.where = Where(e);
    if (Status s = Time(e["at"], path + ".at", &first.at); !s.ok()) return s;
    if (kind == "outage" && !e["nodes"]) {
      first.nodes = {"*"};
    } else {
      if (Status s = Require(e, path, "nodes"); !s.ok()) return s;
      if (Status s = Names(e["nodes"], path + ".nodes", &first.nodes); !s.ok()) return s;
    }
    std::optional<Micros> end;
    if (Status s = End(e, path, first.at, &end); !s.ok()) return s;
    if (kind == "maintenance" && !end)
      return At(e, "key '" + path + "': a maintenance needs 'for' or 'until'");
    if (Status s = Kill(e, path, &first.kill); !s.ok()) return s;
    if (const YAML::Node c = e["component"]) {
      if (Status s = NonEmptyString(c, path + ".component", &first.component); !s.ok()) return s;
    }
    if (kind == "slow" || kind == "slow-end") {
      if (Status s = Require(e, path, "speed"); !s.ok()) return s;
      if (Status s =
              Number(e["speed"], path + ".speed", 0, true, "a pace > 0 and < 1", &first.speed);
          !s.ok())
        return s;
      if (first.speed >= 1) return Expected(e["speed"], path + ".speed", "a pace > 0 and < 1");
    }
    const size_t start = out->size();
    if (Status s = Expand(kind, e, path, first, end, out); !s.ok()) return s;
    for (size_t i = start; i < out->size(); ++i)
      if (Status s = CheckClusterEvent((*out)[i]); !s.ok()) return s;
    return Status::Ok();
  }

  // The primitive events of one entry (its figures read into `first`).
  Status Expand(const std::string& kind, const YAML::Node& e, const std::string& path,
                ClusterEvent first, std::optional<Micros> end,
                std::vector<ClusterEvent>* out) const {
    ClusterEvent last;  // the event at the end, when there is one
    last.nodes = first.nodes;
    last.where = first.where;
    last.at = end.value_or(Micros(0));
    if (kind == "down" || kind == "maintenance" || kind == "outage") {
      first.change = NodeChange::kDown;
      first.cause = kind == "maintenance" ? DownCause::kMaintenance : DownCause::kFailure;
      if (const YAML::Node c = e["cause"]) {
        std::string v;
        if (Status s = Choice(c, path + ".cause", {"failure", "maintenance", "absent"}, &v);
            !s.ok())
          return s;
        first.cause = v == "failure"       ? DownCause::kFailure
                      : v == "maintenance" ? DownCause::kMaintenance
                                           : DownCause::kAbsent;
      }
      last.change = NodeChange::kUp;
    } else if (kind == "drain") {
      first.change = NodeChange::kDrain;
      last.change = NodeChange::kResume;
    } else if (kind == "slow" || kind == "slow-end") {
      first.change = kind == "slow" ? NodeChange::kSlow : NodeChange::kSlowEnd;
      last.change = NodeChange::kSlowEnd;
      last.speed = first.speed;
    } else if (kind == "up" || kind == "resume") {
      first.change = kind == "up" ? NodeChange::kUp : NodeChange::kResume;
    } else if (kind == "add") {
      ClusterEvent absent = first;
      absent.at = kBeforeEverything;
      absent.change = NodeChange::kDown;
      absent.cause = DownCause::kAbsent;
      out->push_back(std::move(absent));
      first.change = NodeChange::kUp;
    } else {  // remove
      first.change = NodeChange::kDown;
      first.cause = DownCause::kAbsent;
    }
    out->push_back(std::move(first));
    if (end) out->push_back(std::move(last));
    return Status::Ok();
  }

  // ---- Failures --------------------------------------------------------------

  Status Repair(const YAML::Node& r, const std::string& path, FailureClass* c) const {
    if (Status s = Keys(r, path, {"dist", "mean_h", "sigma"}); !s.ok()) return s;
    if (Status s = Require(r, path, "dist"); !s.ok()) return s;
    if (Status s = Require(r, path, "mean_h"); !s.ok()) return s;
    std::string dist;
    if (Status s = Choice(r["dist"], path + ".dist", {"fixed", "exponential", "lognormal"}, &dist);
        !s.ok())
      return s;
    c->repair = dist == "fixed"         ? RepairDist::kFixed
                : dist == "exponential" ? RepairDist::kExponential
                                        : RepairDist::kLogNormal;
    if (Status s = Number(r["mean_h"], path + ".mean_h", 0, true, "hours > 0", &c->repair_mean_h);
        !s.ok())
      return s;
    if (c->repair != RepairDist::kLogNormal) {
      if (r["sigma"])
        return At(r["sigma"], "key '" + path + ".sigma': only a lognormal repair has a sigma");
      return Status::Ok();
    }
    if (Status s = Require(r, path, "sigma"); !s.ok()) return s;
    return Number(r["sigma"], path + ".sigma", 0, true, "a number > 0", &c->repair_sigma);
  }

  Status Class(const YAML::Node& n, const std::string& path, FailureClass* c) const {
    if (Status s = Keys(n, path,
                        {"component", "per_node_day", "per_rack_day", "planned", "slow", "repair"});
        !s.ok())
      return s;
    c->where = Where(n);
    if (Status s = Require(n, path, "component"); !s.ok()) return s;
    if (Status s = NonEmptyString(n["component"], path + ".component", &c->component); !s.ok())
      return s;
    if (n["per_node_day"].IsDefined() == n["per_rack_day"].IsDefined())
      return At(n, "key '" + path + "': give exactly one of 'per_node_day' and 'per_rack_day'");
    const bool rack = n["per_rack_day"].IsDefined();
    c->scope = rack ? FailureScope::kRack : FailureScope::kNode;
    const std::string rate_key = rack ? "per_rack_day" : "per_node_day";
    if (Status s = Number(n[rate_key], path + "." + rate_key, 0, true, "failures per day > 0",
                          &c->rate_per_unit_day);
        !s.ok())
      return s;
    if (const YAML::Node p = n["planned"]) {
      if (!p.IsScalar() || !YAML::convert<bool>::decode(p, c->planned))
        return Expected(p, path + ".planned", "true or false");
    }
    if (const YAML::Node sl = n["slow"]) {
      if (Status s = Number(sl, path + ".slow", 0, true, "a pace > 0 and < 1", &c->slow); !s.ok())
        return s;
      if (c->slow >= 1) return Expected(sl, path + ".slow", "a pace > 0 and < 1");
      if (c->planned) return At(sl, "key '" + path + ".slow': a straggler class cannot be planned");
    }
    if (Status s = Require(n, path, "repair"); !s.ok()) return s;
    return Repair(n["repair"], path + ".repair", c);
  }

  Status Failures(const YAML::Node& f, FailureModel* m) const {
    if (Status s = Keys(f, "failures", {"nodes", "classes"}); !s.ok()) return s;
    if (const YAML::Node nodes = f["nodes"]) {
      if (Status s = Names(nodes, "failures.nodes", &m->nodes); !s.ok()) return s;
    }
    if (Status s = Require(f, "failures", "classes"); !s.ok()) return s;
    const YAML::Node classes = f["classes"];
    if (!classes.IsSequence() || classes.size() == 0)
      return Expected(classes, "failures.classes", "a non-empty list of failure classes");
    for (size_t i = 0; i < classes.size(); ++i) {
      FailureClass c;
      if (Status s = Class(classes[i], "failures.classes[" + std::to_string(i) + "]", &c); !s.ok())
        return s;
      m->classes.push_back(std::move(c));
    }
    return Status::Ok();
  }

  std::string source_;
};

}  // namespace

Result<ClusterEventsFile> ParseClusterEventsYaml(const std::string& text,
                                                 const std::string& source_name) {
  try {
    return Parser(source_name).Parse(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    return Status::Error(source_name + ":" + std::to_string(std::max(e.mark.line, 0) + 1) +
                         ": YAML error: " + e.msg);
  }
}

Result<ClusterEventsFile> ReadClusterEventsYaml(const std::string& path) {
  auto text = traces::internal::ReadWholeFile(path);
  if (!text.ok()) {
    // "<path>: cannot open: ..." -> "cannot read <path>: cannot open: ...".
    std::string why = text.status().message();
    if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);
    return Status::Error(text.status().code(), "cannot read " + path + ": " + why);
  }
  return ParseClusterEventsYaml(text.value(), path);
}

std::string ClusterEventsYaml(const std::vector<ClusterEvent>& events, const std::string& header) {
  std::string out;
  size_t from = 0;
  while (from < header.size()) {
    size_t nl = header.find('\n', from);
    if (nl == std::string::npos) nl = header.size();
    out += "# " + header.substr(from, nl - from) + "\n";
    from = nl + 1;
  }
  out += "events:\n";
  for (const ClusterEvent& e : events) {
    static const char* const kKinds[] = {"down", "up", "drain", "resume", "slow", "slow-end"};
    out += "  - {kind: ";
    out += kKinds[static_cast<size_t>(e.change)];
    out += ", at: ";
    traces::AppendSeconds(&out, std::max(e.at, Micros(0)));
    out += ", nodes: [";
    for (size_t i = 0; i < e.nodes.size(); ++i) {
      if (i) out += ", ";
      out += "\"" + e.nodes[i] + "\"";
    }
    out += "]";
    if (e.change == NodeChange::kDown) {
      out += ", cause: ";
      out += DownCauseName(e.cause);
      out += e.kill ? ", running: kill" : ", running: wait";
      if (!e.component.empty()) out += ", component: \"" + e.component + "\"";
    }
    if (e.change == NodeChange::kSlow || e.change == NodeChange::kSlowEnd) {
      char buf[40];
      std::snprintf(buf, sizeof buf, ", speed: %.17g", e.speed);
      out += buf;
    }
    out += "}\n";
  }
  return out;
}

}  // namespace utilsim
