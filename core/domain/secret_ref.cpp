#include "core/domain/secret_ref.h"

#include "core/domain/real_path.h"

#include "core/domain/json_fields.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace agentrt::core {

nlohmann::json parse_secret_ref(const nlohmann::json& ref, const std::string& field) {
  const std::string where = field + ".";
  require_object(ref, "field '" + field + "'");
  reject_unknown_fields(ref, {"source", "value"}, where);
  std::string source = required_string(ref, "source", where);
  if (source != "inline" && source != "env" && source != "file")
    throw invalid("field '" + where + "source' must be one of inline, env, file");
  std::string value = required_string(ref, "value", where);
  if (value.empty()) throw invalid("field '" + where + "value' must not be empty");
  return {{"source", source}, {"value", value}};
}

nlohmann::json masked_secret_ref(const nlohmann::json& ref) {
  if (ref.is_null()) return ref;
  if (!ref.is_object()) return "***";
  nlohmann::json shown = ref;
  const std::string* source = string_field(ref, "source");
  const bool named = source && (*source == "env" || *source == "file");
  if (!named && shown.contains("value")) shown["value"] = "***";
  return shown;
}

bool url_has_user_info(const std::string& url) {
  const size_t start = url.find("://");
  if (start == std::string::npos) return false;
  const size_t end = url.find_first_of("/?#", start + 3);
  return url.substr(start + 3, end == std::string::npos ? end : end - start - 3).find('@') !=
         std::string::npos;
}

namespace {

namespace fs = std::filesystem;

// Whether `path` lies below `dir` (both without trailing slashes but for "/").
bool below(const std::string& path, const std::string& dir) {
  if (dir == "/") return path.size() > 1 && path[0] == '/';
  return path.size() > dir.size() + 1 && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

std::string fence_words(const SecretFence& fence) {
  return "the secrets directory '" + fence.dir + "' (secrets.dir)";
}

// A file reference's place, checked: on success `real` is the file's real path and
// `real_dir` the fence's.
std::optional<std::string> file_refusal(const SecretFence& fence, const std::string& value,
                                        std::string& real, std::string& real_dir) {
  if (fence.dir.empty())
    return std::string("a file reference is not allowed here: no secrets directory is set");
  if (value.find('\0') != std::string::npos)
    return std::string("a file reference must not hold a NUL character");
  const fs::path named(value);
  for (const fs::path& part : named)
    if (part == "..") return std::string("a file reference must not hold '..'");
  auto dir = real_path(fence.dir);
  if (!dir) return fence_words(fence) + " does not exist or cannot be searched";
  real_dir = *dir;
  fs::path normal_dir = fs::path(fence.dir).lexically_normal();
  if (!normal_dir.has_filename() && normal_dir != normal_dir.root_path())
    normal_dir = normal_dir.parent_path();
  const std::string lexical_dir = normal_dir.string();
  const std::string candidate =
      (named.is_absolute() ? named : fs::path(fence.dir) / named).lexically_normal().string();
  if (!below(candidate, lexical_dir) && !below(candidate, real_dir))
    return "a file reference must name a file inside " + fence_words(fence);
  auto resolved = real_path(candidate);
  if (!resolved) {
    if (errno == ENOENT || errno == ENOTDIR)
      return "a file reference must name a file that exists inside " + fence_words(fence);
    return "a file reference inside " + fence_words(fence) +
           " cannot be resolved: " + std::strerror(errno);
  }
  if (!below(*resolved, real_dir))
    return "a file reference must not lead (through a symbolic link) outside " + fence_words(fence);
  struct stat info {};
  if (::stat(resolved->c_str(), &info) != 0 || !S_ISREG(info.st_mode))
    return "a file reference must name a regular file inside " + fence_words(fence);
  real = *resolved;
  return std::nullopt;
}

// The path of the file `fd` has open, as the kernel knows it.
std::optional<std::string> opened_path(int fd) {
  char buffer[PATH_MAX + 1];
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = ::readlink(link.c_str(), buffer, PATH_MAX);
  if (n <= 0) return std::nullopt;
  return std::string(buffer, static_cast<size_t>(n));
}

struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

}  // namespace

std::optional<std::string> fence_refusal(const SecretFence& fence, const std::string& source,
                                         const std::string& value) {
  if (source == "env") {
    const std::string& prefix = fence.env_prefix;
    if (prefix.empty() || value.size() <= prefix.size() ||
        value.compare(0, prefix.size(), prefix) != 0)
      return "an env reference must name a variable whose name starts with '" + prefix +
             "' (secrets.env_prefix)";
    return std::nullopt;
  }
  if (source == "file") {
    std::string real, real_dir;
    return file_refusal(fence, value, real, real_dir);
  }
  return std::nullopt;  // inline: the admin gave the key itself
}

std::optional<std::string> fence_refusal(const SecretFence& fence, const nlohmann::json& ref) {
  if (!ref.is_object()) return std::nullopt;
  const std::string* source = string_field(ref, "source");
  const std::string* value = string_field(ref, "value");
  if (!source || !value) return std::nullopt;
  return fence_refusal(fence, *source, *value);
}

std::string read_fenced_file(const SecretFence& fence, const std::string& value) {
  std::string real, real_dir;
  if (auto refusal = file_refusal(fence, value, real, real_dir))
    throw std::runtime_error("file reference '" + value + "' refused: " + *refusal);
  // The real path holds no link; one put in its place now is not followed, and the
  // directories above it are checked through the descriptor below.
  const int fd = ::open(real.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
  if (fd < 0) throw std::runtime_error("cannot read secret file '" + value + "'");
  FdCloser closer{fd};
  struct stat info {};
  const auto opened = opened_path(fd);
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || !opened || !below(*opened, real_dir))
    throw std::runtime_error("file reference '" + value + "' refused: the file opened is not " +
                             "a regular file inside " + fence_words(fence));
  std::string content;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error("cannot read secret file '" + value + "'");
    if (n == 0) break;
    content.append(buffer, static_cast<size_t>(n));
    if (content.size() > kMaxSecretFileBytes)
      throw std::runtime_error("secret file '" + value +
                               "' is larger than 64 KiB, which no key is");
  }
  return content;
}

}  // namespace agentrt::core
