// GPU power-model calibration on the Acme CDFs (power_fit.h).
#include "utilsim/workloads/power_fit.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <map>
#include <string_view>
#include <utility>

#include "utilsim/engine/csv.h"

namespace utilsim {

namespace {

constexpr double kLevelTol = 1e-9;  // levels closer than this are one level
constexpr double kEndTol = 1e-6;    // a CDF must end within this of 1

// Shortest text that reads back as v.
std::string Num(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

std::string Label(const EmpiricalCdf& c) {
  return c.source.empty() ? c.name : c.source + ":" + c.name;
}

// Probability mass of point i.
double Mass(const EmpiricalCdf& c, size_t i) { return c.cdf[i] - (i ? c.cdf[i - 1] : 0.0); }

// Sorts (x, mass) atoms into a CDF with strictly ascending x.
EmpiricalCdf FromAtoms(std::vector<std::pair<double, double>> atoms, std::string name) {
  std::sort(atoms.begin(), atoms.end());
  EmpiricalCdf out;
  out.name = std::move(name);
  double total = 0;
  for (const auto& [x, m] : atoms) {
    if (!(m > 0)) continue;
    total += m;
    if (!out.x.empty() && out.x.back() == x) {
      out.cdf.back() = total;
    } else {
      out.x.push_back(x);
      out.cdf.push_back(total);
    }
  }
  for (double& c : out.cdf) c = std::min(c / total, 1.0);  // rounding: end at exactly 1
  if (!out.cdf.empty()) out.cdf.back() = 1.0;
  return out;
}

}  // namespace

std::string CdfProblem(const EmpiricalCdf& c) {
  const std::string who = "series '" + Label(c) + "': ";
  if (c.x.empty()) return who + "no points";
  if (c.x.size() != c.cdf.size()) {
    return who + std::to_string(c.x.size()) + " x values but " + std::to_string(c.cdf.size()) +
           " cdf values";
  }
  for (size_t i = 0; i < c.x.size(); ++i) {
    const std::string at = "[" + std::to_string(i) + "] ";
    if (!std::isfinite(c.x[i])) return who + "x" + at + "is not finite";
    if (!(c.cdf[i] >= 0 && c.cdf[i] <= 1)) return who + "cdf" + at + Num(c.cdf[i]) + " not in 0..1";
    if (i && c.x[i] < c.x[i - 1])
      return who + "x" + at + Num(c.x[i]) + " below x[" + std::to_string(i - 1) + "]";
    if (i && c.cdf[i] < c.cdf[i - 1]) {
      return who + "cdf" + at + Num(c.cdf[i]) + " below cdf[" + std::to_string(i - 1) + "] " +
             Num(c.cdf[i - 1]);
    }
  }
  if (std::abs(c.cdf.back() - 1) > kEndTol) return who + "ends at " + Num(c.cdf.back()) + ", not 1";
  return "";
}

Result<std::vector<EmpiricalCdf>> ReadAcmeCdfs(const std::string& path,
                                               const std::vector<std::string>& series) {
  auto opened = CsvReader::OpenPlain(path);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  const int c_src = csv.Find("source_pkl"), c_name = csv.Find("series"), c_x = csv.Find("x"),
            c_cdf = csv.Find("cdf_percent");
  for (const auto& [name, c] : {std::pair{"source_pkl", c_src}, std::pair{"series", c_name},
                                std::pair{"x", c_x}, std::pair{"cdf_percent", c_cdf}}) {
    if (c < 0)
      return Status::Error(StatusCode::kInvalidArgument,
                           path + ":1: missing column '" + name + "'");
  }
  const auto ux = static_cast<size_t>(c_x), ucdf = static_cast<size_t>(c_cdf);
  auto selected = [&](std::string_view src, std::string_view name) {
    if (series.empty()) return true;
    for (const std::string& s : series) {
      const size_t colon = s.find(':');
      if (colon == std::string::npos ? s == name
                                     : s.compare(0, colon, src) == 0 &&
                                           s.compare(colon + 1, std::string::npos, name) == 0) {
        return true;
      }
    }
    return false;
  };
  std::vector<EmpiricalCdf> out;
  std::map<std::pair<std::string, std::string>, size_t> index;  // (source, name) -> out
  std::vector<int64_t> last_line;
  for (;;) {
    auto more = csv.Next();
    if (!more.ok()) return more.status();
    if (!more.value()) break;
    const std::string_view src = csv.field(static_cast<size_t>(c_src));
    const std::string_view name = csv.field(static_cast<size_t>(c_name));
    if (!selected(src, name)) continue;
    if (src.empty()) return csv.FieldError(static_cast<size_t>(c_src), "a file name");
    if (name.empty()) return csv.FieldError(static_cast<size_t>(c_name), "a series name");
    auto x = csv.Double(ux);
    if (!x.ok()) return x.status();
    auto pct = csv.Double(ucdf);
    if (!pct.ok()) return pct.status();
    if (!(pct.value() >= 0 && pct.value() <= 100)) return csv.FieldError(ucdf, "a number 0..100");
    auto [it, added] = index.emplace(std::pair{std::string(src), std::string(name)}, out.size());
    if (added) {
      out.push_back({std::string(src), std::string(name), {}, {}});
      last_line.push_back(0);
    }
    EmpiricalCdf& c = out[it->second];
    const std::string within = " within series '" + c.name + "'";
    if (!c.x.empty() && x.value() < c.x.back())
      return csv.FieldError(ux, "a value >= " + Num(c.x.back()) + " (ascending" + within + ")");
    if (!c.cdf.empty() && pct.value() / 100 < c.cdf.back()) {
      return csv.FieldError(
          ucdf, "a value >= " + Num(c.cdf.back() * 100) + " (nondecreasing" + within + ")");
    }
    c.x.push_back(x.value());
    c.cdf.push_back(pct.value() / 100);
    last_line[it->second] = csv.line();
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (std::abs(out[i].cdf.back() - 1) > kEndTol) {
      return Status::Error(StatusCode::kInvalidArgument,
                           path + ":" + std::to_string(last_line[i]) + ": series '" + out[i].name +
                               "' ends at cdf_percent " + Num(out[i].cdf.back() * 100) +
                               ", expected 100");
    }
    out[i].cdf.back() = 1.0;
  }
  for (const std::string& s : series) {
    std::vector<std::string> sources;
    for (const EmpiricalCdf& c : out) {
      if (s == c.name || s == c.source + ":" + c.name) sources.push_back(c.source);
    }
    if (sources.empty()) {
      return Status::Error(StatusCode::kNotFound, path + ": no series '" + s + "'");
    }
    if (sources.size() > 1) {
      std::string list;
      for (const std::string& src : sources) list += (list.empty() ? "" : ", ") + src;
      return Status::Error(StatusCode::kInvalidArgument,
                           path + ": series '" + s + "' is in " + std::to_string(sources.size()) +
                               " source_pkl files (" + list +
                               "); select one as 'source_pkl:series'");
    }
  }
  return out;
}

double CdfAt(const EmpiricalCdf& c, double x) {
  const auto it = std::upper_bound(c.x.begin(), c.x.end(), x);
  return it == c.x.begin() ? 0.0 : c.cdf[static_cast<size_t>(it - c.x.begin()) - 1];
}

double QuantileAt(const EmpiricalCdf& c, double q) {
  const auto it = std::lower_bound(c.cdf.begin(), c.cdf.end(), q - kLevelTol);
  return it == c.cdf.end() ? c.x.back() : c.x[static_cast<size_t>(it - c.cdf.begin())];
}

double CdfMean(const EmpiricalCdf& c) {
  double sum = 0;
  for (size_t i = 0; i < c.x.size(); ++i) sum += c.x[i] * Mass(c, i);
  return sum;
}

std::vector<QuantilePair> QuantileMap(const EmpiricalCdf& busy, const EmpiricalCdf& power) {
  std::vector<double> levels;
  for (const EmpiricalCdf* c : {&busy, &power}) {
    for (double l : c->cdf)
      if (l > kLevelTol) levels.push_back(std::min(l, 1.0));
  }
  levels.push_back(1.0);
  std::sort(levels.begin(), levels.end());
  std::vector<QuantilePair> out;
  double lo = 0;
  for (size_t i = 0; i < levels.size(); ++i) {
    // Within kLevelTol of the next level: one level, the larger.
    if (i + 1 < levels.size() && levels[i + 1] - levels[i] <= kLevelTol) continue;
    const double hi = i + 1 == levels.size() ? 1.0 : levels[i];
    if (hi <= lo) continue;
    out.push_back({lo, hi, QuantileAt(busy, hi), QuantileAt(power, hi)});
    lo = hi;
  }
  return out;
}

Result<PowerFit> FitGpuPower(const EmpiricalCdf& busy, const EmpiricalCdf& power) {
  for (const EmpiricalCdf* c : {&busy, &power}) {
    if (std::string problem = CdfProblem(*c); !problem.empty())
      return Status::Error(StatusCode::kInvalidArgument, "power fit: " + problem);
  }
  const std::string who = "power fit: series '" + Label(busy) + "': ";
  if (busy.x.front() < 0 || busy.x.back() > 100)
    return Status::Error(StatusCode::kInvalidArgument, who + "busy values must be in 0..100 %");
  if (power.x.front() < 0) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "power fit: series '" + Label(power) + "': negative power");
  }
  PowerFit r;
  r.zero_mass = CdfAt(busy, 0);
  if (!(r.zero_mass > kLevelTol)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         who + "no zero-utilization mass: idle and context power not identified");
  }
  double suu = 0, sup = 0, sw = 0, su = 0, sp = 0;  // over pairs with u > 0
  for (const QuantilePair& q : QuantileMap(busy, power)) {
    if (q.busy <= 0) continue;
    const double w = q.level_hi - q.level_lo;
    suu += w * q.busy * q.busy;
    sw += w;
    su += w * q.busy;
    sp += w * q.watts;
    sup += w * q.busy * q.watts;
  }
  if (!(sw > kLevelTol)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         who + "no mass above zero utilization: the busy slope is not identified");
  }
  GpuPower& p = r.power;
  p.idle_w = QuantileAt(power, r.zero_mass / 10);
  p.context_w = QuantileAt(power, r.zero_mass);
  // Through (0, context_w): s = sum w u (P - c) / sum w u^2.
  const double slope = (sup - p.context_w * su) / suu;
  p.active_w = std::max(p.context_w, p.context_w + 100 * slope);
  p.source = "Acme " + Label(busy) + " vs " + Label(power) + " (rank-coupled fit, power_fit.h)";
  const double mid = (p.idle_w + p.context_w) / 2;
  r.zero_free_fraction = std::min(CdfAt(power, mid), r.zero_mass) / r.zero_mass;
  const double var = suu / sw - (su / sw) * (su / sw);
  const double b = var > 0 ? (sup / sw - (su / sw) * (sp / sw)) / var : 0;
  r.free_line_at_0_w = sp / sw - b * su / sw;
  r.free_line_at_100_w = r.free_line_at_0_w + 100 * b;
  r.observed_mean_w = CdfMean(power);
  return r;
}

