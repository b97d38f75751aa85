// CsvReader typed field accessors and error formatting; ParseSeconds.
#include <charconv>
#include <cmath>

#include "utilsim/engine/csv.h"
#include "utilsim/engine/units.h"

namespace utilsim {

namespace {

// Skips one leading '+' (from_chars does not accept it) unless a sign follows.
const char* SkipPlus(std::string_view s) {
  if (s.size() >= 2 && s[0] == '+' && s[1] != '-' && s[1] != '+') return s.data() + 1;
  return s.data();
}

template <typename T>
std::optional<T> ParseFloating(std::string_view s) {
  if (s.empty()) return std::nullopt;
  T v{};
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(SkipPlus(s), end, v, std::chars_format::general);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(SkipPlus(s), end, v);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

}  // namespace

std::optional<Micros> ParseSeconds(std::string_view s) {
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  int64_t whole = 0;
  int whole_digits = 0;  // significant digits of the whole part
  size_t digits = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
    if (whole_digits > 0 || s[i] != '0') ++whole_digits;
    if (whole_digits <= 12) whole = whole * 10 + (s[i] - '0');
  }
  int64_t frac = 0;
  int frac_digits = 0;
  bool round_up = false;
  if (i < s.size() && s[i] == '.') {
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
      if (frac_digits < 6) {
        frac = frac * 10 + (s[i] - '0');
      } else if (frac_digits == 6) {
        round_up = s[i] >= '5';
      }
      ++frac_digits;
    }
  }
  if (i != s.size() || digits == 0 || whole_digits > 12) {
    // Exponents and other forms: the double path.
    auto d = ParseFloating<double>(s);
    if (!d) return std::nullopt;
    return FromSeconds(*d);
  }
  for (int k = frac_digits; k < 6; ++k) frac *= 10;
  int64_t us = whole * kMicrosPerSecond + frac + (round_up ? 1 : 0);
  if (static_cast<double>(us) > kMaxSeconds * kMicrosPerSecond) return std::nullopt;
  return Micros(neg ? -us : us);
}

std::string CsvReader::ColumnName(size_t i) const {
  if (i < columns_.size() && !columns_[i].empty()) return columns_[i];
  return "column " + std::to_string(i + 1);
}

Status CsvReader::RowError(std::string_view message) const {
  return Status::Error(source_ + ":" + std::to_string(row_line_) + ": " + std::string(message));
}

Status CsvReader::FieldError(size_t i, std::string_view expected) const {
  std::string_view text = field(i);
  std::string shown(text.substr(0, 100));
  if (text.size() > 100) shown += "...";
  return RowError("field '" + ColumnName(i) + "': expected " + std::string(expected) + ", got '" +
                  shown + "'");
}

Result<int64_t> CsvReader::Int(size_t i) const {
  if (auto v = ParseInt(field(i))) return *v;
  return FieldError(i, "an integer");
}

Result<double> CsvReader::Double(size_t i) const {
  if (auto v = ParseFloating<double>(field(i))) return *v;
  return FieldError(i, "a number");
}

Result<float> CsvReader::Float(size_t i) const {
  if (auto v = ParseFloating<float>(field(i))) return *v;
  return FieldError(i, "a number");
}

Result<Micros> CsvReader::Time(size_t i) const {
  if (auto v = ParseSeconds(field(i))) return *v;
  return FieldError(i, "a time in seconds");
}

Result<std::optional<int64_t>> CsvReader::OptInt(size_t i) const {
  if (field(i).empty()) return std::optional<int64_t>();
  auto v = Int(i);
  if (!v.ok()) return v.status();
  return std::optional<int64_t>(v.value());
}

Result<std::optional<double>> CsvReader::OptDouble(size_t i) const {
  if (field(i).empty()) return std::optional<double>();
  auto v = Double(i);
  if (!v.ok()) return v.status();
  return std::optional<double>(v.value());
}

Result<std::optional<Micros>> CsvReader::OptTime(size_t i) const {
  if (field(i).empty()) return std::optional<Micros>();
  auto v = Time(i);
  if (!v.ok()) return v.status();
  return std::optional<Micros>(v.value());
}

}  // namespace utilsim
