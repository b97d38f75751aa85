// Sweep files (sweep_spec.h, docs/sweeps.md): the YAML reader that turns a
// file into a checked SweepSpec, every error naming the file, the line and
// the field; the expansion of a spec into its runs (grid odometer, first axis
// slowest, then exclusion, then the Morris design crossed innermost); and the
// canonical text of a run's options.
#include "utilsim/sweep/sweep_spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace utilsim::sweep {
namespace {

#define SWEEP_TRY(expr)                          \
  do {                                           \
    if (Status _s = (expr); !_s.ok()) return _s; \
  } while (0)

constexpr size_t kMaxTextChars = 100;  // of a value quoted in a message
constexpr double kMaxRuns = 1e6;       // runs of one sweep
const std::vector<std::string> kSections = {"name",    "base",    "axes",   "zip",
                                            "exclude", "metrics", "limits", "morris"};
const char kFactorWhat[] = "[lo, hi] or {range: [lo, hi], integer: true|false}";

std::string Join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string Format(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v + 0.0);  // + 0.0: no "-0"
  return buf;
}

// One line of at most kMaxTextChars characters (not cutting a UTF-8 sequence).
std::string Cut(std::string text) {
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  if (text.size() <= kMaxTextChars) return text;
  size_t cut = kMaxTextChars;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

// A node as written, for messages: a scalar's text, a collection in flow
// style ("[a, b]"), "" for nothing.
std::string NodeText(const YAML::Node& n) {
  if (n.IsScalar()) return Cut(n.Scalar());
  if (!n.IsSequence() && !n.IsMap()) return "";
  YAML::Emitter out;
  out.SetSeqFormat(YAML::Flow);
  out.SetMapFormat(YAML::Flow);
  out << n;
  return Cut(out.c_str());
}

// A node's 1-based line; `fallback` for nothing (yaml-cpp marks an empty
// value on the line after its key) or a node without a mark.
// The line (1-based) of a "---" document marker that follows content (a
// comment, a blank line or a directive before the first one is not
// content), or 0.
int SecondDocumentLine(const std::string& text) {
  bool content = false;
  int n = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + pos, end - pos);
    ++n;
    const bool marker = line.rfind("---", 0) == 0 &&
                        (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
    if (marker && content) return n;
    const size_t first = line.find_first_not_of(" \t\r");
    if (!marker && first != std::string_view::npos && line[first] != '#' && line[first] != '%')
      content = true;
    pos = end + 1;
  }
  return 0;
}

int Line(const YAML::Node& n, int fallback) {
  if (n.IsNull() || n.Mark().line < 0) return fallback;
  return n.Mark().line + 1;
}

// A finite decimal number, the whole text.
std::optional<double> ParseNumber(std::string_view s) {
  double v = 0;
  const char* end = s.data() + s.size();
  const auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || p != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

template <typename T>
std::optional<T> ParseInteger(std::string_view s) {
  T v = 0;
  const char* end = s.data() + s.size();
  const auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || p != end) return std::nullopt;
  return v;
}

bool SameValue(const std::string& a, const std::string& b) {
  if (a == b) return true;
  const std::optional<double> x = ParseNumber(a), y = ParseNumber(b);
  return x && y && *x == *y;
}

