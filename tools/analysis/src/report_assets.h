// Private: the charting libraries the HTML report inlines. Defined in a
// source generated at build time (tools/report/embed_js.cmake) from the npm
// packages pinned in tools/report/package-lock.json; see docs/report.md.
#pragma once

#include <array>
#include <string_view>

namespace utilsim::report {

struct JsLibrary {
  std::string_view name;     // npm package, e.g. "vega-lite"
  std::string_view version;  // its exact version, e.g. "6.4.1"
  std::string_view code;     // the minified UMD build, without its source-map comment
};

// vega, vega-lite, vega-embed: the order a page must load them in.
const std::array<JsLibrary, 3>& ChartLibraries();

}  // namespace utilsim::report