namespace {

// Zero-busy mass split between idle_w and context_w; watts(u) for u > 0.
template <typename F>
EmpiricalCdf Predict(const GpuPower& p, const EmpiricalCdf& busy, double zero_free_fraction,
                     const F& watts) {
  const double f = std::clamp(zero_free_fraction, 0.0, 1.0);
  std::vector<std::pair<double, double>> atoms;
  for (size_t i = 0; i < busy.x.size(); ++i) {
    const double m = Mass(busy, i);
    if (busy.x[i] <= 0) {
      atoms.push_back({p.idle_w, m * f});
      atoms.push_back({p.context_w, m * (1 - f)});
    } else {
      atoms.push_back({watts(std::min(busy.x[i], 100.0)), m});
    }
  }
  return FromAtoms(std::move(atoms), "predicted from " + Label(busy));
}

}  // namespace

EmpiricalCdf PredictPowerCdf(const GpuPower& p, const EmpiricalCdf& busy,
                             double zero_free_fraction) {
  return Predict(p, busy, zero_free_fraction,
                 [&](double u) { return p.context_w + (p.active_w - p.context_w) * u / 100; });
}

double KsDistance(const EmpiricalCdf& a, const EmpiricalCdf& b) {
  double worst = 0, fa = 0, fb = 0;
  size_t i = 0, j = 0;
  while (i < a.x.size() || j < b.x.size()) {
    const double x = j == b.x.size() || (i < a.x.size() && a.x[i] <= b.x[j]) ? a.x[i] : b.x[j];
    while (i < a.x.size() && a.x[i] == x) fa = a.cdf[i++];
    while (j < b.x.size() && b.x[j] == x) fb = b.cdf[j++];
    worst = std::max(worst, std::abs(fa - fb));
  }
  return worst;
}