// Seconds > 0: a number, or one with an s/m/h/d suffix.
std::optional<double> ParseDuration(std::string_view s) {
  static const std::pair<char, double> kUnits[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
  double unit = 1;
  for (const auto& [suffix, seconds] : kUnits) {
    if (!s.empty() && s.back() == suffix) {
      unit = seconds;
      s.remove_suffix(1);
      break;
    }
  }
  const std::optional<double> v = ParseNumber(s);
  if (!v || !(*v > 0) || !std::isfinite(*v * unit)) return std::nullopt;
  return *v * unit;
}

// Bytes > 0: an integer, or a number with a 1024- or 1000-based suffix.
std::optional<int64_t> ParseBytes(std::string_view s) {
  static const std::pair<std::string_view, double> kUnits[] = {{"KiB", 1024.0},
                                                               {"MiB", 1024.0 * 1024},
                                                               {"GiB", 1024.0 * 1024 * 1024},
                                                               {"TiB", 1024.0 * 1024 * 1024 * 1024},
                                                               {"KB", 1e3},
                                                               {"MB", 1e6},
                                                               {"GB", 1e9},
                                                               {"TB", 1e12}};
  for (const auto& [suffix, unit] : kUnits) {
    if (!s.ends_with(suffix)) continue;
    const std::optional<double> v = ParseNumber(s.substr(0, s.size() - suffix.size()));
    if (!v) return std::nullopt;
    const double bytes = std::round(*v * unit);
    if (!(bytes >= 1) || bytes >= 9.2e18) return std::nullopt;
    return static_cast<int64_t>(bytes);
  }
  const std::optional<int64_t> v = ParseInteger<int64_t>(s);
  if (!v || *v <= 0) return std::nullopt;
  return v;
}

Status CheckTotal(const std::string& file, double runs) {
  if (runs <= kMaxRuns) return Status::Ok();
  return Status::Error(StatusCode::kInvalidArgument, file + ": expected at most " +
                                                         Format("%.12g", kMaxRuns) + " runs, got " +
                                                         Format("%.12g", runs));
}

// Where each grid key lives: axis and position among its keys.
using KeyPlace = std::map<std::string, std::pair<size_t, size_t>>;

// One condition of an exclude entry: axis `axis`'s key `key` is `value`.
struct Condition {
  size_t axis = 0, key = 0;
  std::string value;
};

Status CheckAxes(const SweepSpec& spec, KeyPlace* places) {
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    const Axis& axis = spec.axes[a];
    bool ok = !axis.keys.empty() && !axis.settings.empty();
    for (const std::vector<std::string>& s : axis.settings) ok = ok && s.size() == axis.keys.size();
    if (!ok) {
      return Status::Error(StatusCode::kInvalidArgument,
                           spec.path + ":" + std::to_string(axis.line) + ": axis '" +
                               Join(axis.keys, ",") + "': expected at least one setting of " +
                               std::to_string(axis.keys.size()) + " values per key");
    }
    for (size_t k = 0; k < axis.keys.size(); ++k) (*places)[axis.keys[k]] = {a, k};
  }
  return Status::Ok();
}

Status ExclusionRules(const SweepSpec& spec, const KeyPlace& places,
                      std::vector<std::vector<Condition>>* rules) {
  for (const std::vector<Param>& entry : spec.exclude) {
    std::vector<Condition> rule;
    for (const Param& p : entry) {
      const auto it = places.find(p.key);
      if (it == places.end()) {
        return Status::Error(StatusCode::kInvalidArgument,
                             spec.path + ":" + std::to_string(p.line) + ": exclude key '" + p.key +
                                 "': expected an option swept by axes or zip");
      }
      rule.push_back({it->second.first, it->second.second, p.value});
    }
    rules->push_back(std::move(rule));
  }
  return Status::Ok();
}

bool Excluded(const std::vector<int>& combo, const std::vector<std::vector<Condition>>& rules,
              const std::vector<Axis>& axes) {
  for (const std::vector<Condition>& rule : rules) {
    const bool all = std::all_of(rule.begin(), rule.end(), [&](const Condition& c) {
      return SameValue(axes[c.axis].settings[combo[c.axis]][c.key], c.value);
    });
    if (all) return true;
  }
  return false;
}

// The next grid combination, last axis fastest; false after the last.
bool Advance(const std::vector<Axis>& axes, std::vector<int>* combo) {
  for (size_t i = axes.size(); i-- > 0;) {
    if (++(*combo)[i] < static_cast<int>(axes[i].settings.size())) return true;
    (*combo)[i] = 0;
  }
  return false;
}

// The grid combinations left after exclusion (each axis's setting index), in
// order.
Result<std::vector<std::vector<int>>> KeptCombinations(const SweepSpec& spec) {
  KeyPlace places;
  SWEEP_TRY(CheckAxes(spec, &places));
  double grid = 1;
  for (const Axis& axis : spec.axes) grid *= static_cast<double>(axis.settings.size());
  SWEEP_TRY(CheckTotal(spec.path, grid));
  std::vector<std::vector<Condition>> rules;
  SWEEP_TRY(ExclusionRules(spec, places, &rules));
  std::vector<std::vector<int>> kept;
  std::vector<int> combo(spec.axes.size(), 0);
  do {
    if (!Excluded(combo, rules, spec.axes)) kept.push_back(combo);
  } while (Advance(spec.axes, &combo));
  if (kept.empty()) {
    return Status::Error(StatusCode::kInvalidArgument, spec.path + ": every run is excluded");
  }
  return kept;
}

