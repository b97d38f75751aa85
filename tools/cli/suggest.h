// "Did you mean ...?" for words of the command line: subcommands, options and
// policy names, by Levenshtein edit distance.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "utilsim/policies/registry.h"

namespace utilsim::cli {

// Levenshtein distance: the fewest single-character insertions, deletions
// and substitutions that turn `a` into `b`. O(|a| x |b|) time, O(|b|) memory.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate nearest to `word`, when it is close enough to be a likely
// typo: distance <= max(1, |word| / 3) (so "compar" -> "compare", "polcy" ->
// "policy", but not "tightest" -> "best-fit"). Ties go to the earlier
// candidate. "" when none is close or `word` is itself a candidate.
std::string Suggest(std::string_view word, const std::vector<std::string>& candidates);

// A registered policy name (forms of PolicyRegistry::Make) close to `name`,
// or "". QUEUE+PLACEMENT is corrected part by part ("fifo-skp+bestfit" ->
// "fifo-skip+best-fit"); a lone name against placements, profiles, queues
// and as-recorded.
std::string SuggestPolicy(const std::string& name, const PolicyRegistry& reg);

// " (did you mean 'X'?)" for a non-empty suggestion, else "".
std::string DidYouMean(const std::string& suggestion);

}  // namespace utilsim::cli
