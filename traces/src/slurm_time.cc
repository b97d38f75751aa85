// Slurm durations and time stamps: ParseSlurmDuration and ParseSlurmTime
// (slurm_text.h).
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "slurm_internal.h"
#include "utilsim/traces/slurm_text.h"

namespace utilsim::traces {

namespace {

using internal::Expected;

constexpr int64_t kMaxSec = static_cast<int64_t>(kMaxSeconds);
constexpr int64_t kMaxPart = 1'000'000'000'000;  // any part: keeps the sums in int64

// Splits "a:b:c" at ':'.
std::vector<std::string_view> Colons(std::string_view s) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  for (;;) {
    const size_t c = s.find(':', pos);
    out.push_back(s.substr(pos, c - pos));
    if (c == std::string_view::npos) return out;
    pos = c + 1;
  }
}

}  // namespace

Result<std::optional<Micros>> ParseSlurmDuration(std::string_view text) {
  for (const char* word : {"UNLIMITED", "INFINITE", "Partition_Limit", "INVALID"})
    if (internal::IEquals(text, word)) return std::optional<Micros>();
  const char* what =
      "a Slurm duration (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S) or UNLIMITED, INFINITE, "
      "Partition_Limit";
  int64_t days = 0;
  std::string_view rest = text;
  const size_t dash = text.find('-');
  if (dash != std::string_view::npos) {
    const auto d = internal::Digits(text.substr(0, dash), kMaxPart);
    if (!d) return Expected(what, text);
    days = *d;
    rest = text.substr(dash + 1);
  }
  std::vector<int64_t> parts;
  for (std::string_view p : Colons(rest)) {
    const auto v = internal::Digits(p, kMaxPart);
    if (!v) return Expected(what, text);
    parts.push_back(*v);
  }
  if (parts.size() > 3) return Expected(what, text);
  int64_t seconds = 0;
  if (dash != std::string_view::npos) {
    // D-H, D-H:M, D-H:M:S.
    const int64_t unit[3] = {3600, 60, 1};
    for (size_t i = 0; i < parts.size(); ++i) seconds += parts[i] * unit[i];
  } else if (parts.size() == 1) {
    seconds = parts[0] * 60;  // M
  } else if (parts.size() == 2) {
    seconds = parts[0] * 60 + parts[1];  // M:S
  } else {
    seconds = parts[0] * 3600 + parts[1] * 60 + parts[2];  // H:M:S
  }
  if (days > kMaxSec / 86400 || seconds > kMaxSec - days * 86400)
    return Expected("a duration of at most 1000 years", text);
  return std::optional<Micros>(Seconds(days * 86400 + seconds));
}

Result<std::optional<int64_t>> ParseSlurmTime(std::string_view text) {
  if (text.empty() || text == "Unknown" || text == "None") return std::optional<int64_t>();
  const char* what = "UNIX seconds >= 0 or a time YYYY-MM-DDTHH:MM:SS (or Unknown, None)";
  if (auto v = internal::Digits(text, kMaxSec)) return std::optional<int64_t>(*v);
  if (text.size() != 19 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':')
    return Expected(what, text);
  const auto y = internal::Digits(text.substr(0, 4), 9999);
  const auto mo = internal::Digits(text.substr(5, 2), 12);
  const auto d = internal::Digits(text.substr(8, 2), 31);
  const auto h = internal::Digits(text.substr(11, 2), 23);
  const auto mi = internal::Digits(text.substr(14, 2), 59);
  const auto s = internal::Digits(text.substr(17, 2), 60);
  if (!y || !mo || !d || !h || !mi || !s) return Expected(what, text);
  using namespace std::chrono;
  const year_month_day ymd{year(static_cast<int>(*y)), month(static_cast<unsigned>(*mo)),
                           day(static_cast<unsigned>(*d))};
  if (!ymd.ok() || *y < 1970) return Expected("a valid date since 1970", text);
  const int64_t days = sys_days(ymd).time_since_epoch().count();
  return std::optional<int64_t>(days * 86400 + *h * 3600 + *mi * 60 + *s);
}

}  // namespace utilsim::traces