Result<MorrisDesign> Design(const SweepSpec& spec) {
  const MorrisSpec& m = *spec.morris;
  Result<MorrisDesign> design = MorrisTrajectories(m.factors, m.trajectories, m.levels, m.seed);
  if (!design.ok())
    return design.status().Prefixed(spec.path + ":" + std::to_string(m.line) + ": ");
  return design;
}

std::vector<Param> GridParams(const std::vector<Axis>& axes, const std::vector<int>& combo) {
  std::vector<Param> params;
  for (size_t a = 0; a < axes.size(); ++a) {
    const Axis& axis = axes[a];
    for (size_t k = 0; k < axis.keys.size(); ++k) {
      const int line = k < axis.lines.size() ? axis.lines[k] : axis.line;
      params.push_back({axis.keys[k], axis.settings[combo[a]][k], line});
    }
  }
  return params;
}

void AddMorrisParams(const MorrisSpec& m, const std::vector<double>& point,
                     std::vector<Param>* params) {
  for (size_t i = 0; i < m.factors.size() && i < point.size(); ++i) {
    const MorrisFactor& f = m.factors[i];
    const int line = i < m.factor_lines.size() ? m.factor_lines[i] : m.line;
    params->push_back({f.name, Format(f.integer ? "%.0f" : "%.12g", point[i]), line});
  }
}

SweepRun MakeRun(const std::vector<Param>& base, std::vector<Param> swept, int index) {
  SweepRun run;
  run.index = index;
  run.options = base;
  run.options.insert(run.options.end(), swept.begin(), swept.end());
  run.swept = std::move(swept);
  return run;
}

// An entry of a map: its key's line and its value.
struct Entry {
  int line = 0;
  YAML::Node value;
};
using Entries = std::map<std::string, Entry>;

// Reads one file's YAML into a SweepSpec.
class Parser {
 public:
  explicit Parser(std::string file) : file_(std::move(file)) {}
  Result<SweepSpec> Parse(const YAML::Node& root);

 private:
  Status Bad(int line, const std::string& field, const std::string& what,
             const std::string& text) const;
  Status BadNode(const YAML::Node& n, int fallback, const std::string& field,
                 const std::string& what) const {
    return Bad(Line(n, fallback), field, what, NodeText(n));
  }
  Status Sections(const YAML::Node& map, int line, const std::string& prefix,
                  const std::vector<std::string>& allowed, const std::string& what,
                  Entries* out) const;
  Status OptionKey(const YAML::Node& key, int fallback, const std::string& prefix,
                   std::string* out) const;
  Status Claim(const std::string& key, int line, const std::string& field);
  Status Value(const YAML::Node& n, int fallback, const std::string& field, const std::string& what,
               std::string* out) const;
  Status Values(const YAML::Node& n, int fallback, const std::string& field,
                std::vector<std::string>* out) const;
  Status ParseBase(const Entry& e, SweepSpec* spec);
  Status ParseAxes(const Entry& e, SweepSpec* spec);
  Status ParseZipEntry(const YAML::Node& n, int fallback, const std::string& prefix, Axis* axis);
  Status ParseZip(const Entry& e, SweepSpec* spec);
  Status ParseExcludeEntry(const YAML::Node& n, int fallback, const std::string& prefix,
                           const SweepSpec& spec, std::vector<Param>* entry) const;
  Status ParseExclude(const Entry& e, SweepSpec* spec);
  Status ParseMetrics(const Entry& e, SweepSpec* spec);
  Status ParseLimits(const Entry& e, SweepSpec* spec);
  Status ParseRange(const YAML::Node& n, int fallback, const std::string& field,
                    MorrisFactor* f) const;
  Status ParseFactor(const YAML::Node& n, int line, const std::string& field,
                     MorrisFactor* f) const;
  Status ParseMorrisNumbers(const Entries& ents, MorrisSpec* m) const;
  Status ParseMorris(const Entry& e, SweepSpec* spec);

  std::string file_;
  std::map<std::string, std::pair<int, std::string>> claimed_;  // option -> line, field
};

