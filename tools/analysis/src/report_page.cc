#include "report_page.h"

#include <cctype>

#include "report_assets.h"

namespace utilsim::report {

const std::string_view kPageStyle = R"css(
body{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;color:#222;margin:0 auto;
  max-width:1180px;padding:16px 24px 48px;line-height:1.4}
h1{font-size:1.6em;margin:0.2em 0}h2{font-size:1.25em;margin-top:1.8em;
  border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:1em;margin:1.2em 0 0.3em}
.sub{color:#555;margin:0}.note{color:#8a4b00;background:#fff6e5;padding:4px 8px;margin:4px 0}
.explain{color:#444;font-size:0.92em;max-width:62em}
.chart{width:100%;min-height:60px}
table{border-collapse:collapse;font-size:0.88em;margin:8px 0}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left}thead th{background:#f3f5f8}
td.text{text-align:left;max-width:28em;overflow-wrap:anywhere}
.headline{font-size:1.02em;margin:4px 0}
)css";

const std::string_view kErrorHookJs = R"js(
(function () {
  var r = {done: false, errors: [], warnings: [], charts: []};
  window.utilsimReport = r;
  function text(args) {
    return Array.prototype.map.call(args, function (a) {
      return a instanceof Error ? a.message : String(a);
    }).join(' ');
  }
  // Writes the record into the page once the charts are done, and again after
  // every later error, so nothing logged after that is lost.
  r.publish = function () {
    var el = document.getElementById('report-check');
    if (r.done && el) el.textContent = JSON.stringify({done: r.done, errors: r.errors,
        warnings: r.warnings, charts: r.charts});
  };
  function add(list, message) { list.push(message); r.publish(); }
  window.addEventListener('error', function (e) { add(r.errors, 'error: ' + (e.message || e.type)); });
  window.addEventListener('unhandledrejection', function (e) {
    add(r.errors, 'unhandled rejection: ' + String(e.reason));
  });
  var error = console.error, warn = console.warn;
  console.error = function () { add(r.errors, text(arguments)); return error.apply(console, arguments); };
  console.warn = function () { add(r.warnings, text(arguments)); return warn.apply(console, arguments); };
})();
)js";

const std::string_view kBootstrapJs = R"js(
(function () {
  var r = window.utilsimReport;
  function finish() {
    r.charts.sort(function (a, b) { return a.id < b.id ? -1 : a.id > b.id ? 1 : 0; });
    r.done = true;
    r.publish();
    document.body.setAttribute('data-report-done', '1');
  }
  // Done when every chart has settled and the page has loaded (so scripts
  // after this one have run too).
  var loaded = new Promise(function (resolve) {
    if (document.readyState === 'complete') resolve();
    else window.addEventListener('load', function () { resolve(); });
  });
  // Items of the data marks (role "mark", not groups) in the scenegraph:
  // one per drawn point, bar or line vertex. Axes and legends do not count.
  function marks(node) {
    var n = 0;
    if (!node) return 0;
    if (node.marktype && node.role === 'mark' && node.marktype !== 'group') n += (node.items || []).length;
    (node.items || []).forEach(function (child) { n += marks(child); });
    return n;
  }
  try {
    var data = JSON.parse(document.getElementById('report-data').textContent);
    var jobs = data.charts.map(function (ch) {
      var el = document.getElementById('chart-' + ch.id);
      if (!el) {
        r.errors.push('chart ' + ch.id + ': no container');
        return Promise.resolve();
      }
      return vegaEmbed(el, ch.spec, {actions: false, renderer: 'canvas', mode: 'vega-lite'}).then(
        function (res) {
          var rows = res.view.data('main').length, drawn = marks(res.view.scenegraph().root);
          el.setAttribute('data-rows', String(rows));
          el.setAttribute('data-rendered', String(drawn));
          r.charts.push({id: ch.id, rows: rows, marks: drawn});
        },
        function (e) {
          el.setAttribute('data-rendered', 'error');
          r.errors.push('chart ' + ch.id + ': ' + (e && e.message ? e.message : String(e)));
          r.charts.push({id: ch.id, rows: 0, marks: 0, error: true});
        });
    });
    Promise.all([Promise.all(jobs), loaded]).then(finish, function (e) {
      r.errors.push(String(e));
      finish();
    });
  } catch (e) {
    r.errors.push('report script: ' + (e && e.message ? e.message : String(e)));
    finish();
  }
})();
)js";

void PageHead(std::ostream& os, const std::string& title, const std::string& generator) {
  os << "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
     << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  if (!generator.empty())
    os << "<meta name=\"generator\" content=\"" << HtmlEscape(generator) << "\">\n";
  os << "<title>" << HtmlEscape(title) << "</title>\n"
     << "<style>" << kPageStyle << "</style>\n"
     << "<script>" << kErrorHookJs << "</script>\n";
#ifndef UTILSIM_REPORT_MISSING
  for (const auto& lib : ChartLibraries())
    os << "<script>/* " << lib.name << " " << lib.version << " */\n"
       << ScriptSafeJs(lib.code) << "\n</script>\n";
#endif
  os << "</head>\n<body>\n";
}

std::string HtmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string ScriptSafeJs(std::string_view js) {
  static constexpr std::string_view kTag = "</script";
  std::string out;
  out.reserve(js.size());
  for (size_t i = 0; i < js.size(); ++i) {
    bool tag = js[i] == '<' && i + kTag.size() <= js.size();
    for (size_t k = 1; tag && k < kTag.size(); ++k)
      tag = std::tolower(static_cast<unsigned char>(js[i + k])) == kTag[k];
    out += js[i];
    if (tag) out += '\\';
  }
  return out;
}

std::string ScriptSafeJson(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace utilsim::report
