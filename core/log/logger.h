// Structured logging: one JSON object per line on stderr, written with a single
// write() so lines from different threads never interleave. Callers pass fields as
// JSON; no caller may pass a secret (tokens, API keys), and the logger has no way to
// tell, so the rule lives with each call site and is checked by tests that grep logs.
#pragma once

#include "core/log/log_fields.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::core {

enum class LogLevel { debug = 10, info = 20, warn = 30, error = 40 };

std::optional<LogLevel> parse_log_level(std::string_view name);
const char* log_level_name(LogLevel level);

class Logger {
 public:
  // Where finished lines go; defaults to stderr. Tests replace it to capture lines.
  using LineSink = std::function<void(std::string_view line)>;

  static void set_level(LogLevel level);
  static bool enabled(LogLevel level);
  static void set_sink(LineSink sink);

  // Writes {"time","level","msg",...fields}; `fields` must be an object or null.
  static void write(LogLevel level, std::string_view message,
                    const nlohmann::json& fields = nullptr);
  // Whatever the level: for the line a supervisor waits for ("listening", with the port
  // the kernel chose), which at warn or error would otherwise never be written.
  static void write_whatever_level(LogLevel level, std::string_view message,
                                   const nlohmann::json& fields);
  // The same with fields already written as JSON text, for the lines of every request.
  static void write(LogLevel level, std::string_view message, const LogFields& fields);
};

inline void log_debug(std::string_view m, const nlohmann::json& f = nullptr) {
  if (Logger::enabled(LogLevel::debug)) Logger::write(LogLevel::debug, m, f);
}
inline void log_info(std::string_view m, const nlohmann::json& f = nullptr) {
  if (Logger::enabled(LogLevel::info)) Logger::write(LogLevel::info, m, f);
}
inline void log_info(std::string_view m, const LogFields& f) {
  if (Logger::enabled(LogLevel::info)) Logger::write(LogLevel::info, m, f);
}
inline void log_warn(std::string_view m, const nlohmann::json& f = nullptr) {
  if (Logger::enabled(LogLevel::warn)) Logger::write(LogLevel::warn, m, f);
}
inline void log_error(std::string_view m, const nlohmann::json& f = nullptr) {
  if (Logger::enabled(LogLevel::error)) Logger::write(LogLevel::error, m, f);
}

// ISO 8601 UTC with milliseconds, e.g. 2026-11-21T23:31:49.123Z.
std::string utc_timestamp_now();

}  // namespace agentrt::core
