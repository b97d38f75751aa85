// The slurm.conf reader's parts (utilsim/traces/slurm_conf.h): the lexer
// shared by slurm.conf and gres.conf, and the gres.conf step.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/traces/slurm_conf.h"

namespace utilsim::traces::internal {

struct ConfPair {
  std::string key;    // as written
  std::string value;  // quotes removed
};

// One logical line: continuation lines joined, comments removed.
struct ConfLine {
  std::string where;  // "<file>:<line>" of its first physical line
  std::vector<ConfPair> pairs;
  // The value of `key` (any letter case), or nullptr.
  const std::string* Find(std::string_view key) const;
};

// Reads a configuration file into its Key=Value lines, reading "Include
// FILE" lines in place (FILE relative to `base_dir` unless absolute).
// Errors: "<path>: cannot open: ...", "<file>:<line>: ..." for a token
// without '=', an unclosed quote, an Include loop or one nested too deep.
Result<std::vector<ConfLine>> LexConf(const std::string& path, const std::string& base_dir);

// Applies gres.conf at `path` to conf->nodes (GPU types, count checks,
// notes). The nodes are already read from slurm.conf.
Status ApplyGresConf(const std::string& path, SlurmConf* conf);

// A decimal integer lo..hi as a field error "<where>: field '<key>':
// expected <what>, got '<text>'".
Status ConfInt(const ConfLine& line, const ConfPair& p, int64_t lo, int64_t hi, int64_t* out);

}  // namespace utilsim::traces::internal