Status Parser::Bad(int line, const std::string& field, const std::string& what,
                   const std::string& text) const {
  std::string message = file_ + ":" + std::to_string(line) + ": ";
  if (!field.empty()) message += "field '" + Cut(field) + "': ";
  message += "expected " + what + ", got '" + Cut(text) + "'";
  return Status::Error(StatusCode::kInvalidArgument, message);
}

// A non-empty mapping whose keys are among `allowed`, each once.
Status Parser::Sections(const YAML::Node& map, int line, const std::string& prefix,
                        const std::vector<std::string>& allowed, const std::string& what,
                        Entries* out) const {
  if (!map.IsMap() || map.size() == 0) return BadNode(map, line, prefix, what);
  for (const auto& kv : map) {
    const std::string key = NodeText(kv.first);
    const int key_line = Line(kv.first, line);
    const std::string field = prefix.empty() ? key : prefix + "." + key;
    if (!kv.first.IsScalar() || std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return Bad(key_line, field, "one of " + Join(allowed, ", "), key);
    }
    const auto [it, fresh] = out->emplace(key, Entry{key_line, kv.second});
    if (!fresh) {
      return Bad(key_line, field,
                 "each key once (also at line " + std::to_string(it->second.line) + ")", key);
    }
  }
  return Status::Ok();
}

Status Parser::OptionKey(const YAML::Node& key, int fallback, const std::string& prefix,
                         std::string* out) const {
  const std::string text = key.IsScalar() ? key.Scalar() : NodeText(key);
  const bool ok = key.IsScalar() && !text.empty() && text[0] != '-' &&
                  std::all_of(text.begin(), text.end(), [](char c) {
                    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
                  });
  if (!ok) {
    std::string what = "an option name of a-z, 0-9 and '-'";
    if (!text.empty() && text[0] == '-') what += " (write the option without --)";
    return Bad(Line(key, fallback), prefix + "." + text, what, text);
  }
  *out = text;
  return Status::Ok();
}

// Every option is set once in the whole file; the error is at the later line.
Status Parser::Claim(const std::string& key, int line, const std::string& field) {
  const auto [it, fresh] = claimed_.emplace(key, std::make_pair(line, field));
  if (fresh) return Status::Ok();
  std::pair<int, std::string> first = it->second, second = {line, field};
  if (first.first > second.first) std::swap(first, second);
  return Bad(second.first, second.second,
             "an option set once (also set by '" + first.second + "' at line " +
                 std::to_string(first.first) + ")",
             key);
}

// A non-empty scalar on one line.
Status Parser::Value(const YAML::Node& n, int fallback, const std::string& field,
                     const std::string& what, std::string* out) const {
  if (!n.IsScalar() || n.Scalar().empty()) return BadNode(n, fallback, field, what);
  const std::string& text = n.Scalar();
  const bool one_line = std::none_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
  if (!one_line) return BadNode(n, fallback, field, what + " without line breaks");
  *out = text;
  return Status::Ok();
}

// A list of >= 1 distinct values.
Status Parser::Values(const YAML::Node& n, int fallback, const std::string& field,
                      std::vector<std::string>* out) const {
  if (!n.IsSequence()) return BadNode(n, fallback, field, "a list of values");
  if (n.size() == 0) return BadNode(n, fallback, field, "a list of at least one value");
  const int line = Line(n, fallback);
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string item = field + "[" + std::to_string(i) + "]";
    std::string v;
    SWEEP_TRY(Value(n[i], line, item, "a value", &v));
    if (std::find(out->begin(), out->end(), v) != out->end()) {
      return BadNode(n[i], line, item, "a value not already in the list");
    }
    out->push_back(std::move(v));
  }
  return Status::Ok();
}

Status Parser::ParseBase(const Entry& e, SweepSpec* spec) {
  const YAML::Node& n = e.value;
  if (!n.IsMap() || n.size() == 0) return BadNode(n, e.line, "base", "a mapping of options");
  for (const auto& kv : n) {
    std::string key, value;
    SWEEP_TRY(OptionKey(kv.first, e.line, "base", &key));
    const int line = Line(kv.first, e.line);
    const std::string field = "base." + key;
    SWEEP_TRY(Claim(key, line, field));
    if (!kv.second.IsSequence()) {
      SWEEP_TRY(Value(kv.second, line, field, "a value or a list of values", &value));
    } else if (kv.second.size() == 0) {
      return BadNode(kv.second, line, field, "a value or a list of values");
    }
    for (size_t i = 0; kv.second.IsSequence() && i < kv.second.size(); ++i) {
      std::string part;
      SWEEP_TRY(Value(kv.second[i], Line(kv.second, line), field + "[" + std::to_string(i) + "]",
                      "a value", &part));
      value += (i == 0 ? "" : ",") + part;
    }
    spec->base.push_back({key, value, line});
  }
  return Status::Ok();
}

