// TRES and GRES strings: ParseTres and ParseGres (slurm_text.h).
#include <string>
#include <string_view>
#include <vector>

#include "slurm_internal.h"
#include "utilsim/traces/slurm_text.h"

namespace utilsim::traces {

namespace {

using internal::Expected;

constexpr int64_t kMaxValue = int64_t{1} << 62;

// 1024^k for the suffix letter, or 0 when it is not one.
int64_t SuffixMultiplier(char c, const char* letters) {
  int64_t m = 1;
  for (const char* p = letters; *p; ++p) {
    m *= 1024;
    if (c == *p || c == *p + ('a' - 'A')) return m;
  }
  return 0;
}

// "62.50G" -> bytes (no suffix = MiB).
std::optional<int64_t> ParseMem(std::string_view v) {
  int64_t unit = int64_t{1} << 20;
  if (!v.empty() && (v.back() < '0' || v.back() > '9')) {
    unit = SuffixMultiplier(v.back(), "KMGTP");
    if (unit == 0) return std::nullopt;
    v.remove_suffix(1);
  }
  const size_t dot = v.find('.');
  const auto whole = internal::Digits(v.substr(0, dot), kMaxValue);
  if (!whole || *whole > kMaxValue / unit) return std::nullopt;
  int64_t bytes = *whole * unit;
  if (dot != std::string_view::npos) {
    const std::string_view frac = v.substr(dot + 1);
    const auto f = internal::Digits(frac, kMaxValue);
    if (!f || frac.size() > 9) return std::nullopt;
    long double scale = 1;
    for (size_t i = 0; i < frac.size(); ++i) scale *= 10;
    bytes += static_cast<int64_t>(static_cast<long double>(*f) * unit / scale + 0.5L);
    if (bytes > kMaxValue) return std::nullopt;
  }
  return bytes;
}

// A GRES count: digits with an optional K, M or G (x1024 each).
std::optional<int64_t> ParseCount(std::string_view v) {
  int64_t m = 1;
  if (!v.empty() && (v.back() < '0' || v.back() > '9')) {
    m = SuffixMultiplier(v.back(), "KMG");
    if (m == 0) return std::nullopt;
    v.remove_suffix(1);
  }
  const auto n = internal::Digits(v, kMaxValue);
  if (!n || *n > kMaxValue / m) return std::nullopt;
  return *n * m;
}

bool IsGresFlag(std::string_view t) {
  for (const char* f : {"no_consume", "explicit", "one_sharing", "all_sharing", "nvidia_gpu_env",
                        "amd_gpu_env", "intel_gpu_env", "opencl_env", "no_gpu_env"})
    if (t == f) return true;
  return false;
}

// "0-1,3" -> 0, 1, 3. "N/A" and "" (squeue prints "gpu:v100:0(IDX:)" for a
// node of a multi-node job that holds no GPU there, seen on 22.05 after a
// slurmctld restart) hold none.
Status ParseIndices(std::string_view list, std::string_view text, std::vector<int32_t>* out) {
  if (list == "N/A" || list.empty()) return Status::Ok();
  const std::string group = "[" + std::string(list) + "]";
  const char* what = "IDX:N/A or GPU indices as IDX:0-1,3 in a GRES entry";
  auto count = internal::CountHostlist(group);
  if (!count.ok()) return Expected(what, text);
  if (count.value() > 65536) return Expected("at most 65536 GPU indices in a GRES entry", text);
  auto names = ExpandHostlist(group);
  if (!names.ok()) return Expected(what, text);
  for (const std::string& n : names.value()) {
    const auto v = internal::Digits(n, 1 << 30);
    if (!v) return Expected(what, text);
    out->push_back(static_cast<int32_t>(*v));
  }
  return Status::Ok();
}

Status ParseEntry(std::string_view e, std::string_view text, std::vector<SlurmGres>* out) {
  const char* what = "GRES entries name[:type][:count] (as gpu:a100:4)";
  if (e.substr(0, 5) == "gres:" || e.substr(0, 5) == "gres/") e.remove_prefix(5);
  SlurmGres g;
  const size_t paren = e.find('(');
  if (paren != std::string_view::npos) {
    if (e.back() != ')') return Expected(what, text);
    const std::string_view inside = e.substr(paren + 1, e.size() - paren - 2);
    if (inside.substr(0, 4) == "IDX:")
      if (Status s = ParseIndices(inside.substr(4), text, &g.indices); !s.ok()) return s;
    e = e.substr(0, paren);
  }
  std::vector<std::string> tokens;
  size_t pos = 0;
  for (;;) {
    const size_t sep = e.find_first_of(":=", pos);
    tokens.emplace_back(e.substr(pos, sep - pos));
    if (sep == std::string_view::npos) break;
    pos = sep + 1;
  }
  if (tokens[0].empty()) return Expected(what, text);
  g.name = tokens[0];
  g.count = 1;
  size_t last = tokens.size();
  if (tokens.size() > 1) {
    if (auto n = ParseCount(tokens.back())) {
      g.count = *n;
      --last;
    }
  }
  for (size_t i = 1; i < last; ++i) {
    if (IsGresFlag(tokens[i])) continue;
    if (tokens[i].empty() || !g.type.empty())
      return Expected("one type and a count per GRES entry (as gpu:a100:4)", text);
    g.type = tokens[i];
  }
  out->push_back(std::move(g));
  return Status::Ok();
}

}  // namespace

Result<SlurmTres> ParseTres(std::string_view text) {
  SlurmTres t;
  int64_t typed_sum = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = text.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return Expected("TRES entries name=count (as cpu=2,mem=1000M,gres/gpu=2)", text);
    const std::string_view name = item.substr(0, eq), value = item.substr(eq + 1);
    const bool gpu = name == "gres/gpu", typed = name.substr(0, 9) == "gres/gpu:";
    if (name == "mem") {
      const auto m = ParseMem(value);
      if (!m) return Expected("mem=<size>[K|M|G|T|P] (as mem=62.50G) in a TRES list", text);
      t.mem_bytes = *m;
      continue;
    }
    if (name != "cpu" && name != "node" && !gpu && !typed) continue;
    const auto n = internal::Digits(value, kMaxValue);
    if (!n) return Expected("integer counts for cpu, node and gres/gpu in a TRES list", text);
    if (name == "cpu") {
      t.cpus = *n;
    } else if (name == "node") {
      t.nodes = *n;
    } else if (gpu) {
      t.gpus = *n;
    } else {
      const std::string type(name.substr(9));
      if (type.empty()) return Expected("gres/gpu:<type>=<count> in a TRES list", text);
      auto [it, fresh] = t.gpus_by_type.emplace(type, *n);
      typed_sum += *n - (fresh ? 0 : it->second);
      it->second = *n;
      if (typed_sum > kMaxValue) return Expected("GPU counts below 2^62 in a TRES list", text);
    }
  }
  if (t.gpus < 0 && !t.gpus_by_type.empty()) t.gpus = typed_sum;
  return t;
}

Result<std::vector<SlurmGres>> ParseGres(std::string_view text) {
  std::vector<SlurmGres> out;
  if (text.empty() || text == "(null)" || text == "N/A") return out;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '(') {
      if (depth++ > 0) return Expected("no '(' inside (...) in a GRES list", text);
    } else if (c == ')') {
      if (depth-- == 0) return Expected("')' only after '(' in a GRES list", text);
    } else if (c == ',' && depth == 0) {
      if (i == begin) return Expected("GRES entries separated by single commas", text);
      if (Status s = ParseEntry(text.substr(begin, i - begin), text, &out); !s.ok()) return s;
      begin = i + 1;
    }
  }
  if (depth != 0) return Expected("')' to close every '(' in a GRES list", text);
  return out;
}

}  // namespace utilsim::traces
