// SWF header comments and format detection (utilsim/traces/swf.h).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <vector>

#include "csv_input.h"
#include "row_helpers.h"
#include "utilsim/engine/units.h"
#include "utilsim/traces/swf.h"

namespace utilsim::traces {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// The first whitespace-separated token of `v` as an integer.
std::optional<int64_t> LeadingInt(std::string_view v) {
  size_t end = 0;
  while (end < v.size() && !IsBlank(v[end])) ++end;
  int64_t x = 0;
  const char* last = v.data() + end;
  auto [ptr, ec] = std::from_chars(v.data(), last, x);
  if (end == 0 || ec != std::errc() || ptr != last) return std::nullopt;
  return x;
}

// Length of "Key" when `text` starts with "Key:" (letters, digits, '_'),
// else 0.
size_t KeyLength(std::string_view text) {
  if (text.empty() || !std::isalpha(static_cast<unsigned char>(text[0]))) return 0;
  size_t i = 1;
  while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
    ++i;
  }
  return i < text.size() && text[i] == ':' ? i : 0;
}

// Adds the comment `text` (after the ';') of `line` to the header.
void AddComment(int64_t line, std::string_view text, SwfHeader* h, bool* can_continue) {
  size_t indent = 0;
  while (indent < text.size() && IsBlank(text[indent])) ++indent;
  const std::string_view body = internal::TrimBlanks(text);
  if (body.empty()) {
    *can_continue = false;
    return;
  }
  if (indent > 3 && *can_continue && !h->entries.empty()) {
    h->entries.back().value += " ";
    h->entries.back().value += body;
    return;
  }
  SwfHeaderEntry e;
  e.line = line;
  const size_t key = KeyLength(body);
  if (key > 0) {
    e.key = body.substr(0, key);
    e.value = internal::TrimBlanks(body.substr(key + 1));
  } else {
    e.value = body;
  }
  h->entries.push_back(std::move(e));
  *can_continue = true;
}

Status SetKnownKeys(const std::string& path, SwfHeader* h) {
  for (const SwfHeaderEntry& e : h->entries) {
    std::optional<int64_t>* target = nullptr;
    int64_t lo = 1, hi = 10000000;
    const char* what = "an integer 1..10000000";
    if (e.key == "MaxNodes") {
      target = &h->max_nodes;
    } else if (e.key == "MaxProcs") {
      target = &h->max_procs;
    } else if (e.key == "UnixStartTime") {
      target = &h->unix_start_time;
      lo = 0;
      hi = static_cast<int64_t>(kMaxSeconds);
      what = "UNIX seconds >= 0";
    } else if (e.key == "Version") {
      h->version = e.value;
    } else if (e.key == "Computer") {
      h->computer = e.value;
    } else if (e.key == "TimeZoneString") {
      h->time_zone_string = e.value;
    }
    if (target == nullptr) continue;
    auto v = LeadingInt(e.value);
    if (!v || *v < lo || *v > hi) {
      return Status::Error(path + ":" + std::to_string(e.line) + ": field '" + e.key +
                           "': expected " + what + ", got '" + e.value.substr(0, 100) + "'");
    }
    *target = *v;
  }
  return Status::Ok();
}

}  // namespace

Result<SwfHeader> ReadSwfHeader(const std::string& path) {
  auto opened = internal::OpenCsvInput(path);
  if (!opened.ok()) return opened.status();
  internal::CsvInput& in = *opened.value();
  SwfHeader h;
  std::string buf;
  size_t pos = 0;
  bool eof = false, can_continue = false;
  int64_t line = 0;
  std::vector<char> chunk(size_t{1} << 16);
  for (;;) {
    const size_t nl = buf.find('\n', pos);
    if (nl == std::string::npos && !eof) {
      buf.erase(0, pos);
      pos = 0;
      const int64_t n = in.Read(chunk.data(), chunk.size());
      if (n < 0) {
        return Status::Error(path +
                             (in.gzip_error ? ": truncated or corrupt gzip data near line "
                                            : ": read error near line ") +
                             std::to_string(line + 1) + " (" + in.error + ")");
      }
      if (n == 0) eof = true;
      buf.append(chunk.data(), static_cast<size_t>(n));
      continue;
    }
    if (pos >= buf.size() && eof) break;
    const size_t end = nl == std::string::npos ? buf.size() : nl;
    std::string_view text(buf.data() + pos, end - pos);
    pos = end + 1;
    if (line++ == 0 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    const std::string_view body = internal::TrimBlanks(text);
    if (body.empty()) continue;
    if (body.front() != ';') break;  // the first job line
    AddComment(line, text.substr(text.find(';') + 1), &h, &can_continue);
  }
  if (Status s = SetKnownKeys(path, &h); !s.ok()) return s;
  return h;
}

int64_t SwfNodeSize(const SwfHeader& header, const SwfOptions& opt) {
  if (opt.unit == SwfUnit::kGpu) return opt.gpus_per_node;
  if (opt.cores_per_node > 0) return opt.cores_per_node;
  if (header.max_procs && header.max_nodes && *header.max_procs % *header.max_nodes == 0) {
    return *header.max_procs / *header.max_nodes;
  }
  return 1;
}

std::optional<ClusterSpec> SwfCluster(const SwfHeader& header, const SwfOptions& opt) {
  const std::optional<int64_t> procs = header.max_procs ? header.max_procs : header.max_nodes;
  if (!procs) return std::nullopt;
  const int64_t size = std::max<int64_t>(1, SwfNodeSize(header, opt));
  ClusterSpec spec;
  spec.name = header.computer.empty() ? "swf" : header.computer;
  NodeGroup g;
  g.name = "swf";
  g.count = static_cast<int32_t>((*procs + size - 1) / size);
  g.mem_bytes = size * kBytesPerGiB;
  if (opt.unit == SwfUnit::kGpu) {
    spec.models.push_back({kSwfGpuModel, 0, 1.0});
    g.gpu_model = kSwfGpuModel;
    g.gpus = static_cast<int32_t>(size);
    g.cpu_milli = size * kMilliPerUnit;
  } else {
    g.cpu_milli = size * kMilliPerUnit;
  }
  spec.groups.push_back(g);
  return spec;
}

bool LooksLikeSwf(std::string_view first_line) {
  while (!first_line.empty() && (first_line.back() == '\r' || first_line.back() == '\n')) {
    first_line.remove_suffix(1);
  }
  const std::string_view line = internal::TrimBlanks(first_line);
  if (!line.empty() && line.front() == ';') return true;
  size_t fields = 0;
  for (size_t i = 0; i < line.size();) {
    while (i < line.size() && IsBlank(line[i])) ++i;
    if (i == line.size()) break;
    size_t end = i;
    while (end < line.size() && !IsBlank(line[end])) ++end;
    double v = 0;
    auto [ptr, ec] = std::from_chars(line.data() + i, line.data() + end, v);
    if (ec != std::errc() || ptr != line.data() + end) return false;
    ++fields;
    i = end;
  }
  return fields == kSwfFields.size();
}

}  // namespace utilsim::traces
