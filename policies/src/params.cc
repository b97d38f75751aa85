#include "utilsim/policies/params.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <system_error>

namespace utilsim {
namespace {

bool IsList(ParamType t) { return t == ParamType::kSecondsList || t == ParamType::kDoubleList; }
bool IsInt(ParamType t) { return t == ParamType::kInt; }
bool IsDouble(ParamType t) { return t == ParamType::kDouble; }
bool IsEnum(ParamType t) { return t == ParamType::kEnum; }
bool IsNumber(ParamType t) { return t == ParamType::kInt || t == ParamType::kDouble; }

bool HasWord(const ParamSpec& s, std::string_view w) {
  return std::find(s.words.begin(), s.words.end(), w) != s.words.end();
}

// The whole of `text` as a finite double.
bool ReadDouble(std::string_view text, double* out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && p == end && std::isfinite(*out);
}

bool ReadInt(std::string_view text, int64_t* out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && p == end;
}

bool InRange(const ParamSpec& s, double v) { return v >= s.min && v <= s.max; }

// One value of `s` from `text`; false when it is not a valid value.
template <typename Item>
bool ReadValue(const ParamSpec& s, std::string_view text, Item* out) {
  if (s.type == ParamType::kEnum || (IsNumber(s.type) && HasWord(s, text))) {
    if (!HasWord(s, text)) return false;
    out->word = std::string(text);
    return true;
  }
  switch (s.type) {
    case ParamType::kInt:
      return ReadInt(text, &out->i) && InRange(s, static_cast<double>(out->i));
    case ParamType::kDouble:
      return ReadDouble(text, &out->d) && InRange(s, out->d);
    case ParamType::kSecondsList:
    case ParamType::kDoubleList: {
      out->list.clear();
      size_t from = 0;
      while (true) {
        const size_t slash = text.find('/', from);
        const std::string_view part = text.substr(
            from, slash == std::string_view::npos ? std::string_view::npos : slash - from);
        double v = 0;
        if (!ReadDouble(part, &v) || !InRange(s, v)) return false;
        if (s.increasing && !out->list.empty() && !(v > out->list.back())) return false;
        out->list.push_back(v);
        if (slash == std::string_view::npos) break;
        from = slash + 1;
      }
      return out->list.size() >= s.min_items && out->list.size() <= s.max_items;
    }
    case ParamType::kEnum:
      break;
  }
  return false;
}

std::string Quoted(const std::vector<std::string>& words) {
  std::string s;
  for (size_t i = 0; i < words.size(); ++i)
    s += (i == 0 ? "'" : i + 1 == words.size() ? "' or '" : "', '") + words[i];
  return s + "'";
}

std::string Range(const ParamSpec& s) {
  return "[" + FormatParamNumber(s.min) + ", " + FormatParamNumber(s.max) + "]";
}

std::string Accepted(const std::vector<ParamSpec>& specs) {
  std::string s;
  for (const ParamSpec& p : specs)
    s += (s.empty() ? "" : ", ") + p.name + " (" + DescribeParamType(p) + "; default " +
         p.default_value + ")";
  return s;
}

bool ValidName(const std::string& n) {
  if (n.empty() || !(n[0] >= 'a' && n[0] <= 'z')) return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

}  // namespace

const ParamValues::Item* ParamValues::Find(std::string_view name,
                                           bool (*type_ok)(ParamType)) const {
  for (size_t i = 0; i < specs_.size(); ++i)
    if (specs_[i].name == name) return type_ok(specs_[i].type) ? &items_[i] : nullptr;
  return nullptr;
}

int64_t ParamValues::Int(std::string_view name) const {
  const Item* it = Find(name, IsInt);
  return it ? it->i : 0;
}

double ParamValues::Double(std::string_view name) const {
  const Item* it = Find(name, IsDouble);
  return it ? it->d : 0;
}

const std::vector<double>& ParamValues::List(std::string_view name) const {
  static const std::vector<double> kEmpty;
  const Item* it = Find(name, IsList);
  return it ? it->list : kEmpty;
}

const std::string& ParamValues::Word(std::string_view name) const {
  static const std::string kEmpty;
  const Item* it = Find(name, [](ParamType t) { return IsEnum(t) || IsNumber(t); });
  return it ? it->word : kEmpty;
}

std::string ParamValues::Canonical() const {
  std::string out;
  for (size_t k = 0; k < specs_.size(); ++k) {
    const ParamSpec& s = specs_[k];
    const Item& it = items_[k];
    std::string v;
    if (!it.word.empty()) {
      v = it.word;
    } else if (s.type == ParamType::kInt) {
      v = std::to_string(it.i);
    } else if (s.type == ParamType::kDouble) {
      v = FormatParamNumber(it.d);
    } else {
      v = FormatParamList(it.list);
    }
    out += (out.empty() ? "" : ",") + s.name + "=" + v;
  }
  return out;
}

Result<ParamValues> ParseParams(const std::string& policy, const std::vector<ParamSpec>& specs,
                                const std::string& text) {
  const std::string who = "policy '" + policy + "': ";
  if (specs.empty() && !text.empty())
    return Status::Error(who + "takes no parameters, got '" + text + "'");
  ParamValues out;
  out.specs_ = specs;
  out.items_.resize(specs.size());
  std::vector<bool> given(specs.size(), false);
  if (!text.empty()) {
    size_t from = 0;
    while (true) {
      const size_t comma = text.find(',', from);
      const std::string item =
          text.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        return Status::Error(who + "expected key=value, got '" + item +
                             "'; accepted: " + Accepted(specs));
      const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
      size_t k = 0;
      while (k < specs.size() && specs[k].name != key) ++k;
      if (k == specs.size())
        return Status::Error(who + "unknown parameter '" + key + "'; accepted: " + Accepted(specs));
      if (given[k]) return Status::Error(who + "parameter '" + key + "' is given twice");
      given[k] = true;
      if (!ReadValue(specs[k], value, &out.items_[k]))
        return Status::Error(who + "parameter '" + key + "': expected " +
                             DescribeParamType(specs[k]) + ", got '" + value + "'");
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  for (size_t k = 0; k < specs.size(); ++k)
    if (!given[k] && !ReadValue(specs[k], specs[k].default_value, &out.items_[k]))
      return Status::Error(who + "parameter '" + specs[k].name + "': default '" +
                           specs[k].default_value + "' is not " + DescribeParamType(specs[k]));
  return out;
}

Status ValidateParamSpecs(const std::string& policy, const std::vector<ParamSpec>& specs) {
  std::set<std::string> seen;
  for (const ParamSpec& s : specs) {
    const std::string who = "policy '" + policy + "': parameter '" + s.name + "': ";
    if (!ValidName(s.name))
      return Status::Error(who + "a name is a lower-case letter, then letters, digits, '-', '_'");
    if (!seen.insert(s.name).second) return Status::Error(who + "declared twice");
    if (s.type == ParamType::kEnum) {
      if (s.words.empty()) return Status::Error(who + "an enum needs its words");
    } else if (!(s.min <= s.max)) {
      return Status::Error(who + "min must not exceed max");
    }
    if (IsList(s.type) && !(s.min_items >= 1 && s.min_items <= s.max_items))
      return Status::Error(who + "list lengths must satisfy 1 <= min_items <= max_items");
  }
  auto defaults = ParseParams(policy, specs, "");
  return defaults.ok() ? Status::Ok() : defaults.status();
}

PolicyRef SplitPolicyRef(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return {text, "", false};
  return {text.substr(0, colon), text.substr(colon + 1), true};
}

Result<ParamValues> ParseParamsOf(const PolicyRef& ref, const std::vector<ParamSpec>& specs) {
  if (ref.has_params && ref.params.empty()) {
    if (specs.empty())
      return Status::Error("policy '" + ref.name + "': takes no parameters (nothing may follow " +
                           "the name, got '" + ref.name + ":')");
    return Status::Error("policy '" + ref.name +
                         "': expected key=value after ':'; accepted: " + Accepted(specs));
  }
  return ParseParams(ref.name, specs, ref.params);
}

std::string FormatParamNumber(double v) {
  if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 1e15)
    return std::to_string(static_cast<int64_t>(v));
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, p) : "?";
}

std::string FormatParamList(const std::vector<double>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "/" : "") + FormatParamNumber(v[i]);
  return s;
}

std::string DescribeParamType(const ParamSpec& s) {
  const std::string words = s.words.empty() ? "" : " or " + Quoted(s.words);
  switch (s.type) {
    case ParamType::kInt:
      return "an integer in " + Range(s) + words;
    case ParamType::kDouble:
      return "a number in " + Range(s) + words;
    case ParamType::kSecondsList:
    case ParamType::kDoubleList: {
      const std::string count = s.min_items == s.max_items ? std::to_string(s.min_items)
                                                           : std::to_string(s.min_items) + " to " +
                                                                 std::to_string(s.max_items);
      const bool one = s.max_items == 1;
      const std::string unit = s.type == ParamType::kSecondsList
                                   ? (one ? " value in seconds" : " values in seconds")
                                   : (one ? " number" : " numbers");
      return "a list of " + count + unit + " separated by '/', each in " + Range(s) +
             (s.increasing ? ", strictly increasing" : "");
    }
    case ParamType::kEnum:
      return "one of " + Quoted(s.words);
  }
  return "";
}

std::string DescribeParam(const ParamSpec& s) {
  return s.name + ": " + DescribeParamType(s) + "; default " + s.default_value + "." +
         (s.help.empty() ? "" : " " + s.help);
}

std::string DescribeParams(const std::vector<ParamSpec>& specs, const std::string& indent) {
  std::string out;
  for (const ParamSpec& s : specs) out += indent + DescribeParam(s) + "\n";
  return out;
}

}  // namespace utilsim
