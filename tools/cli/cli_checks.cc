#include "cli_checks.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "suggest.h"

namespace utilsim::cli::checks {
namespace {

bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "seconds >= 0", "a fraction in 0..1", "a percentage in (0, 100]".
std::string RangeText(const Range& r) {
  const bool has_lo = std::isfinite(r.lo), has_hi = std::isfinite(r.hi);
  if (has_lo && has_hi) {
    if (!r.lo_open && !r.hi_open) return r.what + " in " + Num(r.lo) + ".." + Num(r.hi);
    return r.what + " in " + (r.lo_open ? "(" : "[") + Num(r.lo) + ", " + Num(r.hi) +
           (r.hi_open ? ")" : "]");
  }
  if (has_lo) return r.what + (r.lo_open ? " > " : " >= ") + Num(r.lo);
  if (has_hi) return r.what + (r.hi_open ? " < " : " <= ") + Num(r.hi);
  return r.what;
}

// The short form for --help: ">=0", "0..1", "(0,100]".
std::string ShortRange(const Range& r) {
  const bool has_lo = std::isfinite(r.lo), has_hi = std::isfinite(r.hi);
  if (has_lo && has_hi) {
    if (!r.lo_open && !r.hi_open) return Num(r.lo) + ".." + Num(r.hi);
    return std::string(r.lo_open ? "(" : "[") + Num(r.lo) + "," + Num(r.hi) +
           (r.hi_open ? ")" : "]");
  }
  if (has_lo) return (r.lo_open ? ">" : ">=") + Num(r.lo);
  if (has_hi) return (r.hi_open ? "<" : "<=") + Num(r.hi);
  return "";
}

std::string Got(const std::string& s) { return ", got '" + s + "'"; }

}  // namespace

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

CLI::Validator Real(const Range& r) {
  return CLI::Validator(
      [r](std::string& s) -> std::string {
        const std::string expected = "expected " + RangeText(r) + Got(s);
        if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return expected;
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (end != s.c_str() + s.size() || !std::isfinite(v)) return expected;
        if (r.lo_open ? !(v > r.lo) : !(v >= r.lo)) return expected;
        if (r.hi_open ? !(v < r.hi) : !(v <= r.hi)) return expected;
        return "";
      },
      ShortRange(r));
}

CLI::Validator AtLeast(double lo, const std::string& what) {
  Range r;
  r.lo = lo;
  r.what = what;
  return Real(r);
}

CLI::Validator Above(double lo, const std::string& what) {
  Range r;
  r.lo = lo;
  r.lo_open = true;
  r.what = what;
  return Real(r);
}

CLI::Validator Within(double lo, double hi, const std::string& what) {
  Range r;
  r.lo = lo;
  r.hi = hi;
  r.what = what;
  return Real(r);
}

CLI::Validator Integer(int64_t lo, int64_t hi) {
  const bool unbounded = hi == std::numeric_limits<int64_t>::max();
  const std::string range = unbounded
                                ? "an integer >= " + std::to_string(lo)
                                : "an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
  const std::string brief =
      unbounded ? ">=" + std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi);
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        const std::string expected = "expected " + range + Got(s);
        if (!AllDigits(s)) return expected;
        const size_t nz = s.find_first_not_of('0');
        const std::string digits = nz == std::string::npos ? "0" : s.substr(nz);
        errno = 0;
        const unsigned long long v = std::strtoull(digits.c_str(), nullptr, 10);
        if (errno == ERANGE || v > static_cast<unsigned long long>(hi) ||
            static_cast<long long>(v) < lo)
          return expected;
        s = digits;  // decimal for CLI11 (which reads 010 as octal)
        return "";
      },
      brief);
}

CLI::Validator Seed() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        const std::string expected =
            "expected an integer in 0..18446744073709551615 (plain decimal digits)" + Got(s);
        if (!AllDigits(s)) return expected;
        const size_t nz = s.find_first_not_of('0');
        const std::string digits = nz == std::string::npos ? "0" : s.substr(nz);
        errno = 0;
        (void)std::strtoull(digits.c_str(), nullptr, 10);
        if (errno == ERANGE) return expected;
        s = digits;
        return "";
      },
      "0..2^64-1");
}

CLI::Validator OneOf(std::vector<std::string> names) {
  std::string list;
  for (size_t i = 0; i < names.size(); ++i)
    list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return CLI::Validator(
      [names, list](std::string& s) -> std::string {
        for (const auto& n : names)
          if (s == n) return "";
        return "expected " + list + Got(s) + DidYouMean(Suggest(s, names));
      },
      "");
}

CLI::Validator Parsed(std::function<Status(const std::string&)> parse) {
  return CLI::Validator(
      [parse](std::string& s) -> std::string {
        const Status st = parse(s);
        if (st.ok()) return "";
        std::string m = st.message();
        // "--option: rest" -> "rest"; CLI11 names the option.
        if (m.rfind("--", 0) == 0)
          if (const size_t colon = m.find(": "); colon != std::string::npos && m.find(' ') > colon)
            m = m.substr(colon + 2);
        return m;
      },
      "");
}

CLI::Validator ListOf(const std::string& what) {
  return CLI::Validator(
      [what](std::string& s) -> std::string {
        const bool empty_entry =
            s.empty() || s.front() == ',' || s.back() == ',' || s.find(",,") != std::string::npos;
        if (!empty_entry) return "";
        return "expected comma-separated " + what + " without empty entries" + Got(s);
      },
      "");
}

}  // namespace utilsim::cli::checks
