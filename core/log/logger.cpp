#include "core/log/logger.h"

#include "core/domain/json_text.h"

#include <unistd.h>
#include <cerrno>
#include <ctime>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>

namespace agentrt::core {
namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::info)};

// The sink is swapped rarely (tests) and read on every line, so writers copy the
// shared_ptr under a short lock and call it without holding the lock.
std::mutex g_sink_mutex;
std::shared_ptr<const Logger::LineSink> g_sink;

// One write() per line: the kernel appends it whole, so lines from threads (and from
// other processes sharing the descriptor) do not interleave. Only a short write, which
// a pipe or terminal may do under pressure, makes us write the remainder.
void write_to_stderr(std::string_view line) {
  const char* data = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(STDERR_FILENO, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // nowhere left to report a logging failure
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
}

// Built by hand rather than through a json object so the line starts with time, level
// and msg (nlohmann::json sorts keys) and costs one allocation pass (json_text.h).
std::string line_start(LogLevel level, std::string_view message, size_t fields_size) {
  std::string line;
  line.reserve(96 + message.size() + fields_size);
  line += "{\"time\":\"";
  line += utc_timestamp_now();
  line += "\",\"level\":\"";
  line += log_level_name(level);
  line += "\",\"msg\":";
  // Invalid UTF-8 is replaced rather than thrown on: a log call must never fail its caller.
  append_json_string(line, message);
  return line;
}

std::string format_line(LogLevel level, std::string_view message, const nlohmann::json& fields) {
  std::string line = line_start(level, message, 0);
  if (fields.is_object()) {
    for (const auto& [key, value] : fields.items()) {
      line += ',';
      append_json_string(line, is_line_key(key) ? "fields." + key : key);
      line += ':';
      append_json_value(line, value);
    }
  } else if (!fields.is_null()) {
    line += ",\"fields\":";
    append_json_value(line, fields);
  }
  line += "}\n";
  return line;
}

}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view name) {
  if (name == "debug") return LogLevel::debug;
  if (name == "info") return LogLevel::info;
  if (name == "warn") return LogLevel::warn;
  if (name == "error") return LogLevel::error;
  return std::nullopt;
}

const char* log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::debug:
      return "debug";
    case LogLevel::info:
      return "info";
    case LogLevel::warn:
      return "warn";
    case LogLevel::error:
      return "error";
  }
  return "info";
}

void Logger::set_level(LogLevel level) {
  g_level.store(static_cast<int>(level), std::memory_order_relaxed);
}

bool Logger::enabled(LogLevel level) {
  return static_cast<int>(level) >= g_level.load(std::memory_order_relaxed);
}

// An empty sink restores the default (stderr).
void Logger::set_sink(LineSink sink) {
  std::shared_ptr<const LineSink> next;
  if (sink) next = std::make_shared<const LineSink>(std::move(sink));
  std::lock_guard<std::mutex> lock(g_sink_mutex);
  g_sink = std::move(next);
}

namespace {

void send_line(const std::string& line) {
  std::shared_ptr<const Logger::LineSink> sink;
  {
    std::lock_guard<std::mutex> lock(g_sink_mutex);
    sink = g_sink;
  }
  if (sink) {
    (*sink)(line);
  } else {
    write_to_stderr(line);
  }
}

}  // namespace

// Logging is best effort: losing a line beats failing the request that logged it.
void Logger::write(LogLevel level, std::string_view message, const nlohmann::json& fields) {
  if (enabled(level)) write_whatever_level(level, message, fields);
}

void Logger::write_whatever_level(LogLevel level, std::string_view message,
                                  const nlohmann::json& fields) {
  try {
    send_line(format_line(level, message, fields));
  } catch (...) {
  }
}

void Logger::write(LogLevel level, std::string_view message, const LogFields& fields) {
  if (!enabled(level)) return;
  try {
    std::string line = line_start(level, message, fields.members().size());
    line += fields.members();
    line += "}\n";
    send_line(line);
  } catch (...) {
  }
}

// Called several times a request (log lines, run records), so each thread keeps the
// date and time of the current second and formats only the milliseconds.
std::string utc_timestamp_now() {
  using namespace std::chrono;
  const auto ms = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  thread_local std::time_t cached_second = -1;
  thread_local char prefix[40];
  thread_local int prefix_size = 0;
  if (seconds != cached_second) {
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    prefix_size =
        std::snprintf(prefix, sizeof prefix, "%04d-%02d-%02dT%02d:%02d:%02d.", tm.tm_year + 1900,
                      tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    cached_second = seconds;
  }
  const int millis = static_cast<int>(ms % 1000);
  std::string out(prefix, static_cast<size_t>(prefix_size));
  out += static_cast<char>('0' + millis / 100);
  out += static_cast<char>('0' + millis / 10 % 10);
  out += static_cast<char>('0' + millis % 10);
  out += 'Z';
  return out;
}

}  // namespace agentrt::core
