// The fuzzed readers: name -> (file suffix, function reading a path).
#pragma once

#include <functional>
#include <map>
#include <string>

#include "utilsim/traces/canonical.h"

namespace utilsim::fuzz {

struct Target {
  std::string suffix;
  std::function<void(const std::string& path)> run;
};

inline const std::map<std::string, Target>& Targets() {
  static const std::map<std::string, Target> kTargets = {
      {"jobs-csv", {".csv", [](const std::string& p) { (void)traces::ReadJobsCsv(p); }}},
      {"cluster-yaml", {".yaml", [](const std::string& p) { (void)traces::ReadClusterYaml(p); }}},
      {"util-series", {".csv", [](const std::string& p) { (void)traces::ReadUtilSeriesCsv(p); }}},
  };
  return kTargets;
}

}  // namespace utilsim::fuzz
