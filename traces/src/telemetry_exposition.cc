// dcgm-exporter Prometheus text exposition (telemetry.h, reader 1).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "telemetry_common.h"
#include "utilsim/traces/csv.h"

namespace utilsim::traces {

namespace {

using internal::EntityKey;
using internal::Labels;
using internal::Loc;

bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }
bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// Parser state for one file.
struct Exposition {
  const std::string& file;
  std::optional<Micros> scrape_time;
  const std::string& default_host;
  internal::TrackSet* tracks;
  TelemetryData* out;
  std::map<std::string, int64_t>* other;  // samples of metrics not read, by name

  Status Error(int64_t line, std::string_view field, std::string_view expected,
               std::string_view got) const {
    return Status::Error(file + ":" + std::to_string(line) + ": field '" + std::string(field) +
                         "': expected " + std::string(expected) + ", got '" +
                         std::string(got.substr(0, 100)) + "'");
  }

  // Parses `{name="value",...}` starting at s[*i] == '{'.
  Status ParseLabels(std::string_view s, size_t* i, int64_t line, Labels* labels) const {
    size_t p = *i + 1;
    auto skip = [&] {
      while (p < s.size() && IsBlank(s[p])) ++p;
    };
    for (;;) {
      skip();
      if (p < s.size() && s[p] == '}') break;
      if (p >= s.size() || !IsNameStart(s[p]) || s[p] == ':') {
        return Error(line, "labels", "a label name or '}'", s.substr(p));
      }
      size_t b = p;
      while (p < s.size() && IsNameChar(s[p]) && s[p] != ':') ++p;
      std::string name(s.substr(b, p - b));
      skip();
      if (p >= s.size() || s[p] != '=') {
        return Error(line, "labels", "'=' after label '" + name + "'", s.substr(p));
      }
      ++p;
      skip();
      if (p >= s.size() || s[p] != '"') {
        return Error(line, "labels", "a quoted value for label '" + name + "'", s.substr(p));
      }
      ++p;
      std::string value;
      for (;;) {
        if (p >= s.size()) {
          return Error(line, "labels", "a closing '\"' for label '" + name + "'", s.substr(b));
        }
        char c = s[p++];
        if (c == '"') break;
        if (c != '\\') {
          value.push_back(c);
          continue;
        }
        char e = p < s.size() ? s[p] : '\0';
        if (e == '\\' || e == '"') {
          value.push_back(e);
        } else if (e == 'n') {
          value.push_back('\n');
        } else {
          return Error(line, "labels", "an escape \\\\, \\\" or \\n in label '" + name + "'",
                       s.substr(p - 1, 2));
        }
        ++p;
      }
      labels->emplace_back(std::move(name), std::move(value));
      skip();
      if (p < s.size() && s[p] == ',') {
        ++p;
        continue;
      }
      if (p < s.size() && s[p] == '}') break;
      return Error(line, "labels", "',' or '}'", s.substr(p));
    }
    *i = p + 1;
    return Status::Ok();
  }

  Status ParseLine(std::string_view s, int64_t line) {
    size_t p = 0;
    if (!IsNameStart(s[0])) return Error(line, "metric", "a metric name", s);
    while (p < s.size() && IsNameChar(s[p])) ++p;
    const std::string_view name = s.substr(0, p);
    Labels labels;
    size_t after_name = p;
    while (after_name < s.size() && IsBlank(s[after_name])) ++after_name;
    const bool has_labels = after_name < s.size() && s[after_name] == '{';
    if (has_labels) {
      p = after_name;
      Status st = ParseLabels(s, &p, line, &labels);
      if (!st.ok()) return st;
    }
    // Value and optional timestamp, separated by blanks (as in the Go
    // parser, blanks may follow the name and may be left out after '}').
    std::string_view rest = s.substr(p);
    if (!has_labels && !rest.empty() && !IsBlank(rest[0])) {
      return Error(line, "metric", "a metric name followed by a blank or '{'", s);
    }
    std::vector<std::string_view> tok;
    size_t q = 0;
    while (q < rest.size()) {
      while (q < rest.size() && IsBlank(rest[q])) ++q;
      size_t b = q;
      while (q < rest.size() && !IsBlank(rest[q])) ++q;
      if (q > b) tok.push_back(rest.substr(b, q - b));
    }
    if (tok.empty()) return Error(line, "value", "a sample value", rest);
    if (tok.size() > 2) return Error(line, "timestamp", "the end of the line", tok[2]);
    const std::optional<double> value = internal::ParseSample(tok[0]);
    if (!value) return Error(line, "value", "a number", tok[0]);
    std::optional<Micros> t = scrape_time;
    if (tok.size() == 2) {
      int64_t ms = 0;
      auto [ptr, ec] = std::from_chars(tok[1].data(), tok[1].data() + tok[1].size(), ms);
      if (ec != std::errc() || ptr != tok[1].data() + tok[1].size() ||
          std::abs(static_cast<double>(ms)) > kMaxSeconds * 1e3) {
        return Error(line, "timestamp", "milliseconds since the UNIX epoch (integer)", tok[1]);
      }
      t = Micros(ms * 1000);
    }
    const std::optional<internal::MetricInfo> metric = internal::LookupDcgmMetric(name);
    if (!metric) {
      ++(*other)[std::string(name)];
      return Status::Ok();
    }
    if (!t) {
      return Status::Error(file + ":" + std::to_string(line) +
                           ": sample has no timestamp and no scrape time was given");
    }
    auto key = internal::KeyFromLabels(labels, default_host);
    if (!key.ok())
      return Status::Error(file + ":" + std::to_string(line) + ": " + key.status().message());
    const Loc loc{&file, line, {}};
    tracks->SetModel(key.value(), internal::ModelFromLabels(labels));
    if (metric->memory()) {
      auto bytes = internal::BytesFromRaw(*value, metric->kind, tok[0], loc, &out->warnings);
      if (bytes) tracks->AddMem(key.value(), *t, *bytes, loc);
    } else if (metric->power()) {
      auto watts = internal::WattsFromRaw(*value, tok[0], loc, &out->warnings);
      if (watts) tracks->AddPower(key.value(), *t, *watts, loc);
    } else {
      auto busy = internal::BusyFromRaw(*value, metric->kind, tok[0], loc, &out->warnings);
      if (busy) tracks->AddUtil(key.value(), metric->signal, *t, *busy, loc);
    }
    ++out->rows_read;
    return Status::Ok();
  }

