// Simulated time: int64 microseconds since simulation start, never wall clock.
//
// Micros is used both for points in time and for durations; variable names say
// which. Arithmetic is plain int64 and callers keep values inside
// [-kMaxSeconds, kMaxSeconds] seconds so that sums cannot overflow.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string_view>

#include "utilsim/engine/units.h"

namespace utilsim {

struct Micros {
  int64_t us = 0;

  constexpr Micros() = default;
  constexpr explicit Micros(int64_t v) : us(v) {}

  constexpr auto operator<=>(const Micros&) const = default;
  constexpr Micros operator+(Micros o) const { return Micros(us + o.us); }
  constexpr Micros operator-(Micros o) const { return Micros(us - o.us); }
  constexpr Micros& operator+=(Micros o) {
    us += o.us;
    return *this;
  }
  constexpr double seconds() const { return static_cast<double>(us) / kMicrosPerSecond; }
};

// Largest magnitude (in seconds) accepted from any input: 1000 years. Keeps
// all time arithmetic far from int64 overflow.
inline constexpr double kMaxSeconds = 1000.0 * 365.0 * 86400.0;
inline constexpr Micros kNever{INT64_MAX};

// Exact conversion for integer seconds.
constexpr Micros Seconds(int64_t s) { return Micros(s * kMicrosPerSecond); }

// Rounds a finite number of seconds to the nearest microsecond. Returns
// nullopt when s is NaN, infinite or beyond kMaxSeconds.
std::optional<Micros> FromSeconds(double s);

}  // namespace utilsim
