#include "utilsim/engine/power.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace utilsim {

namespace {

bool SameNoCase(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string CheckOne(const std::string& name, const GpuPower& p) {
  const std::string where = "model '" + name + "': ";
  for (double v : {p.idle_w, p.context_w, p.active_w})
    if (!std::isfinite(v) || v < 0) return where + "watts must be finite and >= 0";
  if (p.context_w < p.idle_w)
    return where + "context_w " + Num(p.context_w) + " below idle_w " + Num(p.idle_w);
  if (p.active_w < p.context_w)
    return where + "active_w " + Num(p.active_w) + " below context_w " + Num(p.context_w);
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
  return {};
}

}  // namespace utilsim
