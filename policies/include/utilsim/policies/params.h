// Policy parameters: `NAME:key=value,key=value` wherever the registry takes a
// policy name (a placement, a queue, a profile, each side of
// QUEUE+PLACEMENT), e.g. `tiresias:thresholds=3250/7200+epvm:base=2`.
//
// A policy declares its parameters once, as ParamSpecs in its PolicyInfo
// (registry.h); the registry parses the text after ':' against them
// (ParseParams) and hands the factory the typed values, every parameter not
// given at its default. Errors name the policy, the key, what was expected
// and the range; nothing here throws.
//
// Value syntax: an integer (`256`), a number (`0.8`, `1e3`; finite), a list of
// numbers separated by '/' (`3250/7200`), or a word (an enum's choice, or the
// word a number parameter accepts instead of a number, e.g. `base=nodes`).
// No spaces. Keys are given at most once; order does not matter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "utilsim/engine/status.h"

namespace utilsim {

enum class ParamType {
  kInt,          // integer in [min, max]
  kDouble,       // finite number in [min, max]
  kSecondsList,  // '/'-separated seconds, each in [min, max]
  kDoubleList,   // '/'-separated numbers, each in [min, max]
  kEnum,         // one of `words`
};

// One parameter of a policy. Aggregate: declare it with designated
// initializers where the policy is registered.
struct ParamSpec {
  std::string name;  // the key: lower-case letters, digits, '-' and '_'
  ParamType type = ParamType::kInt;
  std::string default_value;            // in the value syntax; must itself be valid
  double min = 0, max = 0;              // inclusive; numbers and each list element
  size_t min_items = 1, max_items = 1;  // lists: number of elements
  bool increasing = false;              // lists: strictly increasing
  // kEnum: the accepted words. kInt, kDouble: words accepted instead of a
  // number (their meaning goes in `help`), e.g. {"nodes"}.
  std::vector<std::string> words = {};
  std::string help = {};  // one line: what the parameter changes
};

// The values of one policy's parameters, all of them (defaults filled in),
// in declared order.
class ParamValues {
 public:
  ParamValues() = default;  // a policy without parameters

  // Typed lookups. Precondition: `name` is declared with a matching type
  // (kInt for Int, kDouble for Double, a list type for List, kEnum for
  // Word); otherwise they return 0, an empty list or "" (never crash).
  int64_t Int(std::string_view name) const;
  double Double(std::string_view name) const;
  const std::vector<double>& List(std::string_view name) const;
  // kEnum: the choice. kInt, kDouble: the word given instead of a number,
  // or "" when the value is a number.
  const std::string& Word(std::string_view name) const;

  // "key=value,key=value" with every parameter in declared order, values as
  // FormatParamNumber / FormatParamList write them; "" without parameters.
  // ParseParams(policy, specs, Canonical()) gives these values again.
  std::string Canonical() const;
  bool empty() const { return items_.empty(); }
  const std::vector<ParamSpec>& specs() const { return specs_; }

 private:
  struct Item {
    int64_t i = 0;
    double d = 0;
    std::vector<double> list;
    std::string word;
  };
  friend Result<ParamValues> ParseParams(const std::string& policy,
                                         const std::vector<ParamSpec>& specs,
                                         const std::string& text);
  const Item* Find(std::string_view name, bool (*type_ok)(ParamType)) const;
  std::vector<ParamSpec> specs_;
  std::vector<Item> items_;  // one per spec
};

// Parses `text`, the "key=value,key=value" after ':' in "NAME:text", against
// `specs`; "" gives every default. Errors, each naming the policy
// ("policy 'tiresias': ..."): text for a policy without parameters; an item
// without '=' or an empty item; an unknown key (naming every accepted key
// with its type, range and default); a key given twice; a value of the wrong
// type, out of range, of the wrong length or not increasing (naming the key
// and what it accepts, DescribeParamType).
Result<ParamValues> ParseParams(const std::string& policy, const std::vector<ParamSpec>& specs,
                                const std::string& text);

// Checks a policy's declarations (done when it is registered): names
// non-empty, of the allowed characters and distinct; min <= max; list
// lengths 1 <= min_items <= max_items; enums with words; every default
// valid. Errors name the policy and the parameter.
Status ValidateParamSpecs(const std::string& policy, const std::vector<ParamSpec>& specs);

// A policy reference as written: "NAME" or "NAME:PARAMS" (split at the
// first ':'). has_params: a ':' was present (so "tiresias:" is an error, not
// the defaults).
struct PolicyRef {
  std::string name;
  std::string params;
  bool has_params = false;
};
PolicyRef SplitPolicyRef(const std::string& text);
// ParseParams(ref.name, specs, ref.params), refusing "NAME:" with nothing
// after the ':' (what the registry calls for each policy of a name).
Result<ParamValues> ParseParamsOf(const PolicyRef& ref, const std::vector<ParamSpec>& specs);

// Canonical number text: integers below 1e15 in magnitude without a
// fraction or exponent ("3600"), others in the shortest form that reads
// back exactly ("0.8", "1.5e+20").
std::string FormatParamNumber(double v);
// Numbers joined by '/': "3600/36000".
std::string FormatParamList(const std::vector<double>& v);

// What a value must be, with its range: "an integer in [0, 1000000]",
// "a list of 1 to 16 values in seconds separated by '/', each in [1,
// 10000000000], strictly increasing", "a number in [1.01, 1000000] or
// 'nodes'", "one of 'pack' or 'spread'".
std::string DescribeParamType(const ParamSpec& spec);
// One parameter on one line: "thresholds: a list of ...; default 3600/36000.
// <help>".
std::string DescribeParam(const ParamSpec& spec);
// Every parameter, one line each, each prefixed by `indent` and ending in
// '\n'; "" for a policy without parameters (`utilsim policies --verbose`).
std::string DescribeParams(const std::vector<ParamSpec>& specs, const std::string& indent = "");

}  // namespace utilsim
