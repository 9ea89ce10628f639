#include "mcp/stdio_transport.h"

#include "mcp/message_reader.h"

#include <poll.h>
#include <pthread.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <future>

namespace agentrt::mcp {
namespace {

using nlohmann::json;
using sdk::Error;

constexpr size_t kMaxLogLine = 512;
constexpr size_t kMaxMessage = 64u << 20;  // a larger line is a broken server, not a result

// Writes all of `data`; false when the reader went away. SIGPIPE is blocked on this
// thread meanwhile (and a pending one consumed), since its default would kill agentd.
bool write_all(int fd, const std::string& data) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  size_t done = 0;
  bool ok = true;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = false;
      if (errno == EPIPE) {
        const timespec zero{};
        sigtimedwait(&pipe_set, nullptr, &zero);
      }
      break;
    }
    done += size_t(n);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

// Reads `fd` line by line until EOF or `stopping`, polling so that stopping is seen.
template <class OnLine>
void read_lines(int fd, const std::atomic<bool>& stopping, OnLine on_line) {
  LineReader lines(kMaxMessage);
  char chunk[65536];
  while (!stopping) {
    pollfd p{fd, POLLIN, 0};
    int ready = poll(&p, 1, 100);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    lines.feed(std::string_view(chunk, size_t(n)), on_line);
  }
}

}  // namespace

StdioTransport::StdioTransport(const ChildSpec& spec, const sdk::Host& host, std::string label,
                               NotificationFn on_notification)
    : host_(host), label_(std::move(label)), on_notification_(std::move(on_notification)) {
  // PR_SET_PDEATHSIG fires when the *thread* that forked ends, not the process: forked
  // from a caller's thread, the child would die with that worker. The stdout reader
  // forks it instead, and that thread lives exactly as long as this transport.
  std::promise<void> started;
  std::future<void> start = started.get_future();
  stdout_reader_ = std::thread([this, &spec, &started] {
    try {
      child_ = std::make_unique<ChildProcess>(spec);
    } catch (...) {
      started.set_exception(std::current_exception());
      return;
    }
    started.set_value();
    read_stdout();
  });
  try {
    start.get();
  } catch (...) {
    stdout_reader_.join();
    throw;
  }
  stderr_reader_ = std::thread([this] { read_stderr(); });
}

StdioTransport::~StdioTransport() {
  child_->stop();
  stopping_ = true;
  exited_ = true;
  cv_.notify_all();
  if (stdout_reader_.joinable()) stdout_reader_.join();
  if (stderr_reader_.joinable()) stderr_reader_.join();
}

void StdioTransport::send(const json& message) {
  // error_handler::replace: a server's invalid UTF-8 echoed back must not throw here.
  std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  std::lock_guard<std::mutex> lock(write_mutex_);
  if (exited_ || !write_all(child_->stdin_fd(), line))
    throw Error(AGENTRT_ERR_UNAVAILABLE, "mcp server exited");
}

void StdioTransport::notify(const json& notification) {
  send(notification);
}

json StdioTransport::request(const json& request, const CancelCheck& cancelled,
                             std::chrono::milliseconds timeout) {
  const std::string key = request.at("id").dump();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    responses_[key].reset();
  }
  auto forget = [&] {
    std::lock_guard<std::mutex> lock(mutex_);
    responses_.erase(key);
  };
  try {
    send(request);
  } catch (...) {
    forget();
    throw;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    auto it = responses_.find(key);
    if (it->second) {
      json response = std::move(*it->second);
      responses_.erase(it);
      return response;
    }
    Error stop(AGENTRT_ERR_INTERNAL, "");
    if (exited_)
      stop = Error(AGENTRT_ERR_UNAVAILABLE, "mcp server exited");
    else if (cancelled && cancelled())
      stop = Error(AGENTRT_ERR_CANCELLED, "cancelled");
    else if (std::chrono::steady_clock::now() >= deadline)
      stop = Error(AGENTRT_ERR_TIMEOUT,
                   "mcp server did not answer in " + std::to_string(timeout.count()) + " ms");
    if (stop.code() != AGENTRT_ERR_INTERNAL) {
      responses_.erase(it);
      throw stop;
    }
    cv_.wait_for(lock, std::chrono::milliseconds(50));
  }
}

void StdioTransport::read_stdout() {
  read_lines(child_->stdout_fd(), stopping_, [this](const std::string& line) { dispatch(line); });
  // End of its output: the server exited (or closed stdout, which is as good as).
  exited_ = true;
  std::lock_guard<std::mutex> lock(mutex_);
  cv_.notify_all();
}

void StdioTransport::read_stderr() {
  read_lines(child_->stderr_fd(), stopping_, [this](const std::string& line) {
    std::string cut = line.substr(0, kMaxLogLine);
    if (line.size() > kMaxLogLine) cut += "...";
    host_.log(AGENTRT_LOG_WARN, "mcp server " + label_ + " stderr: " + cut);
  });
}

void StdioTransport::dispatch(const std::string& line) {
  ServerMessage read = read_message(line, /*require_version=*/true);
  if (read.kind == MessageKind::ignored) {
    if (!warned_garbage_)
      host_.log(AGENTRT_LOG_WARN,
                "mcp server " + label_ +
                    " wrote a line that is not JSON-RPC 2.0; ignored: " + line.substr(0, 120));
    warned_garbage_ = true;
    return;
  }
  json& message = read.message;
  if (read.kind == MessageKind::request) {
    answer_server_request(message);
    return;
  }
  if (read.kind == MessageKind::notification) {
    if (on_notification_) {
      try {
        on_notification_(message);
      } catch (const std::exception&) {
        // a notification of an unexpected shape is ignored, like an unknown one
      }
    }
    return;
  }
  if (read.kind != MessageKind::response) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = responses_.find(message["id"].dump());
  if (it == responses_.end()) return;  // a request that gave up waiting
  it->second = std::move(message);
  cv_.notify_all();
}

void StdioTransport::answer_server_request(const json& message) {
  try {
    send(answer_to_server_request(message));
  } catch (const Error&) {
  }
}

}  // namespace agentrt::mcp
