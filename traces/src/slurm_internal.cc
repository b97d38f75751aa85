#include "slurm_internal.h"

#include <cctype>
#include <limits>

namespace utilsim::traces::internal {

Status Expected(std::string_view what, std::string_view text) {
  std::string shown(text.substr(0, 100));
  if (text.size() > 100) shown += "...";
  return Status::Error(StatusCode::kInvalidArgument,
                       "expected " + std::string(what) + ", got '" + shown + "'");
}

Status AtField(const std::string& where, std::string_view field, const Status& s) {
  if (s.ok()) return s;
  return Status::Error(s.code(), where + ": field '" + std::string(field) + "': " + s.message());
}

std::optional<int64_t> Digits(std::string_view s, int64_t max) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v > max) return std::nullopt;
  return v;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace utilsim::traces::internal