Status Parser::ParseAxes(const Entry& e, SweepSpec* spec) {
  const YAML::Node& n = e.value;
  if (!n.IsMap() || n.size() == 0) {
    return BadNode(n, e.line, "axes", "a mapping of options to lists of values");
  }
  for (const auto& kv : n) {
    std::string key;
    SWEEP_TRY(OptionKey(kv.first, e.line, "axes", &key));
    const int line = Line(kv.first, e.line);
    SWEEP_TRY(Claim(key, line, "axes." + key));
    std::vector<std::string> values;
    SWEEP_TRY(Values(kv.second, line, "axes." + key, &values));
    Axis axis{.keys = {key}, .settings = {}, .line = line, .lines = {line}};
    for (std::string& v : values) axis.settings.push_back({std::move(v)});
    spec->axes.push_back(std::move(axis));
  }
  return Status::Ok();
}

Status Parser::ParseZipEntry(const YAML::Node& n, int fallback, const std::string& prefix,
                             Axis* axis) {
  if (!n.IsMap() || n.size() == 0) {
    return BadNode(n, fallback, prefix, "a mapping of options to lists of values");
  }
  axis->line = Line(n, fallback);
  for (const auto& kv : n) {
    std::string key;
    SWEEP_TRY(OptionKey(kv.first, axis->line, prefix, &key));
    const int line = Line(kv.first, axis->line);
    const std::string field = prefix + "." + key;
    SWEEP_TRY(Claim(key, line, field));
    std::vector<std::string> values;
    SWEEP_TRY(Values(kv.second, line, field, &values));
    if (axis->keys.empty()) axis->settings.resize(values.size());
    if (values.size() != axis->settings.size()) {
      return BadNode(kv.second, line, field,
                     std::to_string(axis->settings.size()) + " values, as many as '" + prefix +
                         "." + axis->keys[0] + "'");
    }
    for (size_t i = 0; i < values.size(); ++i) axis->settings[i].push_back(std::move(values[i]));
    axis->keys.push_back(key);
    axis->lines.push_back(line);
  }
  return Status::Ok();
}

Status Parser::ParseZip(const Entry& e, SweepSpec* spec) {
  const YAML::Node& n = e.value;
  if (!n.IsSequence() || n.size() == 0) {
    return BadNode(n, e.line, "zip", "a list of mappings of options to lists of values");
  }
  for (size_t i = 0; i < n.size(); ++i) {
    Axis axis;
    SWEEP_TRY(ParseZipEntry(n[i], Line(n, e.line), "zip[" + std::to_string(i) + "]", &axis));
    spec->axes.push_back(std::move(axis));
  }
  return Status::Ok();
}

Status Parser::ParseExcludeEntry(const YAML::Node& n, int fallback, const std::string& prefix,
                                 const SweepSpec& spec, std::vector<Param>* entry) const {
  if (!n.IsMap() || n.size() == 0) {
    return BadNode(n, fallback, prefix, "a mapping of swept options to values");
  }
  for (const auto& kv : n) {
    std::string key;
    SWEEP_TRY(OptionKey(kv.first, Line(n, fallback), prefix, &key));
    const int line = Line(kv.first, Line(n, fallback));
    const std::string field = prefix + "." + key;
    const bool swept = std::any_of(spec.axes.begin(), spec.axes.end(), [&](const Axis& a) {
      return std::find(a.keys.begin(), a.keys.end(), key) != a.keys.end();
    });
    if (!swept) return Bad(line, field, "an option swept by axes or zip", key);
    for (const Param& p : *entry) {
      if (p.key == key) {
        return Bad(line, field, "each key once (also at line " + std::to_string(p.line) + ")", key);
      }
    }
    std::string value;
    SWEEP_TRY(Value(kv.second, line, field, "a value", &value));
    entry->push_back({key, value, line});
  }
  return Status::Ok();
}

