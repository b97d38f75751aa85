// Helpers shared by the Slurm text parsers (slurm_text.h), the sacct reader
// and the slurm.conf reader.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "utilsim/engine/status.h"

namespace utilsim::traces::internal {

// "expected <what>, got '<text>'" with text cut at 100 characters, the
// message every Slurm text parser returns (kInvalidArgument).
Status Expected(std::string_view what, std::string_view text);

// "<where>: field '<field>': <message of s>", keeping s's code.
Status AtField(const std::string& where, std::string_view field, const Status& s);

// A decimal integer 0..max made only of digits (no sign, no blanks), or
// nullopt.
std::optional<int64_t> Digits(std::string_view s, int64_t max);

// The number of names ExpandHostlist(expr) gives, without making them
// (same errors).
Result<int64_t> CountHostlist(std::string_view expr);

// ASCII lower case.
std::string Lower(std::string_view s);

// True when a and b are equal ignoring ASCII letter case.
bool IEquals(std::string_view a, std::string_view b);

}  // namespace utilsim::traces::internal
