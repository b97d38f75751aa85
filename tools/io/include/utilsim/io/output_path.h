// Output paths: the one check every file a utilsim command writes goes
// through (results database, HTML report, CSV export, converted traces).
// The CLI runs it before the command's (possibly long) work starts, and each
// writer again just before it renames its temporary file into place
// (temporary files: utilsim/traces/temp_file.h). What it refuses and why:
// docs/results.md, "How outputs are written".
//
// Residual race: between the last check and the rename another process can
// still swap the path (TOCTOU); the rename itself never follows a link.
//
// Thread-safety: the functions share no state.
#pragma once

#include <string>
#include <vector>

#include "utilsim/engine/status.h"

namespace utilsim {

// A file or folder a command reads, with the option that named it
// ("--trace", "--cluster", "the results database", ...).
struct NamedPath {
  std::string option;
  std::string path;
};

// What an output is checked against.
struct OutputGuard {
  // Names the output in messages ("--out", "-o", "--csv"); "" = messages
  // start with the path.
  std::string option;
  // Never replaced, neither by name nor through a symbolic or hard link; an
  // existing file inside an input folder is not replaced either.
  std::vector<NamedPath> inputs;
  // "-" means standard output (text formats whose command keeps stdout free).
  bool allow_stdout = false;
  // What the output is, for the message refusing "-" ("a SQLite results
  // database"); "" = "this output".
  std::string format;
};

// Checks that `path` may be replaced by a file this command writes. Errors,
// each "<option>: <path>: ..." (exit status 1 in the CLI):
//  - "-" without guard.allow_stdout: "-: <format> cannot be written to
//    standard output; give a file path";
//  - an input (same device and inode after following links; the same
//    weakly_canonical name when either is missing): "is the same file as
//    <input option> <input>; refusing to replace an input" (" is a symbolic
//    link to ..." when reached through a link);
//  - an existing file inside an input folder: "is inside <input option>
//    <folder>; refusing to replace an input";
//  - a symbolic link (to anything else): "is a symbolic link (to <target>);
//    refusing to replace it (give the target's path to write there)". A link
//    is never followed and never replaced: writing through it could reach a
//    file the user did not name, replacing it would turn it into a file;
//  - there and not a regular file: "is a FIFO (not a regular file); refusing
//    to replace it" (a directory, a character device, ...);
//  - its folder missing, not a folder or not writable: "directory <dir> does
//    not exist", "<dir> is not a directory", "directory <dir> is not
//    writable".
// An empty path is OK (the output was not asked for).
Status CheckOutput(const std::string& path, const OutputGuard& guard);

// Checks a folder that a writer puts its files in (--csv DIR): "-" is
// refused ("expected a folder, not standard output"); an existing `dir` must
// be a folder (a link to one is followed: the files go inside, the link
// stays); a missing one will be created (create_directories), so its nearest
// existing ancestor must be a writable folder ("cannot be created: <a> is not
// a directory" / "directory <a> is not writable"). The files themselves are
// checked with CheckOutput by the caller.
Status CheckOutputFolder(const std::string& dir, const OutputGuard& guard);

// Refuses two outputs of one command that are the same file (by name after
// weakly_canonical, or by inode): "<second option>: <path>: is also <first
// option>; give each output its own path". Empty paths are skipped; "-"
// twice is refused too (both would go to standard output).
Status CheckDistinctOutputs(const std::vector<NamedPath>& outputs);

}  // namespace utilsim