Status Parser::ParseExclude(const Entry& e, SweepSpec* spec) {
  const YAML::Node& n = e.value;
  if (!n.IsSequence() || n.size() == 0) {
    return BadNode(n, e.line, "exclude", "a list of mappings of swept options to values");
  }
  for (size_t i = 0; i < n.size(); ++i) {
    std::vector<Param> entry;
    SWEEP_TRY(ParseExcludeEntry(n[i], Line(n, e.line), "exclude[" + std::to_string(i) + "]", *spec,
                                &entry));
    spec->exclude.push_back(std::move(entry));
  }
  return Status::Ok();
}

Status Parser::ParseMetrics(const Entry& e, SweepSpec* spec) {
  const YAML::Node& n = e.value;
  if (!n.IsSequence() || n.size() == 0) return BadNode(n, e.line, "metrics", "a list of metrics");
  std::map<std::string, int> seen;  // name -> line
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string field = "metrics[" + std::to_string(i) + "]";
    const int line = Line(n[i], Line(n, e.line));
    const std::string name = n[i].IsScalar() ? n[i].Scalar() : "";
    const bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    if (!ok) return BadNode(n[i], line, field, "a metric name of a-z, 0-9 and '_'");
    const auto [it, fresh] = seen.emplace(name, line);
    if (!fresh) {
      return Bad(line, field, "each metric once (also at line " + std::to_string(it->second) + ")",
                 name);
    }
    spec->metrics.push_back(name);
  }
  return Status::Ok();
}

Status Parser::ParseLimits(const Entry& e, SweepSpec* spec) {
  Entries ents;
  SWEEP_TRY(Sections(e.value, e.line, "limits", {"time", "memory"}, "a mapping of time and memory",
                     &ents));
  if (const auto it = ents.find("time"); it != ents.end()) {
    const std::string what = "a time > 0: seconds, or a number with s, m, h or d";
    std::string text;
    SWEEP_TRY(Value(it->second.value, it->second.line, "limits.time", what, &text));
    const std::optional<double> seconds = ParseDuration(text);
    if (!seconds) return BadNode(it->second.value, it->second.line, "limits.time", what);
    spec->limits.time_s = *seconds;
  }
  if (const auto it = ents.find("memory"); it != ents.end()) {
    const std::string what =
        "a size > 0: bytes, or a number with KiB, MiB, GiB, TiB, KB, MB, GB or TB";
    std::string text;
    SWEEP_TRY(Value(it->second.value, it->second.line, "limits.memory", what, &text));
    const std::optional<int64_t> bytes = ParseBytes(text);
    if (!bytes) return BadNode(it->second.value, it->second.line, "limits.memory", what);
    spec->limits.memory_bytes = *bytes;
  }
  return Status::Ok();
}

Status Parser::ParseRange(const YAML::Node& n, int fallback, const std::string& field,
                          MorrisFactor* f) const {
  if (!n.IsSequence() || n.size() != 2) return BadNode(n, fallback, field, "[lo, hi]");
  double bounds[2] = {0, 0};
  for (size_t i = 0; i < 2; ++i) {
    const std::string item = field + "[" + std::to_string(i) + "]";
    std::string text;
    SWEEP_TRY(Value(n[i], Line(n, fallback), item, "a number", &text));
    const std::optional<double> v = ParseNumber(text);
    if (!v) return BadNode(n[i], Line(n, fallback), item, "a number");
    bounds[i] = *v;
  }
  if (!(bounds[0] < bounds[1])) return BadNode(n, fallback, field, "[lo, hi] with lo < hi");
  f->lo = bounds[0];
  f->hi = bounds[1];
  return Status::Ok();
}

// [lo, hi] or {range: [lo, hi], integer: true|false}.
Status Parser::ParseFactor(const YAML::Node& n, int line, const std::string& field,
                           MorrisFactor* f) const {
  if (n.IsSequence()) return ParseRange(n, line, field, f);
  if (!n.IsMap()) return BadNode(n, line, field, kFactorWhat);
  Entries ents;
  SWEEP_TRY(Sections(n, line, field, {"range", "integer"}, kFactorWhat, &ents));
  if (const auto it = ents.find("integer"); it != ents.end()) {
    std::string text;
    SWEEP_TRY(Value(it->second.value, it->second.line, field + ".integer", "true or false", &text));
    if (text != "true" && text != "false") {
      return BadNode(it->second.value, it->second.line, field + ".integer", "true or false");
    }
    f->integer = text == "true";
  }
  const auto range = ents.find("range");
  if (range == ents.end()) return Bad(line, field + ".range", "[lo, hi]", "");
  return ParseRange(range->second.value, range->second.line, field + ".range", f);
}

