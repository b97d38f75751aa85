// The HTML report's chart data, for the report tests: id -> Vega-Lite spec,
// read from the page's <script id="report-data"> (docs/report.md).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace utilsim::testutil {

inline std::map<std::string, nlohmann::json> ChartSpecs(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"report-data\">";
  const size_t a = html.find(open);
  const size_t b = html.find("</script>", a);
  EXPECT_NE(a, std::string::npos);
  std::map<std::string, nlohmann::json> out;
  if (a == std::string::npos || b == std::string::npos) return out;
  const nlohmann::json data =
      nlohmann::json::parse(html.substr(a + open.size(), b - a - open.size()));
  for (const auto& c : data["charts"]) out[c["id"].get<std::string>()] = c["spec"];
  return out;
}

}  // namespace utilsim::testutil
