// The data directory: made private on first use, and owned by one serving engine at a
// time. Two agentd processes on one directory would each trust caches (verified
// tokens, session histories, memory totals) that the other's writes make stale; SQLite
// keeps the files consistent, not those answers.
#pragma once

#include "core/store/sqlite.h"

#include <sys/types.h>

#include <optional>
#include <string>

namespace agentrt::core {

// mkdir -p, every directory it creates 0700. StoreError when `dir` is empty, cannot be
// made, or is not a directory.
void create_private_dirs(const std::string& dir);
// Why this user could not make or use `dir` as a data dir, or nothing; for check-config,
// which must not touch the dir itself: not a directory, not writable, or a missing
// path whose nearest existing ancestor is not a writable directory.
std::optional<std::string> data_dir_problem(const std::string& dir);
// `name` inside `dir`, with one slash between them however `dir` ends.
std::string data_dir_file(const std::string& dir, const char* name);

// Another process holds the data directory's lock.
class DataDirInUse : public StoreError {
 public:
  DataDirInUse(const std::string& dir, pid_t holder);
  pid_t holder() const { return holder_; }  // 0 when its lock file names none

 private:
  pid_t holder_;
};

// An exclusive flock(2) on <dir>/agentd.lock and on <dir> itself, held for the object's
// life. The kernel
// drops it when the process ends, however it ends, so a crash leaves no stale lock; the
// file stays and names the last holder's pid. flock, not fcntl locks: those belong to
// the process and any close() of the file by any thread would drop them.
class DataDirLock {
 public:
  // Creates `dir` as create_private_dirs does. DataDirInUse when it is held elsewhere,
  // including by another DataDirLock in this process; StoreError when it cannot be
  // taken for another reason.
  explicit DataDirLock(const std::string& dir);
  ~DataDirLock();
  DataDirLock(const DataDirLock&) = delete;
  DataDirLock& operator=(const DataDirLock&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  int dir_fd_ = -1;
};

}  // namespace agentrt::core
