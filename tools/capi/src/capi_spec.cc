// utilsim_spec_set: a RunSpec set by key and text, each key parsed by the
// same Parse* function the command line uses for its option.
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>

#include "capi_internal.h"
#include "utilsim/analysis/host_scale.h"
#include "utilsim/analysis/mig_run.h"
#include "utilsim/analysis/sharing.h"
#include "utilsim/policies/coresource.h"

namespace utilsim::capi {

namespace {

using Setter = std::function<Status(utilsim_spec&, const std::string&)>;

// A message without the option a parser put in front ("--mig: expected
// ..." -> "expected ..."): the key is named instead.
std::string Bare(const std::string& m) {
  const size_t colon = m.find(": ");
  if (colon == std::string::npos || colon == 0) return m;
  for (size_t i = 0; i < colon; ++i)
    if (!(std::islower(static_cast<unsigned char>(m[i])) || m[i] == '-' || m[i] == '_')) return m;
  return m.substr(colon + 2);
}

Status Expected(const std::string& what, const std::string& value) {
  return Status::Error(StatusCode::kInvalidArgument, "expected " + what + ", got '" + value + "'");
}

// A finite decimal number, all of the text.
bool Number(const std::string& text, double* out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

// A number in [lo, hi] (lo excluded when lo_open) into *out.
Setter Real(double lo, double hi, bool lo_open, const std::string& what, double RunSpec::*field) {
  return [=](utilsim_spec& s, const std::string& v) {
    double d = 0;
    if (!Number(v, &d) || d < lo || d > hi || (lo_open && d == lo)) return Expected(what, v);
    s.spec.*field = d;
    return Status::Ok();
  };
}

// Seconds >= 0 (> 0 when positive) as Micros.
Result<Micros> Secs(const std::string& v, bool positive) {
  double d = 0;
  const char* what = positive ? "seconds > 0" : "seconds >= 0";
  if (!Number(v, &d) || d < 0 || (positive && d == 0)) return Expected(what, v);
  auto m = FromSeconds(d);
  if (!m || (positive && m->us == 0)) return Expected(what, v);
  return *m;
}

Setter Seconds(bool positive, Micros RunSpec::*field) {
  return [=](utilsim_spec& s, const std::string& v) {
    auto m = Secs(v, positive);
    if (!m.ok()) return m.status();
    s.spec.*field = m.value();
    return Status::Ok();
  };
}

bool None(const std::string& v) { return v.empty() || v == "none"; }

// Assigns a parser's value, or returns its error.
template <typename T, typename F>
Status Parsed(Result<T> r, F&& assign) {
  if (!r.ok()) return r.status();
  assign(std::move(r).value());
  return Status::Ok();
}

const std::vector<std::pair<std::string, Setter>>& Keys() {
  static const std::vector<std::pair<std::string, Setter>> keys{
      {"model",
       [](utilsim_spec& s, const std::string& v) {
         return Parsed(ParseProgressModel(v), [&](ProgressModelKind k) { s.spec.model = k; });
       }},
      {"comm_fraction", Real(0, 1, false, "a fraction 0..1", &RunSpec::comm_fraction)},
      {"sharing",
       [](utilsim_spec& s, const std::string& v) {
         return Parsed(ParseSharingMode(v, s.spec.mps_thread_pct),
                       [&](SharingMode m) { s.spec.sharing = m; });
       }},
      {"mps_thread_pct", Real(0, 100, true, "a percentage in (0, 100]", &RunSpec::mps_thread_pct)},
      {"cpu_alloc",
       [](utilsim_spec& s, const std::string& v) {
         return Parsed(ParseCpuAlloc(v), [&](CpuAlloc m) { s.spec.cpu_alloc = m; });
       }},
      {"gpu_reserve",
       [](utilsim_spec& s, const std::string& v) {
         if (None(v)) {
           s.spec.gpu_reserve.reset();
           return Status::Ok();
         }
         return Parsed(ParseGpuReservation(v), [&](GpuReservation r) { s.spec.gpu_reserve = r; });
       }},
      {"host_scale",
       [](utilsim_spec& s, const std::string& v) {
         if (None(v)) {
           s.spec.host_scale.reset();
           return Status::Ok();
         }
         return Parsed(ParseHostScale(v), [&](HostScale h) { s.spec.host_scale = h; });
       }},
      {"mig",
       [](utilsim_spec& s, const std::string& v) {
         if (v == "off" || v.empty()) {
           s.spec.mig.mode = MigSpec::Mode::kOff;
           return Status::Ok();
         }
         return Parsed(ParseMigSpec(v), [&](const MigSpec& m) {
           s.spec.mig.mode = m.mode;
           s.spec.mig.size = m.size;
         });
       }},
      {"mig_reconfig",
       [](utilsim_spec& s, const std::string& v) {
         return Parsed(ParseMigReconfig(v), [&](mig::ReconfigTimes t) { s.spec.mig.times = t; });
       }},
      {"mig_drain",
       [](utilsim_spec& s, const std::string& v) {
         if (v != "true" && v != "false") return Expected("true or false", v);
         s.spec.mig.drain = v == "true";
         return Status::Ok();
       }},
      {"window",
       [](utilsim_spec& s, const std::string& v) {
         return Parsed(ParseWindow(v), [&](Window w) { s.spec.window = w; });
       }},
      {"warmup_s", Seconds(false, &RunSpec::warmup)},
      {"restart_cost_s", Seconds(false, &RunSpec::restart_cost)},
      {"sample_interval_s", Seconds(true, &RunSpec::sample_interval)},
      {"series",
       [](utilsim_spec& s, const std::string& v) {
         return Parsed(ParseSeriesForm(v), [&](SeriesForm f) { s.spec.series = f; });
       }},
      {"horizon_s",
       [](utilsim_spec& s, const std::string& v) {
         if (None(v)) {
           s.spec.horizon.reset();
           return Status::Ok();
         }
         return Parsed(Secs(v, false), [&](Micros m) { s.spec.horizon = m; });
       }},
      {"seed",
       [](utilsim_spec& s, const std::string& v) {
         // Plain decimal digits, 0..2^64-1.
         if (v.empty() || v.size() > 20 || v.find_first_not_of("0123456789") != std::string::npos)
           return Expected("an integer 0..2^64-1", v);
         errno = 0;
         const unsigned long long n = std::strtoull(v.c_str(), nullptr, 10);
         if (errno == ERANGE) return Expected("an integer 0..2^64-1", v);
         s.spec.seed = n;
         return Status::Ok();
       }},
      {"price_per_gpu_h", Real(0, std::numeric_limits<double>::max(), false, "a number >= 0",
                               &RunSpec::price_per_gpu_h)},
      {"profiles",
       [](utilsim_spec& s, const std::string& v) {
         s.profiles = None(v) ? "" : v;
         return Status::Ok();
       }},
  };
  return keys;
}

Status Set(utilsim_spec* spec, const char* key, const char* value) {
  if (!spec) return Null("utilsim_spec_set", "spec");
  if (!key) return Null("utilsim_spec_set", "key");
  if (!value) return Null("utilsim_spec_set", "value");
  const std::string k = key;
  std::string accepted;
  for (const auto& [name, set] : Keys()) {
    if (name == k) {
      utilsim_spec copy = *spec;  // the spec is left as it was on error
      if (Status st = set(copy, value); !st.ok())
        return Status::Error(StatusCode::kInvalidArgument,
                             "spec key '" + k + "': " + Bare(st.message()));
      *spec = std::move(copy);
      return Status::Ok();
    }
    accepted += (accepted.empty() ? "" : ", ") + name;
  }
  return Status::Error(StatusCode::kInvalidArgument,
                       "spec key '" + k + "': unknown (accepted: " + accepted + ")");
}

}  // namespace

}  // namespace utilsim::capi

extern "C" {

int utilsim_spec_create(utilsim_spec** out, utilsim_error** error) {
  return utilsim::capi::Call(error, [&] {
    if (!out) return utilsim::capi::Null("utilsim_spec_create", "out");
    *out = new utilsim_spec{};
    return utilsim::Status::Ok();
  });
}

void utilsim_spec_free(utilsim_spec* spec) { delete spec; }

int utilsim_spec_set(utilsim_spec* spec, const char* key, const char* value,
                     utilsim_error** error) {
  return utilsim::capi::Call(error, [&] { return utilsim::capi::Set(spec, key, value); });
}

}  // extern "C"
