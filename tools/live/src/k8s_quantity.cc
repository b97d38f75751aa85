// ParseQuantityMilli (utilsim/live/k8s_objects.h): a resource.Quantity
// string in milli-units, exactly. The grammar is upstream's
// (k8s.io/apimachinery/pkg/api/resource): an optional leading sign, digits
// with an optional decimal point ("1", "1.", ".5", "1.5"), then one suffix:
// a decimal SI one (n u m "" k M G T P E), a binary one (Ki .. Ei) or a
// decimal exponent (e/E and a signed integer, "1e3", "5E-2"). Nothing
// else: no spaces, no second sign.
//
// The value is computed on decimal digit strings, not floating point, so
// any input gives the exact result: value * 1000, rounded away from zero
// when it is not an integer (upstream's MilliValue rounds the same way:
// "1n" -> 1, "-1n" -> -1). Results beyond int64 (either sign) are errors.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "utilsim/live/k8s_objects.h"

namespace utilsim::live {

namespace {

constexpr int64_t kMaxExponent = 1000000;  // |e| beyond this saturates

Status Syntax(std::string_view q, const std::string& why) {
  return Status::Error(StatusCode::kInvalidArgument,
                       "expected a quantity, got '" + std::string(q) + "' (" + why + ")");
}

Status Range(std::string_view q) {
  return Status::Error(StatusCode::kInvalidArgument,
                       "quantity '" + std::string(q) +
                           "' is out of range (more than 9223372036854775807 milli-units)");
}

// The suffix's power of ten and power of two; false when unknown.
bool SuffixScale(std::string_view s, int* pow10, int* pow2) {
  struct Entry {
    std::string_view name;
    int pow10, pow2;
  };
  static constexpr Entry kSuffixes[] = {
      {"", 0, 0},    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},  {"k", 3, 0},   {"M", 6, 0},
      {"G", 9, 0},   {"T", 12, 0},  {"P", 15, 0},  {"E", 18, 0},  {"Ki", 0, 10}, {"Mi", 0, 20},
      {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
  };
  for (const Entry& e : kSuffixes) {
    if (e.name == s) {
      *pow10 = e.pow10;
      *pow2 = e.pow2;
      return true;
    }
  }
  return false;
}

// A signed decimal integer ("3", "-2", "+10"), saturated at kMaxExponent.
bool ParseExponent(std::string_view s, int64_t* out) {
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = std::min<int64_t>(v * 10 + (c - '0'), kMaxExponent);
  }
  *out = neg ? -v : v;
  return true;
}

// digits *= m (m small), in place; digits is a decimal string without sign.
void MultiplySmall(std::string* digits, int m) {
  int carry = 0;
  for (auto it = digits->rbegin(); it != digits->rend(); ++it) {
    int v = (*it - '0') * m + carry;
    *it = static_cast<char>('0' + v % 10);
    carry = v / 10;
  }
  while (carry > 0) {
    digits->insert(digits->begin(), static_cast<char>('0' + carry % 10));
    carry /= 10;
  }
}

// A decimal string of at most 19 digits as int64; false beyond INT64_MAX.
bool ToInt64(std::string_view digits, int64_t* out) {
  if (digits.size() > 19) return false;
  uint64_t v = 0;
  for (char c : digits) v = v * 10 + static_cast<uint64_t>(c - '0');
  if (v > static_cast<uint64_t>(INT64_MAX)) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

}  // namespace

Result<int64_t> ParseQuantityMilli(std::string_view q) {
  if (q.empty()) return Syntax(q, "empty");
  size_t i = 0;
  bool negative = false;
  if (q[0] == '+' || q[0] == '-') {
    negative = q[0] == '-';
    i = 1;
  }
  std::string digits;  // integer and fraction digits together
  int64_t fraction_digits = 0;
  bool dot = false;
  for (; i < q.size(); ++i) {
    char c = q[i];
    if (c >= '0' && c <= '9') {
      digits += c;
      if (dot) ++fraction_digits;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (digits.empty()) return Syntax(q, "no digits");
  std::string_view suffix = q.substr(i);
  int pow10 = 0, pow2 = 0;
  int64_t exponent = 0;
  if (!SuffixScale(suffix, &pow10, &pow2)) {
    bool exponent_like = suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E') &&
                         std::string_view("0123456789+-").find(suffix[1]) != std::string_view::npos;
    if (exponent_like) {
      if (!ParseExponent(suffix.substr(1), &exponent)) {
        return Syntax(q, "bad exponent '" + std::string(suffix) + "'");
      }
    } else if (suffix.find_first_of("+-") != std::string_view::npos) {
      return Syntax(q, "a sign is allowed only at the start");
    } else {
      return Syntax(q, "unknown suffix '" + std::string(suffix) + "'");
    }
  }

  // value = digits * 2^pow2 * 10^scale, in milli-units.
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  if (digits.empty()) return int64_t{0};
  for (int k = 0; k < pow2; k += 10) MultiplySmall(&digits, 1024);
  int64_t scale = 3 + pow10 + exponent - fraction_digits;
  const int64_t len = static_cast<int64_t>(digits.size());
  int64_t magnitude = 0;
  if (scale >= 0) {
    if (len + scale > 19) return Range(q);
    digits.append(static_cast<size_t>(scale), '0');
    if (!ToInt64(digits, &magnitude)) return Range(q);
  } else if (-scale >= len) {
    magnitude = 1;  // 0 < value < 1 milli-unit: rounds up to 1
  } else {
    size_t whole = static_cast<size_t>(len + scale);
    if (!ToInt64(std::string_view(digits).substr(0, whole), &magnitude)) return Range(q);
    bool inexact = digits.find_first_not_of('0', whole) != std::string::npos;
    if (inexact) {
      if (magnitude == INT64_MAX) return Range(q);
      ++magnitude;
    }
  }
  return negative ? -magnitude : magnitude;
}

}  // namespace utilsim::live
