#include "json_line.h"

#include <cmath>

namespace utilsim::live::internal {

using nlohmann::json;

const json* JsonLine::Get(const char* key) const {
  if (!j_.is_object()) return nullptr;
  auto it = j_.find(key);
  if (it == j_.end() || it->is_null()) return nullptr;
  return &*it;
}

void JsonLine::Bad(const char* key, const char* what, const json& got) {
  if (!status_.ok()) return;
  std::string text = got.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  status_ = Status::Error(StatusCode::kInvalidArgument,
                          where_ + ": field '" + key + "': expected " + what + ", got " + text);
}

std::string JsonLine::Str(const char* key, const std::string& fallback) {
  const json* v = Get(key);
  if (v == nullptr) return fallback;
  if (!v->is_string()) {
    Bad(key, "a string", *v);
    return fallback;
  }
  return v->get<std::string>();
}

int64_t JsonLine::Int(const char* key, int64_t fallback) {
  const json* v = Get(key);
  if (v == nullptr) return fallback;
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_unsigned() && v->get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX))
    return static_cast<int64_t>(v->get<uint64_t>());
  if (v->is_number_float()) {
    const double d = v->get<double>();
    // Only whole numbers inside int64's range (writers may print 1.0).
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18)
      return static_cast<int64_t>(d);
  }
  Bad(key, "an integer", *v);
  return fallback;
}

bool JsonLine::Bool(const char* key, bool fallback) {
  const json* v = Get(key);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) {
    Bad(key, "true or false", *v);
    return fallback;
  }
  return v->get<bool>();
}

std::vector<std::string> JsonLine::Strings(const char* key) {
  std::vector<std::string> out;
  const json* v = Get(key);
  if (v == nullptr) return out;
  if (!v->is_array()) {
    Bad(key, "a list of strings", *v);
    return out;
  }
  for (const json& x : *v) {
    if (!x.is_string()) {
      Bad(key, "a list of strings", *v);
      return {};
    }
    out.push_back(x.get<std::string>());
  }
  return out;
}

std::vector<std::vector<std::string>> JsonLine::StringLists(const char* key) {
  std::vector<std::vector<std::string>> out;
  const json* v = Get(key);
  if (v == nullptr) return out;
  if (!v->is_array()) {
    Bad(key, "a list of lists of strings", *v);
    return out;
  }
  for (const json& inner : *v) {
    std::vector<std::string> names;
    if (!inner.is_array()) {
      Bad(key, "a list of lists of strings", *v);
      return {};
    }
    for (const json& x : inner) {
      if (!x.is_string()) {
        Bad(key, "a list of lists of strings", *v);
        return {};
      }
      names.push_back(x.get<std::string>());
    }
    out.push_back(std::move(names));
  }
  return out;
}

}  // namespace utilsim::live::internal
