// Private: the fixed parts of the report page (style, the error hook that
// runs before the libraries, the script that embeds the charts) and HTML/JSON
// escaping for inlining text.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace utilsim::report {

// CSS of the page.
extern const std::string_view kPageStyle;

// Runs first: collects window errors, unhandled promise rejections and
// console.error/console.warn calls into window.utilsimReport.
extern const std::string_view kErrorHookJs;

// Runs last: embeds every chart of the JSON in <script id="report-data">
// into its container "chart-<id>", sets data-rows and data-rendered (data
// rows and drawn mark items; "error" when embedding failed) on it, and when
// all are settled and the page has loaded writes window.utilsimReport as JSON
// into <pre id="report-check"> (again after any later error) and sets
// data-report-done="1" on <body>. The browser test reads those back
// (docs/report.md).
extern const std::string_view kBootstrapJs;

// Writes the page's <head> (title, style, the error hook, the inlined
// charting libraries: none in a build without the report) and opens <body>.
void PageHead(std::ostream& os, const std::string& title, const std::string& generator);

// Escapes & < > " ' for HTML text and attribute values.
std::string HtmlEscape(std::string_view s);

// Makes JavaScript safe to inline in <script>: each "</script" (any case)
// becomes "<\/script", which reads the same inside a string or regular
// expression, so the element cannot close early.
std::string ScriptSafeJs(std::string_view js);

// Makes JSON text safe to inline in <script>: < > & become \u003c \u003e
// \u0026 (they can occur only inside JSON strings, where these escapes read
// back as the same characters).
std::string ScriptSafeJson(std::string_view json);

}  // namespace utilsim::report