  Status Parse(std::string_view text) {
    int64_t line = 0;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      if (nl == std::string_view::npos) nl = text.size();
      std::string_view s = text.substr(pos, nl - pos);
      pos = nl + 1;
      ++line;
      if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
      while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
      while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
      if (s.empty() || s[0] == '#') continue;
      Status st = ParseLine(s, line);
      if (!st.ok()) return st;
    }
    return Status::Ok();
  }
};

Status ReadOne(const std::string& path, std::optional<Micros> scrape_time,
               const TelemetryOptions& options, internal::TrackSet* tracks, TelemetryData* out,
               std::map<std::string, int64_t>* other) {
  auto text = internal::ReadWholeFile(path);
  if (!text.ok()) return text.status();
  out->bytes_read += static_cast<int64_t>(text.value().size());
  Exposition e{path, scrape_time, options.host, tracks, out, other};
  return e.Parse(text.value());
}

void Finish(internal::TrackSet* tracks, const std::map<std::string, int64_t>& other,
            TelemetryData* out) {
  tracks->Finish(&out->tracks);
  out->notes.push_back("time origin: UNIX epoch (sample timestamps in ms, or the scrape time)");
  if (!other.empty()) {
    int64_t n = 0;
    for (const auto& [name, c] : other) n += c;
    out->notes.push_back("skipped " + std::to_string(n) + " samples of " +
                         std::to_string(other.size()) +
                         " other metrics (first: " + other.begin()->first + ")");
  }
}

}  // namespace

Result<TelemetryData> ReadDcgmExposition(const std::string& path, const TelemetryOptions& options) {
  TelemetryData out;
  internal::TrackSet tracks(&out.warnings);
  std::map<std::string, int64_t> other;
  Status st = ReadOne(path, options.scrape_time, options, &tracks, &out, &other);
  if (!st.ok()) return st;
  Finish(&tracks, other, &out);
  return out;
}

Result<TelemetryData> ReadDcgmScrapes(std::vector<ScrapeFile> files,
                                      const TelemetryOptions& options) {
  std::stable_sort(files.begin(), files.end(),
                   [](const ScrapeFile& a, const ScrapeFile& b) { return a.time < b.time; });
  TelemetryData out;
  internal::TrackSet tracks(&out.warnings);
  std::map<std::string, int64_t> other;
  for (const ScrapeFile& f : files) {
    Status st = ReadOne(f.path, f.time, options, &tracks, &out, &other);
    if (!st.ok()) return st;
  }
  Finish(&tracks, other, &out);
  out.notes.push_back(std::to_string(files.size()) + " scrape files");
  return out;
}

Result<std::vector<ScrapeFile>> ListScrapeFiles(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return Status::Error(dir + ": cannot list: " + ec.message());
  std::vector<ScrapeFile> files;
  for (const fs::directory_entry& e : it) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.' || !e.is_regular_file(ec)) continue;
    std::string stem = name;
    if (stem.size() > 3 && stem.ends_with(".gz")) stem.resize(stem.size() - 3);
    std::optional<Micros> t = ParseSeconds(stem);
    if (!t) {
      const size_t dot = stem.rfind('.');
      if (dot != std::string::npos) t = ParseSeconds(std::string_view(stem).substr(0, dot));
    }
    if (!t) {
      return Status::Error(e.path().string() +
                           ": expected a file name <unix seconds>[.ext], got '" + name + "'");
    }
    files.push_back({e.path().string(), *t});
  }
  std::sort(files.begin(), files.end(), [](const ScrapeFile& a, const ScrapeFile& b) {
    return a.time < b.time || (a.time == b.time && a.path < b.path);
  });
  return files;
}

}  // namespace utilsim::traces
