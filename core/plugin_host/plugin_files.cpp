#include "core/plugin_host/plugin_files.h"

#include "core/domain/real_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace agentrt::core {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBundledPrefix = "agentrt-";

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// Who owns `info` and who may write it; `sticky_passes` for the directories above a
// plugin dir.
std::optional<std::string> owner_or_mode_refusal(const struct stat& info, const std::string& what,
                                                 bool sticky_passes) {
  const uid_t self = ::geteuid();
  if (info.st_uid != 0 && info.st_uid != self)
    return what + " is owned by uid " + std::to_string(info.st_uid) +
           ", neither root nor agentd's user (uid " + std::to_string(self) + ")";
  const bool writable = (info.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  if (writable && !(sticky_passes && (info.st_mode & S_ISVTX)))
    return what + " is writable by " + ((info.st_mode & S_IWOTH) ? "others" : "its group") +
           " (mode " + octal_mode(info.st_mode) + ")";
  return std::nullopt;
}

std::string stem_of(const std::string& file_name) {
  const std::string name = fs::path(file_name).filename().string();
  return name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0
             ? name.substr(0, name.size() - 3)
             : std::string();
}

}  // namespace

std::optional<std::string> plugin_dir_refusal(const std::string& dir) {
  const auto real = real_path(dir);
  if (!real) return "plugin directory '" + dir + "' cannot be resolved: " + std::strerror(errno);
  struct stat info {};
  if (::stat(real->c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return "plugin directory '" + dir + "' is not a directory";
  if (auto refusal = owner_or_mode_refusal(info, "plugin directory '" + dir + "'", false))
    return refusal;
  for (fs::path above = fs::path(*real).parent_path();; above = above.parent_path()) {
    if (::stat(above.c_str(), &info) != 0)
      return "'" + above.string() + "', above plugin directory '" + dir + "', cannot be read";
    if (auto refusal = owner_or_mode_refusal(
            info, "'" + above.string() + "', above plugin directory '" + dir + "',", true))
      return refusal;
    if (above == above.parent_path()) break;
  }
  return std::nullopt;
}

std::optional<std::string> plugin_file_refusal(const std::string& path) {
  const auto real = real_path(path);
  if (!real) return "plugin file '" + path + "' cannot be resolved: " + std::strerror(errno);
  struct stat info {};
  if (::stat(real->c_str(), &info) != 0 || !S_ISREG(info.st_mode))
    return "plugin file '" + path + "' is not a regular file";
  if (auto refusal = owner_or_mode_refusal(info, "plugin file '" + path + "'", false))
    return refusal;
  return plugin_dir_refusal(fs::path(*real).parent_path().string());
}

std::string plugin_name_of_file(const std::string& file_name) {
  const std::string stem = stem_of(file_name);
  const size_t prefix = std::strlen(kBundledPrefix);
  if (stem.size() > prefix && stem.compare(0, prefix, kBundledPrefix) == 0)
    return stem.substr(prefix);
  return stem;
}

std::string plugin_named_by_file(const std::string& file_name, const std::set<std::string>& names) {
  const std::string stem = stem_of(file_name);
  if (stem.empty()) return {};
  if (names.count(stem)) return stem;
  const std::string short_name = plugin_name_of_file(file_name);
  return names.count(short_name) ? short_name : std::string();
}

}  // namespace agentrt::core
