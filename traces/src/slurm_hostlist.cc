// Slurm host lists: ExpandHostlist and CompressHostlist (slurm_text.h).
#include <string>
#include <string_view>
#include <vector>

#include "slurm_internal.h"
#include "utilsim/traces/slurm_text.h"

namespace utilsim::traces {

namespace {

using internal::Expected;

constexpr int64_t kMaxNumber = 999'999'999'999'999'999;  // 18 digits

bool IsSeparator(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// One numeric range of a bracket group: lo..hi, each printed with at least
// `width` digits.
struct Range {
  int64_t lo, hi;
  size_t width;
};

// A name is literal text and bracket groups, in order.
struct Part {
  std::string text;           // literal when ranges is empty
  std::vector<Range> ranges;  // a bracket group
  // Names of the group, or more than kMaxHostlistNames when it is larger.
  int64_t size() const {
    int64_t n = 0;
    for (const Range& r : ranges) {
      n += r.hi - r.lo + 1;
      if (n > kMaxHostlistNames) break;
    }
    return n;
  }
};

std::string Padded(int64_t v, size_t width) {
  std::string s = std::to_string(v);
  if (s.size() < width) s.insert(0, width - s.size(), '0');
  return s;
}

// Parses the inside of one bracket group ("1-3,07").
Status ParseGroup(std::string_view inside, std::string_view expr, Part* part) {
  if (inside.empty()) return Expected("a number or range inside [] in a host list", expr);
  size_t pos = 0;
  while (pos <= inside.size()) {
    size_t comma = inside.find(',', pos);
    if (comma == std::string_view::npos) comma = inside.size();
    const std::string_view item = inside.substr(pos, comma - pos);
    const size_t dash = item.find('-');
    const std::string_view lo_text = item.substr(0, dash);
    const std::string_view hi_text =
        dash == std::string_view::npos ? lo_text : item.substr(dash + 1);
    const auto lo = internal::Digits(lo_text, kMaxNumber);
    const auto hi = internal::Digits(hi_text, kMaxNumber);
    if (!lo || !hi)
      return Expected("numbers or ranges lo-hi of at most 18 digits inside [] in a host list",
                      expr);
    if (*hi < *lo) return Expected("ranges lo-hi with lo <= hi in a host list", expr);
    part->ranges.push_back({*lo, *hi, lo_text.size()});
    pos = comma + 1;
  }
  return Status::Ok();
}

// Splits one name ("r[1-2]-n[1-2]") into parts.
Status ParseName(std::string_view name, std::string_view expr, std::vector<Part>* parts) {
  size_t pos = 0;
  while (pos < name.size()) {
    const size_t open = name.find('[', pos);
    if (open == std::string_view::npos) {
      parts->push_back({std::string(name.substr(pos)), {}});
      break;
    }
    if (open > pos) parts->push_back({std::string(name.substr(pos, open - pos)), {}});
    const size_t close = name.find(']', open);
    Part group;
    if (Status s = ParseGroup(name.substr(open + 1, close - open - 1), expr, &group); !s.ok())
      return s;
    parts->push_back(std::move(group));
    pos = close + 1;
  }
  return Status::Ok();
}

// Appends every name of `parts` (cartesian product, first group outermost),
// with an odometer over the groups rather than recursion (a name may hold
// many groups).
void Emit(const std::vector<Part>& parts, std::vector<std::string>* out) {
  // Per part: index of its range and the value within it.
  std::vector<size_t> range(parts.size(), 0);
  std::vector<int64_t> value(parts.size());
  for (size_t i = 0; i < parts.size(); ++i)
    if (!parts[i].ranges.empty()) value[i] = parts[i].ranges[0].lo;
  for (;;) {
    std::string name;
    for (size_t i = 0; i < parts.size(); ++i)
      name += parts[i].ranges.empty() ? parts[i].text
                                      : Padded(value[i], parts[i].ranges[range[i]].width);
    out->push_back(std::move(name));
    // Advance the last group first.
    size_t i = parts.size();
    for (; i > 0; --i) {
      const Part& p = parts[i - 1];
      if (p.ranges.empty()) continue;
      if (value[i - 1] < p.ranges[range[i - 1]].hi) {
        ++value[i - 1];
        break;
      }
      if (range[i - 1] + 1 < p.ranges.size()) {
        value[i - 1] = p.ranges[++range[i - 1]].lo;
        break;
      }
      range[i - 1] = 0;
      value[i - 1] = p.ranges[0].lo;
    }
    if (i == 0) return;
  }
}

// Splits a name into its prefix and trailing digits (of at most 18).
bool SplitNumber(const std::string& name, std::string_view* prefix, std::string_view* digits) {
  size_t k = name.size();
  while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9') --k;
  if (k == name.size() || name.size() - k > 18) return false;
  *prefix = std::string_view(name).substr(0, k);
  *digits = std::string_view(name).substr(k);
  return true;
}

// Parses every name of `expr` into its parts; returns the number of names.
Result<int64_t> ParseHostlist(std::string_view expr, std::vector<std::vector<Part>>* names) {
  // Entries at bracket depth 0, checking the brackets on the way.
  std::vector<std::string_view> entries;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i <= expr.size(); ++i) {
    const char c = i < expr.size() ? expr[i] : ',';
    if (c == '[') {
      if (depth > 0) return Expected("no '[' inside [...] in a host list", expr);
      ++depth;
    } else if (c == ']') {
      if (depth == 0) return Expected("']' only after '[' in a host list", expr);
      --depth;
    } else if (depth == 0 && IsSeparator(c)) {
      if (i > begin) entries.push_back(expr.substr(begin, i - begin));
      begin = i + 1;
    }
  }
  if (depth != 0) return Expected("']' to close every '[' in a host list", expr);
  names->assign(entries.size(), {});
  int64_t total = 0;
  for (size_t e = 0; e < entries.size(); ++e) {
    if (Status s = ParseName(entries[e], expr, &(*names)[e]); !s.ok()) return s;
    int64_t n = 1;
    for (const Part& p : (*names)[e]) {
      if (p.ranges.empty()) continue;
      const int64_t size = p.size();
      if (size > kMaxHostlistNames || n > kMaxHostlistNames / size) {
        n = kMaxHostlistNames + 1;
        break;
      }
      n *= size;
    }
    total += n;
    if (total > kMaxHostlistNames) return Expected("a host list of at most 1000000 names", expr);
  }
  return total;
}

}  // namespace

namespace internal {

Result<int64_t> CountHostlist(std::string_view expr) {
  std::vector<std::vector<Part>> names;
  return ParseHostlist(expr, &names);
}

}  // namespace internal

Result<std::vector<std::string>> ExpandHostlist(std::string_view expr) {
  std::vector<std::vector<Part>> names;
  auto total = ParseHostlist(expr, &names);
  if (!total.ok()) return total.status();
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(total.value()));
  for (const auto& parts : names) Emit(parts, &out);
  return out;
}