PowerCurve RankMapCurve(const EmpiricalCdf& busy, const EmpiricalCdf& power) {
  PowerCurve c;
  double w_sum = 0, p_sum = 0;
  auto flush = [&] {
    if (w_sum > 0) c.watts.push_back(p_sum / w_sum);
    w_sum = p_sum = 0;
  };
  for (const QuantilePair& q : QuantileMap(busy, power)) {
    if (q.busy <= 0) continue;
    if (c.busy.empty() || q.busy != c.busy.back()) {
      flush();
      c.busy.push_back(q.busy);
    }
    w_sum += q.level_hi - q.level_lo;
    p_sum += (q.level_hi - q.level_lo) * q.watts;
  }
  flush();
  return c;
}

double CurveWatts(const PowerCurve& curve, double busy) {
  if (curve.busy.empty()) return 0;
  if (busy <= curve.busy.front()) return curve.watts.front();
  if (busy >= curve.busy.back()) return curve.watts.back();
  const size_t k = static_cast<size_t>(
      std::upper_bound(curve.busy.begin(), curve.busy.end(), busy) - curve.busy.begin());
  const double t = (busy - curve.busy[k - 1]) / (curve.busy[k] - curve.busy[k - 1]);
  return curve.watts[k - 1] + t * (curve.watts[k] - curve.watts[k - 1]);
}

