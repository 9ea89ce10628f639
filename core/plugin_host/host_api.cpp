#include "core/plugin_host/host_api.h"

#include "text/json_reader.h"

#include "core/log/logger.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace agentrt::core {
namespace {

// The opaque agentrt_host_t handle of the C header is the HostContext itself.
HostContext* context_of(agentrt_host_t* host) {
  return reinterpret_cast<HostContext*>(host);
}

LogLevel level_from_abi(uint32_t level) {
  if (level >= AGENTRT_LOG_ERROR) return LogLevel::error;
  if (level >= AGENTRT_LOG_WARN) return LogLevel::warn;
  if (level >= AGENTRT_LOG_INFO) return LogLevel::info;
  return LogLevel::debug;
}

void host_log(agentrt_host_t* host, uint32_t level, const char* message, size_t len) noexcept {
  try {
    LogLevel lvl = level_from_abi(level);
    if (!Logger::enabled(lvl)) return;
    Logger::write(lvl, std::string_view(message ? message : "", message ? len : 0),
                  {{"plugin", context_of(host)->plugin_name}});
  } catch (...) {  // logging must never take a plugin call down
  }
}

int32_t fail(agentrt_error_t* error, int32_t code, const std::string& message) noexcept {
  if (error) {
    error->code = code;
    std::snprintf(error->message, sizeof error->message, "%s", message.c_str());
  }
  return code;
}

// Why a reference did not resolve names a variable or a path of the server's, which the
// plugin's error took to any client of a run: the log says it, the
// plugin gets a message that points there.
int32_t secret_failure(agentrt_host_t* host, agentrt_error_t* error, int32_t code,
                       const char* why) noexcept {
  try {
    log_warn("a secret reference did not resolve",
             {{"plugin", context_of(host)->plugin_name}, {"reason", why}});
  } catch (...) {
  }
  return fail(error, code, "the API key reference did not resolve (agentd's log says why)");
}

int32_t host_secret_lookup(agentrt_host_t* host, const char* ref_json, size_t len,
                           agentrt_receive_fn receive, void* user,
                           agentrt_error_t* error) noexcept {
  try {
    if (!receive) return fail(error, AGENTRT_ERR_INVALID_ARGUMENT, "no receive callback");
    std::string secret = resolve_secret(std::string_view(ref_json ? ref_json : "", len),
                                        context_of(host)->fence.get());
    receive(user, secret.data(), secret.size());
    return AGENTRT_OK;
  } catch (const std::invalid_argument& e) {
    return secret_failure(host, error, AGENTRT_ERR_INVALID_ARGUMENT, e.what());
  } catch (const std::exception& e) {
    return secret_failure(host, error, AGENTRT_ERR_NOT_FOUND, e.what());
  }
}

// ABI 1.3's member stays for plugins built against it, and offers no VFS: agentd's
// stores, and so its plugins', open with SQLite's default.
const char* host_sqlite_vfs(agentrt_host_t*) noexcept {
  return nullptr;
}

int32_t host_output_write(agentrt_output_t* out, const char* data, size_t len) noexcept {
  if (out == nullptr || (data == nullptr && len > 0)) return AGENTRT_ERR_INVALID_ARGUMENT;
  if (out->data.size() + len > out->max_bytes) return AGENTRT_ERR_INVALID_ARGUMENT;
  try {
    out->data.append(data, len);
    return AGENTRT_OK;
  } catch (...) {
    return AGENTRT_ERR_INVALID_ARGUMENT;
  }
}

// An API key has no blanks at its ends: a file written by `echo key > file` ends in a
// newline, and one pasted into an editor may gain spaces, which were sent as part of
// the key. Nothing left is an error, where it once sent no key at all.
std::string trimmed_secret(std::string secret, const std::string& where) {
  constexpr const char* kBlanks = " \t\r\n";
  const size_t first = secret.find_first_not_of(kBlanks);
  if (first == std::string::npos) throw std::runtime_error(where + " is empty");
  secret.erase(secret.find_last_not_of(kBlanks) + 1);
  secret.erase(0, first);
  // A key is one word of visible characters. A file of several lines (the wrong file,
  // /etc/shadow) or of NUL-separated ones (/proc/self/environ) failed later, as a header
  // holding a line break, and so told any client of a run that the server's file had
  // that shape: now it fails here, and only the log says why.
  for (const char c : secret)
    if (static_cast<unsigned char>(c) <= ' ' || c == '\x7f')
      throw std::runtime_error(where + " holds a blank or a control character inside the key");
  return secret;
}

std::string read_secret_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read secret file '" + path + "'");
  std::ostringstream content;
  content << in.rdbuf();
  return trimmed_secret(content.str(), "secret file '" + path + "'");
}

}  // namespace

HostContext::HostContext(std::string name, std::shared_ptr<const SecretFence> secret_fence)
    : plugin_name(std::move(name)), fence(std::move(secret_fence)) {
  api.struct_size = sizeof(agentrt_host_api_t);
  api.abi_major = AGENTRT_ABI_MAJOR;
  api.abi_minor = AGENTRT_ABI_MINOR;
  api.host = reinterpret_cast<agentrt_host_t*>(this);
  api.log = &host_log;
  api.secret_lookup = &host_secret_lookup;
  api.output_write = &host_output_write;
  api.sqlite_vfs = &host_sqlite_vfs;
}

namespace {

struct SecretRef {
  std::string source, value;
};

// Read on every provider call, with the hot paths' reader.
SecretRef read_ref(std::string_view ref_json) {
  text::JsonReader reader;
  simdjson::dom::element ref;
  std::string_view source, value;
  if (reader.parse(ref_json).get(ref) != simdjson::SUCCESS ||
      text::member(ref, "source").get(source) != simdjson::SUCCESS ||
      text::member(ref, "value").get(value) != simdjson::SUCCESS)
    throw std::invalid_argument("a secret reference is {\"source\":string,\"value\":string}");
  return SecretRef{std::string(source), std::string(value)};
}

}  // namespace

std::string resolve_secret(std::string_view ref_json, const SecretFence* fence) {
  const SecretRef ref = read_ref(ref_json);
  const std::string& source = ref.source;
  const std::string& value = ref.value;
  if (source == "inline") return value;
  if (fence != nullptr && source == "env") {
    if (auto refusal = fence_refusal(*fence, source, value))
      throw std::runtime_error("environment variable '" + value + "' refused: " + *refusal);
  }
  if (fence != nullptr && source == "file")
    return trimmed_secret(read_fenced_file(*fence, value), "secret file '" + value + "'");
  if (source == "env") {
    const char* secret = std::getenv(value.c_str());
    if (secret == nullptr)
      throw std::runtime_error("environment variable '" + value + "' is not set");
    return trimmed_secret(secret, "environment variable '" + value + "'");
  }
  if (source == "file") return read_secret_file(value);
  // Not quoted: an operator who swapped source and value put the secret there.
  throw std::invalid_argument("a secret reference's source is not one of inline, env, file");
}

agentrt_error_t make_error_struct() {
  agentrt_error_t error{};
  error.struct_size = sizeof error;
  return error;
}

std::string error_message(const agentrt_error_t& error, const char* fallback) {
  const size_t length = strnlen(error.message, sizeof error.message);
  if (length == 0) return fallback;
  return std::string(error.message, length);
}

}  // namespace agentrt::core