Status Parser::ParseMorrisNumbers(const Entries& ents, MorrisSpec* m) const {
  std::string text;
  if (const auto it = ents.find("trajectories"); it != ents.end()) {
    SWEEP_TRY(Value(it->second.value, it->second.line, "morris.trajectories", "an integer", &text));
    const std::optional<int> v = ParseInteger<int>(text);
    if (!v) return BadNode(it->second.value, it->second.line, "morris.trajectories", "an integer");
    m->trajectories = *v;
  }
  if (const auto it = ents.find("levels"); it != ents.end()) {
    SWEEP_TRY(Value(it->second.value, it->second.line, "morris.levels", "an integer", &text));
    const std::optional<int> v = ParseInteger<int>(text);
    if (!v) return BadNode(it->second.value, it->second.line, "morris.levels", "an integer");
    m->levels = *v;
  }
  if (const auto it = ents.find("seed"); it != ents.end()) {
    const std::string what = "an unsigned integer";
    SWEEP_TRY(Value(it->second.value, it->second.line, "morris.seed", what, &text));
    const std::optional<uint64_t> v = ParseInteger<uint64_t>(text);
    if (!v) return BadNode(it->second.value, it->second.line, "morris.seed", what);
    m->seed = *v;
  }
  return Status::Ok();
}

Status Parser::ParseMorris(const Entry& e, SweepSpec* spec) {
  Entries ents;
  SWEEP_TRY(Sections(e.value, e.line, "morris", {"trajectories", "levels", "seed", "factors"},
                     "a mapping of trajectories, levels, seed and factors", &ents));
  MorrisSpec m;
  m.line = e.line;
  SWEEP_TRY(ParseMorrisNumbers(ents, &m));
  const auto factors = ents.find("factors");
  const std::string what = "a mapping of factors to " + std::string(kFactorWhat);
  if (factors == ents.end()) return Bad(e.line, "morris.factors", what, "");
  const YAML::Node& n = factors->second.value;
  if (!n.IsMap() || n.size() == 0) return BadNode(n, factors->second.line, "morris.factors", what);
  for (const auto& kv : n) {
    MorrisFactor f;
    SWEEP_TRY(OptionKey(kv.first, factors->second.line, "morris.factors", &f.name));
    const int line = Line(kv.first, factors->second.line);
    const std::string field = "morris.factors." + f.name;
    SWEEP_TRY(Claim(f.name, line, field));
    SWEEP_TRY(ParseFactor(kv.second, line, field, &f));
    m.factors.push_back(f);
    m.factor_lines.push_back(line);
  }
  const double points = static_cast<double>(m.factors.size() + 1);
  if (m.trajectories * points > kMaxRuns) {
    const auto it = ents.find("trajectories");
    return Bad(it != ents.end() ? it->second.line : e.line, "morris.trajectories",
               "at most " + Format("%.0f", std::floor(kMaxRuns / points)) + " trajectories of " +
                   Format("%.0f", points) + " points",
               std::to_string(m.trajectories));
  }
  const Result<MorrisDesign> design =
      MorrisTrajectories(m.factors, m.trajectories, m.levels, m.seed);
  if (!design.ok()) return design.status().Prefixed(file_ + ":" + std::to_string(m.line) + ": ");
  spec->morris = std::move(m);
  return Status::Ok();
}

