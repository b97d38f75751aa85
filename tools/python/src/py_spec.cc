// utilsim.run's keyword arguments, checked here so that a bad value is a
// ValueError naming the key before anything is loaded.
#include "py_spec.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace utilsim::python {
namespace {

struct Choice {
  const char* key;
  std::vector<const char*> values;
};
const std::vector<Choice>& Choices() {
  static const std::vector<Choice> kChoices = {
      {"model", {"whole-gpu", "stall-serial", "stall-overlapped"}},
      {"sharing", {"fractional", "exclusive", "timeslice", "mps"}},
      {"cpu_alloc", {"request", "proportional", "measured"}},
      {"window", {"arrivals", "full"}},
      {"series", {"auto", "changes", "samples"}},
  };
  return kChoices;
}

// A number within a range: lo_open / hi_open exclude the bound.
struct Range {
  const char* key;
  const char* what;  // "a fraction 0..1"
  double lo, hi;
  bool lo_open;
};
const std::vector<Range>& Ranges() {
  static const std::vector<Range> kRanges = {
      {"comm_fraction", "a fraction 0..1", 0, 1, false},
      {"mps_thread_pct", "a percentage > 0 and <= 100", 0, 100, true},
      {"warmup_s", "seconds >= 0", 0, INFINITY, false},
      {"restart_cost_s", "seconds >= 0", 0, INFINITY, false},
      {"sample_interval_s", "seconds > 0", 0, INFINITY, true},
      {"horizon_s", "seconds >= 0 or None", 0, INFINITY, false},
      {"price_per_gpu_h", "a price >= 0", 0, INFINITY, false},
      {"checkpoint_interval_s", "seconds > 0", 0, INFINITY, true},
      {"pass_interval_s", "seconds >= 0", 0, INFINITY, false},
  };
  return kRanges;
}

std::string Repr(const py::handle& v) { return py::str(py::repr(v)); }

std::string ChoiceValue(const Choice& c, const py::handle& v) {
  std::string accepted;
  for (const char* a : c.values) accepted += std::string(accepted.empty() ? "" : ", ") + a;
  if (py::isinstance<py::str>(v)) {
    const std::string s = py::str(v);
    for (const char* a : c.values)
      if (s == a) return s;
  }
  throw py::value_error(std::string(c.key) + ": expected one of " + accepted + ", got " + Repr(v));
}

double RangeValue(const Range& r, const py::handle& v) {
  const bool number = (py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v)) &&
                      !py::isinstance<py::bool_>(v);
  const double d = number ? v.cast<double>() : NAN;
  const bool ok = std::isfinite(d) && (r.lo_open ? d > r.lo : d >= r.lo) && d <= r.hi;
  if (!ok) throw py::value_error(std::string(r.key) + ": expected " + r.what + ", got " + Repr(v));
  return d;
}

}  // namespace

py::list SpecKeys() {
  py::list keys;
  for (const char* k :
       {"model", "comm_fraction", "sharing", "mps_thread_pct", "cpu_alloc", "window", "warmup_s",
        "restart_cost_s", "sample_interval_s", "series", "horizon_s", "price_per_gpu_h", "events",
        "checkpoint_interval_s", "pass_interval_s"})
    keys.append(k);
  return keys;
}

// Seconds as the engine's microseconds, rounded as the command line rounds
// them (FromSeconds).
Micros ToMicros(double s, const std::string& key, bool positive) {
  const std::optional<Micros> t = FromSeconds(s);
  auto text = [s] {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return std::string(buf);
  };
  if (!t) throw py::value_error(key + ": expected seconds up to 1000 years, got " + text());
  if (positive && t->us <= 0)
    throw py::value_error(key + ": expected seconds > 0 (at least 1 us), got " + text());
  return *t;
}

RunOptions ParseRunOptions(const py::dict& spec, uint64_t seed) {
  RunOptions o;
  RunSpec& s = o.spec;
  s.seed = seed;
  for (const auto& [k, v] : spec) {
    const std::string key = py::str(k);
    const Choice* choice = nullptr;
    for (const Choice& c : Choices())
      if (key == c.key) choice = &c;
    const Range* range = nullptr;
    for (const Range& r : Ranges())
      if (key == r.key) range = &r;
    if (choice) {
      const std::string val = ChoiceValue(*choice, v);
      if (key == "model") s.model = ParseProgressModel(val).value();
      if (key == "sharing") s.sharing = ParseSharingMode(val, 100).value();
      if (key == "cpu_alloc") s.cpu_alloc = ParseCpuAlloc(val).value();
      if (key == "window") s.window = ParseWindow(val).value();
      if (key == "series") s.series = ParseSeriesForm(val).value();
    } else if (range) {
      if (key == "horizon_s" && v.is_none()) continue;
      const double d = RangeValue(*range, v);
      if (key == "comm_fraction") s.comm_fraction = d;
      if (key == "mps_thread_pct") s.mps_thread_pct = d;
      if (key == "warmup_s") s.warmup = ToMicros(d, key, false);
      if (key == "restart_cost_s") s.restart_cost = ToMicros(d, key, false);
      if (key == "sample_interval_s") s.sample_interval = ToMicros(d, key, true);
      if (key == "horizon_s") s.horizon = ToMicros(d, key, false);
      if (key == "price_per_gpu_h") s.price_per_gpu_h = d;
      if (key == "checkpoint_interval_s") s.checkpoint_interval = ToMicros(d, key, true);
      if (key == "pass_interval_s") s.pass_interval = ToMicros(d, key, false);
    } else if (key == "events") {  // a cluster events file (docs/cluster-events.md)
      if (!py::isinstance<py::str>(v))
        throw py::value_error("events: expected the path of an events file, got " + Repr(v));
      if (Status st = LoadClusterEvents(py::str(v).cast<std::string>(), &s); !st.ok())
        ThrowStatus(st);
    } else {
      throw py::value_error("unknown keyword argument '" + key + "'; accepted: " +
                            py::str(", ").attr("join")(SpecKeys()).cast<std::string>());
    }
  }
  // What the per-key checks cannot see (a sample interval below 1 us).
  if (Status st = ValidateRunSpec(s); !st.ok()) ThrowStatus(st);
  return o;
}

Result<std::unique_ptr<PreparedRuns>> PreparedRuns::Build(const RunOptions& opt, const Inputs& in,
                                                          const PolicyRegistry& reg) {
  auto run = BuildRun(opt.spec, in, in.cluster, reg);
  if (!run.ok()) return run.status();
  return std::unique_ptr<PreparedRuns>(new PreparedRuns(std::move(run).value()));
}

Result<RunResult> PreparedRuns::Simulate(const std::string& policy, EventObserver observer) const {
  auto r = run_->Simulate(policy, std::move(observer));
  if (!r.ok()) return r.status().Prefixed("policy '" + policy + "': ");
  return r;
}

}  // namespace utilsim::python
