// Credential references as the admin API takes them (a shared provider's api_key_ref, a
// tool server's header values): {"source":"inline"|"env"|"file","value"}, resolved by
// the host each time a plugin asks (core/plugin_host/host_api.h), never shown whole.
// References the API stores resolve only inside their fence (SecretFence); the config
// file's resolve wherever they point.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace agentrt::core {

// The reference `ref`, checked: an object with a `source` of inline, env or file and a
// non-empty string `value`, nothing else. Throws invalid naming `field` and the member
// ("field 'providers[0].api_key_ref.source' must be one of inline, env, file").
nlohmann::json parse_secret_ref(const nlohmann::json& ref, const std::string& field);

// The reference as a response shows it: an inline value reads "***"; an environment
// variable's name or a file's path, which are no secret, as they are. Null stays null;
// anything else that is no reference (a config file's mistake) reads "***" whole.
nlohmann::json masked_secret_ref(const nlohmann::json& ref);

// Whether the URL's authority has user information (user:password@): a credential,
// which a URL is shown and may be logged with, so the API refuses it.
bool url_has_user_info(const std::string& url);

inline constexpr const char* kDefaultSecretEnvPrefix = "AGENTRT_SECRET_";

// Where references written over the API may point (docs/operator-guide.md, "Secrets"):
// a `file` only at a regular file whose real path is inside `dir` (a relative value is
// taken inside it), an `env` only at a variable whose name starts with `env_prefix`.
// Without it an admin could send any file agentd can read, or any variable of its
// environment, to an upstream of their choosing as a key. A fence with no `dir` lets
// no file through.
struct SecretFence {
  std::string dir;  // absolute
  std::string env_prefix = kDefaultSecretEnvPrefix;
};

// Why `fence` refuses the reference, in words naming the rule and never the content, or
// nullopt. A file is checked where it really is: its path, each symbolic link followed,
// must end inside the fence's real directory, and it must exist.
std::optional<std::string> fence_refusal(const SecretFence& fence, const std::string& source,
                                         const std::string& value);

// As fence_refusal, for a checked reference ({"source","value"}); null passes.
std::optional<std::string> fence_refusal(const SecretFence& fence, const nlohmann::json& ref);

// The content of the file `value` names, read only when the file it opens is inside the
// fence: the path is checked, then opened, and the file actually opened is checked again
// (its path as the kernel has it), so that a link swapped between the two cannot lead
// out. Throws std::runtime_error saying why (never the content). At most kMaxSecretFile
// bytes are read.
std::string read_fenced_file(const SecretFence& fence, const std::string& value);

inline constexpr size_t kMaxSecretFileBytes = 64 * 1024;

}  // namespace agentrt::core