Result<SweepSpec> Parser::Parse(const YAML::Node& root) {
  Entries top;
  SWEEP_TRY(Sections(root, 1, "", kSections, "a mapping of " + Join(kSections, ", "), &top));
  SweepSpec spec;
  spec.path = file_;
  spec.name = std::filesystem::path(file_).stem().string();
  if (const auto it = top.find("name"); it != top.end()) {
    SWEEP_TRY(Value(it->second.value, it->second.line, "name", "a value", &spec.name));
  }
  // In an order where what a section refers to is read before it.
  using Step = Status (Parser::*)(const Entry&, SweepSpec*);
  static const std::pair<const char*, Step> kSteps[] = {
      {"base", &Parser::ParseBase},       {"axes", &Parser::ParseAxes},
      {"zip", &Parser::ParseZip},         {"morris", &Parser::ParseMorris},
      {"exclude", &Parser::ParseExclude}, {"metrics", &Parser::ParseMetrics},
      {"limits", &Parser::ParseLimits}};
  for (const auto& [section, step] : kSteps) {
    if (const auto it = top.find(section); it != top.end())
      SWEEP_TRY((this->*step)(it->second, &spec));
  }
  // Every run excluded, or too many runs.
  const Result<std::vector<std::vector<int>>> kept = KeptCombinations(spec);
  if (!kept.ok()) return kept.status();
  const double points =
      spec.morris ? spec.morris->trajectories * (spec.morris->factors.size() + 1.0) : 1.0;
  SWEEP_TRY(CheckTotal(spec.path, static_cast<double>(kept.value().size()) * points));
  return spec;
}

}  // namespace

Result<SweepSpec> ReadSweepSpec(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return Status::Error(StatusCode::kIo, path + ": cannot read: " + std::strerror(errno));
  }
  std::string text;
  char buf[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const int error = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (error != 0) {
    return Status::Error(StatusCode::kIo, path + ": cannot read: " + std::strerror(error));
  }
  return ParseSweepSpec(text, path);
}

Result<SweepSpec> ParseSweepSpec(const std::string& text, const std::string& path) {
  try {
    // One document. YAML::LoadAll is not used: yaml-cpp 0.7.0's loops
    // forever on some malformed streams (found by the fuzz target
    // sweep-file); a second document's "---" line is found here instead.
    if (const int line = SecondDocumentLine(text); line > 0)
      return Status::Error(StatusCode::kInvalidArgument,
                           path + ":" + std::to_string(line) +
                               ": expected one YAML document, got a second one ('---')");
    return Parser(path).Parse(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    const std::string line = e.mark.line >= 0 ? ":" + std::to_string(e.mark.line + 1) : "";
    return Status::Error(StatusCode::kInvalidArgument, path + line + ": " + e.msg);
  } catch (const std::exception& e) {
    return Status::Error(StatusCode::kInvalidArgument, path + ": " + e.what());
  }
}

Result<std::vector<SweepRun>> ExpandSweep(const SweepSpec& spec, MorrisDesign* design) {
  const Result<std::vector<std::vector<int>>> kept = KeptCombinations(spec);
  if (!kept.ok()) return kept.status();
  std::optional<MorrisDesign> morris;
  if (spec.morris) {
    Result<MorrisDesign> d = Design(spec);
    if (!d.ok()) return d.status();
    morris = std::move(d).value();
  }
  const size_t points = morris ? morris->points.size() : 1;
  SWEEP_TRY(CheckTotal(spec.path, static_cast<double>(kept.value().size()) * points));
  std::vector<SweepRun> runs;
  runs.reserve(kept.value().size() * points);
  for (size_t g = 0; g < kept.value().size(); ++g) {
    const std::vector<Param> grid = GridParams(spec.axes, kept.value()[g]);
    if (!morris) {
      runs.push_back(MakeRun(spec.base, grid, static_cast<int>(runs.size())));
      continue;
    }
    for (size_t p = 0; p < points; ++p) {
      std::vector<Param> swept = grid;
      AddMorrisParams(*spec.morris, morris->points[p], &swept);
      runs.push_back(MakeRun(spec.base, std::move(swept), static_cast<int>(runs.size())));
      runs.back().morris_point = static_cast<int>(p);
      runs.back().morris_group = static_cast<int>(g);
    }
  }
  if (design != nullptr) *design = morris ? std::move(*morris) : MorrisDesign{};
  return runs;
}

std::string CanonicalOptions(const std::vector<Param>& options) {
  std::vector<const Param*> sorted;
  for (const Param& p : options) sorted.push_back(&p);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Param* a, const Param* b) { return a->key < b->key; });
  std::string out;
  for (const Param* p : sorted) out += p->key + "=" + p->value + "\n";
  return out;
}

}  // namespace utilsim::sweep
