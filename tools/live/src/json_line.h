// Typed fields of one JSON line of a live-mode log (the Slurm advice and
// apply logs), read without ever throwing: an absent or null field gives
// its default; a field of another type, or a number out of int64 range, is
// recorded as the line's error ("<where>: field '<key>': expected ...,
// got ...") and also gives the default, so a reader checks status() once
// per line.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "utilsim/engine/status.h"

namespace utilsim::live::internal {

class JsonLine {
 public:
  // `line` must outlive this object; `where` is "<file>:<line>".
  JsonLine(const nlohmann::json& line, std::string where) : j_(line), where_(std::move(where)) {}
  std::string Str(const char* key, const std::string& fallback = "");
  int64_t Int(const char* key, int64_t fallback = 0);
  bool Bool(const char* key, bool fallback = false);
  std::vector<std::string> Strings(const char* key);  // an array of strings
  // Lists of lists of strings (the advice's "ranked").
  std::vector<std::vector<std::string>> StringLists(const char* key);
  const Status& status() const { return status_; }

 private:
  const nlohmann::json* Get(const char* key) const;
  void Bad(const char* key, const char* what, const nlohmann::json& got);
  const nlohmann::json& j_;
  std::string where_;
  Status status_;
};

}  // namespace utilsim::live::internal
