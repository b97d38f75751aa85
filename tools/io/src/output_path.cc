#include "utilsim/io/output_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "utilsim/traces/temp_file.h"

namespace utilsim {
namespace {

namespace fs = std::filesystem;

std::string Prefix(const OutputGuard& g) { return g.option.empty() ? "" : g.option + ": "; }

// The absolute, normalised name with every existing link resolved.
fs::path Resolved(const std::string& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(p, ec);
  if (ec) r = fs::absolute(p, ec).lexically_normal();
  return r;
}

// The same file: by device and inode when both exist (links of either kind
// included), else by resolved name.
bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  return Resolved(a) == Resolved(b);
}

// `child` lies below `dir` (both resolved; `child` != `dir`).
bool Inside(const fs::path& child, const fs::path& dir) {
  auto d = dir.begin(), c = child.begin();
  for (; d != dir.end() && c != child.end(); ++d, ++c) {
    if (d->empty()) break;  // a trailing separator
    if (*d != *c) return false;
  }
  return (d == dir.end() || d->empty()) && c != child.end();
}

std::string FolderOf(const std::string& path) {
  const fs::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : ".";
}

// "" when `dir` is a writable folder, else why not.
std::string FolderProblem(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return "directory " + dir + " does not exist";
    return "directory " + dir + ": " + std::strerror(errno);
  }
  if (!S_ISDIR(st.st_mode)) return dir + " is not a directory";
  if (::access(dir.c_str(), W_OK) != 0) return "directory " + dir + " is not writable";
  return "";
}

}  // namespace

Status CheckOutput(const std::string& path, const OutputGuard& guard) {
  if (path.empty()) return Status::Ok();
  if (path == "-") {
    if (guard.allow_stdout) return Status::Ok();
    return Status::Error(
        Prefix(guard) + "-: " + (guard.format.empty() ? std::string("this output") : guard.format) +
        " cannot be written to standard output; give a file path");
  }
  const std::string pre = Prefix(guard) + path + ": ";
  struct stat lst, st;
  const bool there = ::lstat(path.c_str(), &lst) == 0;
  const bool link = there && S_ISLNK(lst.st_mode);
  const bool reaches = ::stat(path.c_str(), &st) == 0;  // what a link points to exists
  for (const NamedPath& in : guard.inputs) {
    if (in.path.empty()) continue;
    struct stat ist;
    if (::stat(in.path.c_str(), &ist) == 0 && S_ISDIR(ist.st_mode)) {
      if (reaches && !S_ISDIR(st.st_mode) && Inside(Resolved(path), Resolved(in.path)))
        return Status::Error(pre + "is inside " + in.option + " " + in.path +
                             "; refusing to replace an input");
      continue;
    }
    if (SameFile(path, in.path))
      return Status::Error(pre + (link ? "is a symbolic link to " : "is the same file as ") +
                           in.option + " " + in.path + "; refusing to replace an input");
  }
  if (link) {
    std::error_code ec;
    const fs::path target = fs::read_symlink(path, ec);
    return Status::Error(pre + "is a symbolic link (to " + (ec ? "?" : target.string()) +
                         "); refusing to replace it (give the target's path to write there)");
  }
  if (Status s = traces::CheckReplaceable(path, Prefix(guard)); !s.ok()) return s;
  if (std::string why = FolderProblem(FolderOf(path)); !why.empty())
    return Status::Error(pre + why);
  return Status::Ok();
}

Status CheckOutputFolder(const std::string& dir, const OutputGuard& guard) {
  if (dir.empty()) return Status::Ok();
  if (dir == "-") return Status::Error(Prefix(guard) + "-: expected a folder, not standard output");
  const std::string pre = Prefix(guard) + dir + ": ";
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      const std::string kind = S_ISREG(st.st_mode) ? "a regular file" : traces::NonRegularKind(dir);
      return Status::Error(pre + "is " + kind + " (not a folder)");
    }
    if (::access(dir.c_str(), W_OK) != 0)
      return Status::Error(pre + "directory " + dir + " is not writable");
    return Status::Ok();
  }
  if (traces::NonRegularKind(dir) == "a symbolic link")
    return Status::Error(pre + "is a symbolic link to a missing folder; refusing to follow it");
  // Missing: create_directories will make it below its nearest existing
  // ancestor.
  fs::path a = fs::path(dir).lexically_normal();
  struct stat ast;
  do {
    a = a.has_parent_path() && a.parent_path() != a ? a.parent_path() : fs::path(".");
  } while (::stat(a.c_str(), &ast) != 0 && a != fs::path("."));
  if (std::string why = FolderProblem(a.string()); !why.empty())
    return Status::Error(pre + "cannot be created: " + why);
  return Status::Ok();
}

Status CheckDistinctOutputs(const std::vector<NamedPath>& outputs) {
  for (size_t j = 0; j < outputs.size(); ++j) {
    const std::string& b = outputs[j].path;
    if (b.empty()) continue;
    for (size_t i = 0; i < j; ++i) {
      const std::string& a = outputs[i].path;
      if (a.empty()) continue;
      const bool same = (a == "-" || b == "-") ? a == b : SameFile(a, b);
      if (same)
        return Status::Error(outputs[j].option + ": " + b + ": is also " + outputs[i].option +
                             "; give each output its own path");
    }
  }
  return Status::Ok();
}

}  // namespace utilsim
