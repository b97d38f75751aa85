// Temporary files of writers that replace a file atomically (write a
// temporary file, rename it over the target). Every writer of utilsim (the
// trace writers here, the results database, CSV export and HTML report of the
// tools) goes through TempFile, so they all behave alike (docs/results.md,
// "How outputs are written"):
//  - the temporary file of `<dir>/<name>` is `<dir>/.<name>.utilsim-tmp-<pid>`:
//    in the same folder, so the rename is atomic; hidden; unique per process;
//  - it is created exclusively (O_CREAT | O_EXCL | O_NOFOLLOW): never through
//    a link, never into a file someone else made;
//  - while it exists its path is registered, and SIGINT, SIGTERM and SIGHUP
//    remove it before the process dies of the signal (only for signals whose
//    disposition is the default when it is created: an ignored or handled
//    signal stays as the program set it);
//  - before one is created, the temporary files of the same target left by
//    processes that no longer run (kill -9, a crash, power loss) are removed;
//  - Commit() refuses to rename over anything but a regular file (a link,
//    FIFO, device, socket or folder stays as it is);
//  - the one fsync rule: Commit() fsync()s the file before the rename (so the
//    name never points at data still only in the page cache) and the folder
//    after it (so the rename itself survives a power loss). Every writer
//    commits this way; there is no unsynchronised commit.
//
// AtomicFile (text_writer.h) is TempFile behind a buffered stream; it commits
// through TempFile::Commit, which is the only rename-into-place path.
//
// Thread-safety: distinct TempFile objects may be used from any threads; one
// writer per target path at a time.
#pragma once

#include <string>

#include "utilsim/engine/status.h"

namespace utilsim::traces {

// `<dir>/.<name>.utilsim-tmp-<pid of this process>` for `path` = `<dir>/<name>`
// (no `<dir>/` when `path` has no folder).
std::string TempPathFor(const std::string& path);

// Removes the files `<dir>/.<name>.utilsim-tmp-<pid>` of `path` whose pid is
// not a running process (kill(pid, 0) fails with ESRCH; a pid reused by a live
// process keeps its file). Never touches this process's own name. Returns how
// many were removed; errors (an unreadable folder) remove nothing.
int RemoveStaleTemps(const std::string& path);

// What `path` is when it is there and is not a regular file, without
// following a final symbolic link: "a symbolic link", "a directory", "a FIFO",
// "a character device", "a block device", "a socket", "a special file".
// "" when it is a regular file or does not exist.
std::string NonRegularKind(const std::string& path);

// "<path>: is <kind> (not a regular file); refusing to replace it", with
// `prefix` (e.g. "--out: ") in front; OK for a regular or missing file.
Status CheckReplaceable(const std::string& path, const std::string& prefix = "");

// One temporary file for one target. Not copyable or movable.
class TempFile {
 public:
  TempFile() = default;
  ~TempFile();  // removes the file unless committed
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  // Removes stale temporaries of `target` (RemoveStaleTemps), then creates
  // TempPathFor(target), removing a file of this process's own name first.
  // On success fd() is open for writing. Call once.
  // Error: "<target>: cannot create the temporary file <tmp>: <reason>".
  Status Create(const std::string& target);

  // The open descriptor (-1 once taken or closed).
  int fd() const { return fd_; }
  // Hands the descriptor to the caller (e.g. to fdopen); the file itself
  // stays owned (removed or committed) by this object.
  int TakeFd();
  // Closes the descriptor if still held (a caller that writes through a path,
  // like SQLite, closes it first).
  void CloseFd();

  // fsync()s the file, checks CheckReplaceable(target), renames the file over
  // the target and fsync()s the target's folder. On a failure before the
  // rename the file is removed and the target left as it was. Errors:
  // "<target>: cannot flush to disk: ...", "<target>: cannot rename into
  // place: ...", CheckReplaceable's, and, after the rename (the target is
  // then already replaced), "<target>: cannot flush the directory <dir> to
  // disk: ..." (a file system that cannot sync folders, EINVAL, is not an
  // error).
  Status Commit();
  // Removes the file now (as the destructor would).
  void Discard();

  const std::string& target() const { return target_; }
  const std::string& path() const { return tmp_; }

 private:
  std::string target_, tmp_;
  int fd_ = -1;
  int slot_ = -1;      // registration for the signal handler; -1 = none
  bool live_ = false;  // the file exists and is ours to remove
};

}  // namespace utilsim::traces
