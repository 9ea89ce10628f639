#include "tests/api/secret_watch.h"

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>

namespace agentrt::test {
namespace {

// Shorter secrets appear in ordinary text ("k", "x"): tests use them for bad input only.
constexpr size_t kShortest = 6;

std::mutex& secrets_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::set<std::string>& secrets() {
  static std::set<std::string> known;
  return known;
}

std::string referenced_value(const std::string& source, const std::string& value,
                             const Environment& env) {
  if (source == "inline") return value;
  if (source == "env") {
    if (auto it = env.find(value); it != env.end()) return it->second;
    const char* own = std::getenv(value.c_str());
    return own != nullptr ? own : "";
  }
  if (source == "file") {
    std::ifstream in(value);
    std::string line;
    std::getline(in, line);
    return line;
  }
  return "";
}

}  // namespace

void remember_secret(const std::string& secret) {
  if (secret.size() < kShortest) return;
  std::lock_guard lock(secrets_mutex());
  secrets().insert(secret);
}

void remember_secret_refs(const nlohmann::json& document, const Environment& env) {
  if (document.is_object()) {
    const auto source = document.find("source");
    const auto value = document.find("value");
    if (source != document.end() && source->is_string() && value != document.end() &&
        value->is_string())
      remember_secret(referenced_value(*source, *value, env));
  }
  if (document.is_structured())
    for (const auto& item : document) remember_secret_refs(item, env);
}

std::string leaked_secret(const std::string& text) {
  std::lock_guard lock(secrets_mutex());
  for (const std::string& secret : secrets())
    if (text.find(secret) != std::string::npos) return secret;
  return "";
}

}  // namespace agentrt::test
