// The Key=Value lexer of slurm.conf and gres.conf (slurm_conf_internal.h).
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "slurm_conf_internal.h"
#include "slurm_internal.h"

namespace utilsim::traces::internal {

namespace {

namespace fs = std::filesystem;

constexpr int kMaxIncludeDepth = 16;

// Removes a comment ('#' outside quotes, not written "\#") and the blanks
// at the end; "\#" becomes "#".
std::string StripComment(const std::string& line) {
  std::string out;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') quoted = !quoted;
    if (c == '\\' && i + 1 < line.size() && line[i + 1] == '#') {
      out += '#';
      ++i;
      continue;
    }
    if (c == '#' && !quoted) break;
    out += c;
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\t' || out.back() == '\r'))
    out.pop_back();
  return out;
}

bool Blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Splits a logical line into tokens: Key=Value with an optionally quoted
// value, or a bare word.
Status Tokens(const std::string& text, const std::string& where, std::vector<ConfPair>* out,
              std::vector<std::string>* words) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && Blank(text[i])) ++i;
    if (i >= text.size()) break;
    const size_t start = i;
    while (i < text.size() && !Blank(text[i]) && text[i] != '=') ++i;
    std::string key = text.substr(start, i - start);
    if (i >= text.size() || text[i] != '=') {
      words->push_back(std::move(key));
      continue;
    }
    ++i;  // '='
    std::string value;
    if (i < text.size() && text[i] == '"') {
      const size_t close = text.find('"', i + 1);
      if (close == std::string::npos)
        return Status::Error(StatusCode::kInvalidArgument,
                             where + ": field '" + key + "': expected a closing '\"'");
      value = text.substr(i + 1, close - i - 1);
      i = close + 1;
    } else {
      const size_t v = i;
      while (i < text.size() && !Blank(text[i])) ++i;
      value = text.substr(v, i - v);
    }
    out->push_back({std::move(key), std::move(value)});
  }
  return Status::Ok();
}

Status Lex(const std::string& path, const std::string& base_dir, std::vector<std::string>* stack,
           std::vector<ConfLine>* out) {
  std::error_code ec;
  const std::string canon = fs::weakly_canonical(path, ec).string();
  for (const std::string& s : *stack)
    if (s == canon) return Status::Error(StatusCode::kInvalidArgument, "Include loop: " + path);
  if (static_cast<int>(stack->size()) >= kMaxIncludeDepth)
    return Status::Error(StatusCode::kInvalidArgument, "Include nested more than 16 deep: " + path);
  if (fs::is_directory(path, ec))
    return Status::Error(StatusCode::kIo, path + ": cannot open: a folder, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::Error(StatusCode::kNotFound, path + ": cannot open: " + std::strerror(errno));
  stack->push_back(canon);
  std::string physical, logical;
  int64_t n = 0, first = 0;
  bool more = true;
  while (more) {
    more = static_cast<bool>(std::getline(in, physical));
    if (more) ++n;
    std::string text = more ? StripComment(physical) : std::string();
    if (logical.empty()) first = n;
    if (more && !text.empty() && text.back() == '\\') {
      text.pop_back();
      logical += text + " ";
      continue;
    }
    logical += text;
    if (logical.find_first_not_of(" \t") == std::string::npos) {
      logical.clear();
      continue;
    }
    const std::string where = path + ":" + std::to_string(first);
    ConfLine line;
    line.where = where;
    std::vector<std::string> words;
    if (Status s = Tokens(logical, where, &line.pairs, &words); !s.ok()) return s;
    logical.clear();
    if (!words.empty() && IEquals(words[0], "include") && line.pairs.empty() && words.size() == 2) {
      std::string file = words[1];
      if (file.size() >= 2 && file.front() == '"' && file.back() == '"')
        file = file.substr(1, file.size() - 2);
      const std::string full = fs::path(file).is_absolute() ? file : base_dir + "/" + file;
      std::error_code fec;
      if (fs::exists(full, fec) && !fs::is_regular_file(full, fec))
        return Status::Error(StatusCode::kInvalidArgument,
                             where + ": Include " + file + ": not a regular file");
      if (Status s = Lex(full, base_dir, stack, out); !s.ok())
        return Status::Error(s.code(), where + ": Include " + file + ": " + s.message());
      continue;
    }
    if (!words.empty())
      return Status::Error(StatusCode::kInvalidArgument,
                           where + ": expected Key=Value pairs (or Include FILE), got '" +
                               words[0].substr(0, 100) + "'");
    out->push_back(std::move(line));
  }
  stack->pop_back();
  return Status::Ok();
}

}  // namespace

const std::string* ConfLine::Find(std::string_view key) const {
  for (const ConfPair& p : pairs)
    if (IEquals(p.key, key)) return &p.value;
  return nullptr;
}

Result<std::vector<ConfLine>> LexConf(const std::string& path, const std::string& base_dir) {
  std::vector<std::string> stack;
  std::vector<ConfLine> lines;
  if (Status s = Lex(path, base_dir, &stack, &lines); !s.ok()) return s;
  return lines;
}

Status ConfInt(const ConfLine& line, const ConfPair& p, int64_t lo, int64_t hi, int64_t* out) {
  const auto v = Digits(p.value, hi);
  if (!v || *v < lo)
    return AtField(
        line.where, p.key,
        Expected("an integer " + std::to_string(lo) + ".." + std::to_string(hi), p.value));
  *out = *v;
  return Status::Ok();
}

}  // namespace utilsim::traces::internal