EmpiricalCdf PredictPowerCdfWithCurve(const GpuPower& p, const PowerCurve& curve,
                                      const EmpiricalCdf& busy, double zero_free_fraction) {
  return Predict(p, busy, zero_free_fraction, [&](double u) { return CurveWatts(curve, u); });
}

Result<AcmePowerCheck> AcmePowerCrossCheck(const std::string& path) {
  struct Input {
    const char *signal, *cluster, *busy, *power;
  };
  static const Input kInputs[] = {
      {"gpu_util", "seren", "util_gpu_seren.pkl:seren_gpu_util_pct", "seren_gpu_power_w"},
      {"gpu_util", "kalos", "util_gpu_kalos_full.pkl:kalos_gpu_util_pct", "kalos_gpu_power_w"},
      {"gpu_util", "kalos-paper", "util_gpu_kalos.pkl:kalos_gpu_util_pct", "kalos_gpu_power_w"},
      {"sm_active", "seren", "util_gpu_seren.pkl:seren_sm_active", "seren_gpu_power_w"},
      {"sm_active", "kalos", "util_gpu_kalos_full.pkl:kalos_sm_active", "kalos_gpu_power_w"},
  };
  std::vector<std::string> wanted = {"seren_gpu_server_power_w", "seren_cpu_server_power_w"};
  for (const Input& in : kInputs) {
    for (const char* s : {in.busy, in.power}) {
      if (std::find(wanted.begin(), wanted.end(), s) == wanted.end()) wanted.push_back(s);
    }
  }
  auto read = ReadAcmeCdfs(path, wanted);
  if (!read.ok()) return read.status();
  auto get = [&](const std::string& s) -> const EmpiricalCdf& {
    for (const EmpiricalCdf& c : read.value()) {
      if (s == c.name || s == c.source + ":" + c.name) return c;
    }
    return read.value().front();  // not reached: ReadAcmeCdfs found every selector
  };
  AcmePowerCheck r;
  std::vector<PowerCurve> curves;
  for (const Input& in : kInputs) {
    auto fit = FitGpuPower(get(in.busy), get(in.power));
    if (!fit.ok()) return fit.status();
    r.fits.push_back({in.signal, in.cluster, fit.value()});
    curves.push_back(RankMapCurve(get(in.busy), get(in.power)));
  }
  auto same_cluster = [](const std::string& a, const std::string& b) {
    return a.substr(0, 5) == b.substr(0, 5);  // kalos, kalos-paper
  };
  for (size_t i = 0; i < std::size(kInputs); ++i) {
    for (size_t j = 0; j < std::size(kInputs); ++j) {
      const Input &a = kInputs[i], &b = kInputs[j];
      if (std::string(a.signal) != b.signal) continue;
      if (i != j && same_cluster(a.cluster, b.cluster)) continue;
      const PowerFit& f = r.fits[i].fit;
      const EmpiricalCdf& observed = get(b.power);
      const EmpiricalCdf line = PredictPowerCdf(f.power, get(b.busy), f.zero_free_fraction);
      const EmpiricalCdf rank =
          PredictPowerCdfWithCurve(f.power, curves[i], get(b.busy), f.zero_free_fraction);
      r.rows.push_back({a.signal, a.cluster, b.cluster, KsDistance(line, observed),
                        KsDistance(rank, observed), CdfMean(line), CdfMean(observed)});
    }
  }
  NodeOverhead& n = r.node;
  const EmpiricalCdf& server = get("seren_gpu_server_power_w");
  n.server_mean_w = CdfMean(server);
  n.gpu_mean_w = CdfMean(get("seren_gpu_power_w"));
  n.mean_w = n.server_mean_w - 8 * n.gpu_mean_w;
  n.server_low_w = QuantileAt(server, 0.05);
  n.floor_w = n.server_low_w - 8 * r.fits[0].fit.power.idle_w;
  n.cpu_node_mean_w = CdfMean(get("seren_cpu_server_power_w"));
  return r;
}

}  // namespace utilsim