std::string CompressHostlist(const std::vector<std::string>& names) {
  std::string out;
  size_t i = 0;
  while (i < names.size()) {
    std::string_view prefix, digits;
    if (!SplitNumber(names[i], &prefix, &digits)) {
      out += (out.empty() ? "" : ",") + names[i];
      ++i;
      continue;
    }
    // Ranges of consecutive names sharing `prefix`.
    std::string group;
    size_t ranges = 0;
    while (i < names.size()) {
      std::string_view p, d;
      if (!SplitNumber(names[i], &p, &d) || p != prefix) break;
      const int64_t lo = *internal::Digits(d, kMaxNumber);
      int64_t hi = lo;
      size_t j = i + 1;
      while (j < names.size() && hi < kMaxNumber) {
        std::string_view p2, d2;
        if (!SplitNumber(names[j], &p2, &d2) || p2 != prefix || d2 != Padded(hi + 1, d.size()))
          break;
        ++hi;
        ++j;
      }
      group += (ranges++ ? "," : "") + std::string(d);
      if (hi > lo) group += "-" + Padded(hi, d.size());
      i = j;
    }
    out += out.empty() ? "" : ",";
    // A single name stays as it is ("b3", not "b[3]").
    out += std::string(prefix) +
           (group.find_first_of(",-") == std::string::npos ? group : "[" + group + "]");
  }
  return out;
}

}  // namespace utilsim::traces
