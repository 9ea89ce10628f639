#include "core/store/data_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace agentrt::core {
namespace {

// The pid the holder wrote, or 0: the holder may not have written it yet.
pid_t read_holder(int fd) {
  char text[24] = {};
  const ssize_t got = ::pread(fd, text, sizeof text - 1, 0);
  pid_t pid = 0;
  for (ssize_t i = 0; i < got && text[i] >= '0' && text[i] <= '9'; ++i)
    pid = pid * 10 + (text[i] - '0');
  return pid;
}

// For the operator who finds the file: which process held the directory last. Not
// needed for the lock itself, so a failure here is not one.
void write_holder(int fd) {
  const std::string text = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] const ssize_t written = ::pwrite(fd, text.data(), text.size(), 0);
  }
}

std::string in_use_message(const std::string& dir, pid_t holder) {
  std::string message = "data directory '" + dir + "' is in use by another agentd";
  if (holder > 0) message += " (pid " + std::to_string(holder) + ")";
  return message;
}

}  // namespace

// Existing directories keep their mode: the operator chose it. Those we make are 0700,
// since the data dir holds the admin token and every conversation, and umask alone
// would usually leave it world-readable.
void create_private_dirs(const std::string& dir) {
  if (dir.empty()) throw StoreError("data directory is empty");
  for (size_t pos = 0; pos != std::string::npos;) {
    pos = dir.find('/', pos + 1);
    const std::string prefix = dir.substr(0, pos);
    struct stat st {};
    if (::stat(prefix.c_str(), &st) == 0) continue;
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
      throw StoreError("cannot create data directory '" + prefix + "': " + std::strerror(errno));
    }
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw StoreError("data directory '" + dir + "' is not a directory");
  }
}

std::optional<std::string> data_dir_problem(const std::string& dir) {
  if (dir.empty()) return "data_dir is empty";
  std::error_code error;
  std::filesystem::path target = std::filesystem::absolute(dir, error).lexically_normal();
  if (!target.has_filename() && target.has_relative_path()) target = target.parent_path();
  std::filesystem::path path = target;
  while (!std::filesystem::exists(path, error) && path.has_relative_path())
    path = path.parent_path();
  const bool itself = path == target;
  const std::string what = itself
                               ? "data_dir '" + dir + "'"
                               : "data_dir '" + dir + "' cannot be made: '" + path.string() + "'";
  if (!std::filesystem::is_directory(path, error)) return what + " is not a directory";
  if (::access(path.c_str(), W_OK | X_OK) != 0)
    return what + " is not writable by this user (uid " + std::to_string(::getuid()) + ")";
  return std::nullopt;
}

std::string data_dir_file(const std::string& dir, const char* name) {
  return dir + (!dir.empty() && dir.back() == '/' ? "" : "/") + name;
}

DataDirInUse::DataDirInUse(const std::string& dir, pid_t holder)
    : StoreError(in_use_message(dir, holder)), holder_(holder) {}

// The directory is locked as well as the file: deleting agentd.lock, a common reflex
// with a "stale" lock file, once let a second agentd lock a new file beside the first
// and serve the same stores. The file names the holder.
DataDirLock::DataDirLock(const std::string& dir) {
  create_private_dirs(dir);
  path_ = data_dir_file(dir, "agentd.lock");
  dir_fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) throw StoreError("cannot open " + dir + ": " + std::strerror(errno));
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    const int error = errno;
    ::close(dir_fd_);
    throw StoreError("cannot open " + path_ + ": " + std::strerror(error));
  }
  for (const int fd : {dir_fd_, fd_}) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) continue;
    const int error = errno;
    const pid_t holder = read_holder(fd_);
    ::close(fd_);
    ::close(dir_fd_);
    if (error == EWOULDBLOCK) throw DataDirInUse(dir, holder);
    throw StoreError("cannot lock " + (fd == fd_ ? path_ : dir) + ": " + std::strerror(error));
  }
  write_holder(fd_);
}

DataDirLock::~DataDirLock() {
  ::close(fd_);
  ::close(dir_fd_);
}

}  // namespace agentrt::core
