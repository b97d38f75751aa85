#include "utilsim/engine/power.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "format.h"

namespace utilsim {

namespace {

bool SameNoCase(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

using internal::FormatG;

std::string CheckOne(const std::string& name, const GpuPower& p) {
  const std::string where = "model '" + name + "': ";
  for (double v : {p.idle_w, p.context_w, p.active_w})
    if (!std::isfinite(v) || v < 0) return where + "watts must be finite and >= 0";
  if (p.context_w < p.idle_w)
    return where + "context_w " + FormatG(p.context_w) + " below idle_w " + FormatG(p.idle_w);
  if (p.active_w < p.context_w)
    return where + "active_w " + FormatG(p.active_w) + " below context_w " + FormatG(p.context_w);
  if (!std::isfinite(p.tdp_w) || p.tdp_w < 0) return where + "tdp_w must be finite and >= 0";
  if (!std::isfinite(p.cap_w) || p.cap_w < 0) return where + "cap_w must be finite and >= 0";
  return {};
}

}  // namespace

const GpuPower& PowerOf(const PowerModel& m, const std::string& name) {
  for (const auto& [n, p] : m.models)
    if (n == name) return p;
  for (const auto& [n, p] : m.models)
    if (SameNoCase(n, name)) return p;
  return m.fallback;
}

double GpuWatts(const GpuPower& p, double allocated, double busy) {
  if (allocated <= 0) return p.idle_w;
  return p.context_w + (p.active_w - p.context_w) * busy;
}

std::string CheckPowerModel(const PowerModel& m) {
  for (const auto& [n, p] : m.models)
    if (std::string e = CheckOne(n, p); !e.empty()) return e;
  if (std::string e = CheckOne("(fallback)", m.fallback); !e.empty()) return e;
  if (!std::isfinite(m.node_w_per_gpu) || m.node_w_per_gpu < 0)
    return "node_w_per_gpu must be finite and >= 0";
  if (!std::isfinite(m.cpu_node_w) || m.cpu_node_w < 0) return "cpu_node_w must be finite and >= 0";
  if (!std::isfinite(m.pue) || m.pue < 1) return "pue must be finite and >= 1";
  return CheckCapCurve(m.cap_curve);
}

const std::vector<CapPoint>& DefaultCapCurve() {
  // Zeus NSDI'23 artifact, trace/summary_power_v100.csv, imagenet resnet50
  // batch 256: (power limit W, time per epoch s, average power W) =
  // (100, 6781.17, 98.38) (125, 5064.97, 121.97) (150, 4148.66, 144.59)
  // (175, 3852.18, 166.37) (200, 3700.97, 184.94) (225, 3584.30, 205.44)
  // (250, 3514.99, 220.25); g = limit / 220.25, time and energy (time x
  // power) relative to the 250 W row, to 5 decimals.
  static const std::vector<CapPoint> kCurve = {
      {100 / 220.25, 1.92922, 0.86175}, {125 / 220.25, 1.44096, 0.79795},
      {150 / 220.25, 1.18028, 0.77485}, {175 / 220.25, 1.09593, 0.82784},
      {200 / 220.25, 1.05291, 0.88413}, {225 / 220.25, 1.01972, 0.95114},
      {250 / 220.25, 1.0, 1.0}};
  return kCurve;
}

std::string CheckCapCurve(const std::vector<CapPoint>& curve) {
  if (curve.empty()) return "the power-cap curve has no points";
  for (size_t i = 0; i < curve.size(); ++i) {
    const CapPoint& c = curve[i];
    const std::string where = "power-cap curve point " + std::to_string(i + 1) + ": ";
    if (!std::isfinite(c.g) || c.g <= 0) return where + "g must be > 0";
    if (i > 0 && c.g <= curve[i - 1].g) return where + "g must increase from point to point";
    if (!std::isfinite(c.time) || c.time < 1) return where + "time must be >= 1";
    if (!std::isfinite(c.energy) || c.energy <= 0) return where + "energy must be > 0";
  }
  if (curve.back().time != 1 || curve.back().energy != 1)
    return "power-cap curve: the last point (the uncapped draw) must have time 1 and energy 1";
  return {};
}

CapPoint CapAt(const std::vector<CapPoint>& curve, double g) {
  if (g >= curve.back().g) return CapPoint{g, 1, 1};
  if (g <= curve.front().g) return CapPoint{g, curve.front().time, curve.front().energy};
  size_t i = 1;
  while (curve[i].g < g) ++i;
  const CapPoint& a = curve[i - 1];
  const CapPoint& b = curve[i];
  const double t = (g - a.g) / (b.g - a.g);
  return CapPoint{g, a.time + t * (b.time - a.time), a.energy + t * (b.energy - a.energy)};
}

Result<std::vector<PowerCap>> ParsePowerCaps(const std::string& text) {
  std::vector<PowerCap> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    const std::string where = "power cap '" + item + "': ";
    PowerCap cap;
    std::string value = item;
    if (size_t eq = item.find('='); eq != std::string::npos) {
      cap.model = item.substr(0, eq);
      value = item.substr(eq + 1);
      if (cap.model.empty()) return Status::Error(where + "no GPU model before '='");
    }
    const bool pct = !value.empty() && value.back() == '%';
    if (pct) value.pop_back();
    char* rest = nullptr;
    const double v = value.empty() ? NAN : std::strtod(value.c_str(), &rest);
    if (value.empty() || rest == nullptr || *rest != '\0' || !std::isfinite(v) || v <= 0)
      return Status::Error(where + "expected watts (\"250\") or a share of TDP (\"70%\"), " +
                           "optionally after MODEL=");
    if (pct) {
      if (v > 100) return Status::Error(where + "a share of TDP must be at most 100%");
      cap.tdp_fraction = v / 100;
    } else {
      cap.watts = v;
    }
    out.push_back(cap);
    if (end == text.size()) break;
  }
  return out;
}

Status ApplyPowerCaps(const std::vector<PowerCap>& caps, ClusterSpec* spec, PowerModel* power) {
  const std::vector<CapPoint> curve = power->cap_curve;
  if (std::string e = CheckCapCurve(curve); !e.empty()) return Status::Error(e);
  // The uncapped figures of each model, so that a later cap of a model
  // replaces an earlier one instead of compounding.
  std::vector<GpuPower> base;
  std::vector<double> base_speed;
  for (const GpuModelSpec& m : spec->models) {
    base.push_back(PowerOf(*power, m.name));
    base_speed.push_back(m.speed);
  }
  std::vector<int> capped(spec->models.size(), 0);
  std::vector<GpuPower> result = base;
  for (const PowerCap& cap : caps) {
    bool matched = false;
    for (size_t i = 0; i < spec->models.size(); ++i) {
      GpuModelSpec& m = spec->models[i];
      if (!cap.model.empty() && cap.model != m.name) continue;
      matched = true;
      const GpuPower& p = base[i];
      const std::string where = "power cap of GPU model '" + m.name + "': ";
      double watts = cap.watts;
      if (watts <= 0) {
        if (p.tdp_w <= 0)
          return Status::Error(where +
                               "a share of TDP needs the model's tdp_w (give --power a "
                               "file with tdp_w, or cap in watts)");
        watts = cap.tdp_fraction * p.tdp_w;
      }
      if (watts <= p.context_w)
        return Status::Error(where + FormatG(watts) + " W is not above its context power " +
                             FormatG(p.context_w) + " W");
      const double g = watts / p.active_w;
      if (g < curve.front().g)
        return Status::Error(where + FormatG(watts) + " W is " + FormatG(g) +
                             " of its busy power, below the power-cap curve's first point " +
                             FormatG(curve.front().g) + " (no data)");
      const CapPoint at = CapAt(curve, g);
      m.speed = base_speed[i] / at.time;
      result[i] = p;
      result[i].active_w = std::max(p.context_w, p.active_w * at.energy / at.time);
      result[i].cap_w = watts;
      capped[i] = 1;
    }
    if (!matched)
      return Status::Error("power cap: GPU model '" + cap.model + "' is not in the cluster");
  }
  // Exact entries first, so that they win over any case-insensitive or
  // fallback match (and over MIG instance derivation, which scales them).
  std::vector<std::pair<std::string, GpuPower>> exact;
  for (size_t i = 0; i < spec->models.size(); ++i)
    if (capped[i]) exact.emplace_back(spec->models[i].name, result[i]);
  power->models.insert(power->models.begin(), exact.begin(), exact.end());
  return Status::Ok();
}

double BudgetWatts(const GpuPower& p) {
  double peak = p.tdp_w > 0 ? p.tdp_w : p.active_w;
  if (p.cap_w > 0) peak = std::min(peak, p.cap_w);
  return std::max(0.0, peak - p.idle_w);
}

}  // namespace utilsim
