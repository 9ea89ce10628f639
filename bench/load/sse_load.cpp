// A closed-loop HTTP/1.1 load client for streamed responses, where wrk cannot look:
// time to the first delta of a stream, and how many streams are live at once.
//
//   sse_load --target 127.0.0.1:PORT --path /run --body-file FILE [--header "K: V"]...
//            [--connections 1] [--duration-s 10] [--ramp-s 0] [--warmup-s 0]
//            [--first MARK] [--expect MARK] [--drain-s 10] [--sample-ms 100]
//            [--active-ms 250]
//
// Every connection sends the POST, reads the response (chunked, Content-Length or
// close-delimited) and sends the next one on the same connection (a new connection
// when the server closed it). Connections start evenly spread over --ramp-s; after
// that and --warmup-s, requests started within --duration-s are measured:
//   ttfb   request sent -> response head received
//   ttfd   request sent -> first occurrence of --first in the body (the first delta)
//   total  request sent -> response complete
//   gap    between successive reads of a stream after its first delta
//   open   streams requested on an established connection and not yet complete (the
//          server holds them, whether or not their head came yet), sampled as live
//   live   streams with their head received and not yet complete, sampled every
//          --sample-ms during the window
//   active live streams that received body bytes within the last --active-ms (the
//          rest are stalled: waiting for a delta that is late, or for the end)
// A response that is not 200, or whose body lacks --expect, is an error. Prints one
// JSON object on stdout. Single-threaded epoll; loopback use only.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string path = "/";
  std::string body;
  std::vector<std::string> headers;
  int connections = 1;
  double duration_s = 10;
  double ramp_s = 0;
  double warmup_s = 0;
  double drain_s = 10;
  int sample_ms = 100;
  int active_ms = 250;
  std::string first;
  std::string expect;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "sse_load: %s\n", why.c_str());
  std::exit(2);
}

double micros(Clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

// Finds a needle in a byte stream fed in pieces of any size.
class Finder {
 public:
  explicit Finder(std::string needle = {}) : needle_(std::move(needle)) {}
  bool found() const { return found_; }
  bool feed(std::string_view data) {
    if (found_ || needle_.empty()) return found_;
    tail_.append(data.data(), data.size());
    if (tail_.find(needle_) != std::string::npos) {
      found_ = true;
      tail_.clear();
    } else if (tail_.size() >= needle_.size()) {
      tail_.erase(0, tail_.size() - (needle_.size() - 1));
    }
    return found_;
  }

 private:
  std::string needle_;
  std::string tail_;
  bool found_ = false;
};

// Incremental HTTP/1.1 response reader.
class ResponseReader {
 public:
  enum class State { head, sized, chunk_size, chunk_data, chunk_crlf, trailer, to_close, done };

  void reset() {
    state_ = State::head;
    head_.clear();
    status = 0;
    close = false;
    remaining_ = 0;
    line_.clear();
  }

  // Consumes bytes; calls on_body with decoded body bytes. Returns bytes used (the
  // rest belongs to nothing: the benchmarks never pipeline), or -1 on a broken response.
  template <typename OnBody>
  long feed(const char* data, size_t size, OnBody&& on_body) {
    size_t at = 0;
    while (at < size && state_ != State::done) {
      switch (state_) {
        case State::head: {
          head_.append(data + at, size - at);
          size_t end = head_.find("\r\n\r\n");
          if (end == std::string::npos) {
            if (head_.size() > 65536) return -1;
            return static_cast<long>(size);
          }
          size_t used_now = size - at - (head_.size() - end - 4);
          at += used_now;
          if (!parse_head(head_.substr(0, end))) return -1;
          head_received = true;
          break;
        }
        case State::sized: {
          size_t n = std::min(remaining_, size - at);
          on_body(std::string_view(data + at, n));
          at += n;
          remaining_ -= n;
          if (remaining_ == 0) state_ = State::done;
          break;
        }
        case State::to_close:
          on_body(std::string_view(data + at, size - at));
          at = size;
          break;
        case State::chunk_size:
        case State::chunk_crlf:
        case State::trailer: {
          size_t nl = std::string_view(data + at, size - at).find('\n');
          if (nl == std::string_view::npos) {
            line_.append(data + at, size - at);
            at = size;
            break;
          }
          line_.append(data + at, nl);
          at += nl + 1;
          if (!line_.empty() && line_.back() == '\r') line_.pop_back();
          if (state_ == State::chunk_size) {
            char* end = nullptr;
            remaining_ = std::strtoul(line_.c_str(), &end, 16);
            if (end == line_.c_str()) return -1;
            state_ = remaining_ == 0 ? State::trailer : State::chunk_data;
          } else if (state_ == State::chunk_crlf) {
            if (!line_.empty()) return -1;
            state_ = State::chunk_size;
          } else if (line_.empty()) {
            state_ = State::done;  // the blank line after the last chunk (no trailers)
          }
          line_.clear();
          break;
        }
        case State::chunk_data: {
          size_t n = std::min(remaining_, size - at);
          on_body(std::string_view(data + at, n));
          at += n;
          remaining_ -= n;
          if (remaining_ == 0) state_ = State::chunk_crlf;
          break;
        }
        case State::done:
          break;
      }
    }
    return static_cast<long>(at);
  }

  bool done() const { return state_ == State::done; }
  // A close-delimited body ends with the connection.
  bool ends_at_close() const { return state_ == State::to_close; }

  int status = 0;
  bool close = false;
  bool head_received = false;

 private:
  bool parse_head(const std::string& head) {
    if (head.compare(0, 5, "HTTP/") != 0) return false;
    size_t sp = head.find(' ');
    if (sp == std::string::npos) return false;
    status = std::atoi(head.c_str() + sp + 1);
    bool http10 = head.compare(0, 8, "HTTP/1.0") == 0;
    bool chunked = false;
    long length = -1;
    bool keep_alive = false;
    std::istringstream lines(head);
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(), ::tolower);
      std::string value = line.substr(colon + 1);
      std::transform(value.begin(), value.end(), value.begin(), ::tolower);
      if (name == "content-length") length = std::atol(value.c_str());
      if (name == "transfer-encoding" && value.find("chunked") != std::string::npos) chunked = true;
      if (name == "connection" && value.find("close") != std::string::npos) close = true;
      if (name == "connection" && value.find("keep-alive") != std::string::npos) keep_alive = true;
    }
    if (http10 && !keep_alive) close = true;
    if (chunked) {
      state_ = State::chunk_size;
    } else if (length >= 0) {
      remaining_ = static_cast<size_t>(length);
      state_ = length == 0 ? State::done : State::sized;
    } else {
      state_ = State::to_close;
      close = true;
    }
    return true;
  }

  State state_ = State::head;
  std::string head_;
  std::string line_;
  size_t remaining_ = 0;
};

struct Conn {
  int fd = -1;
  bool connecting = false;
  bool in_request = false;
  bool measured = false;       // started within the window
  Clock::time_point start_at;  // when this connection begins (the ramp)
  Clock::time_point sent_at;
  Clock::time_point last_read;
  bool first_seen = false;
  size_t out_at = 0;
  ResponseReader reader;
  Finder first;
  Finder expect;
};

struct Stats {
  std::vector<double> ttfb_us, ttfd_us, total_us, gap_us;
  std::vector<int> open, live, active;
  long completed = 0, errors_status = 0, errors_incomplete = 0, errors_io = 0;
  long errors_connect = 0;
};

class Load {
 public:
  explicit Load(const Options& o) : o_(o) {
    request_ =
        "POST " + o.path + " HTTP/1.1\r\nHost: " + o.host + ":" + std::to_string(o.port) +
        "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(o.body.size()) +
        "\r\n";
    for (const std::string& h : o.headers) request_ += h + "\r\n";
    request_ += "\r\n" + o.body;
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_ < 0) usage("epoll_create1 failed");
    std::memset(&addr_, 0, sizeof addr_);
    addr_.sin_family = AF_INET;
    addr_.sin_port = htons(static_cast<uint16_t>(o.port));
    if (inet_pton(AF_INET, o.host.c_str(), &addr_.sin_addr) != 1) usage("bad host");
  }

  void run() {
    begin_ = Clock::now();
    const auto d = [](double s) {
      return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
    };
    window_start_ = begin_ + d(o_.ramp_s + o_.warmup_s);
    window_end_ = window_start_ + d(o_.duration_s);
    const Clock::time_point drain_end = window_end_ + d(o_.drain_s);
    conns_.resize(static_cast<size_t>(o_.connections));
    for (size_t i = 0; i < conns_.size(); ++i)
      conns_[i].start_at =
          begin_ + d(o_.ramp_s * static_cast<double>(i) / static_cast<double>(conns_.size()));
    size_t next_to_start = 0;
    Clock::time_point next_sample = window_start_;
    std::vector<epoll_event> events(1024);
    for (;;) {
      Clock::time_point now = Clock::now();
      while (next_to_start < conns_.size() && conns_[next_to_start].start_at <= now)
        open(conns_[next_to_start++]);
      if (now >= window_start_ && now < window_end_ && now >= next_sample) {
        stats_.open.push_back(open_count());
        stats_.live.push_back(live_count());
        stats_.active.push_back(active_count(now));
        next_sample += std::chrono::milliseconds(o_.sample_ms);
      }
      if (now >= window_end_ && (in_flight() == 0 || now >= drain_end)) break;
      int n = epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), 1);
      for (int i = 0; i < n; ++i) on_event(conns_[events[i].data.u64], events[i].events);
    }
    for (Conn& c : conns_) {
      if (c.in_request && c.measured) ++stats_.errors_incomplete;  // cut at the drain limit
      if (c.fd >= 0) ::close(c.fd);
    }
  }

  void report() {
    const double window = o_.duration_s;
    std::printf("{\"connections\":%d,\"window_s\":%.3f,\"completed\":%ld,\"rps\":%.1f,",
                o_.connections, window, stats_.completed,
                static_cast<double>(stats_.completed) / window);
    std::printf("\"errors\":{\"status\":%ld,\"incomplete\":%ld,\"io\":%ld,\"connect\":%ld},",
                stats_.errors_status, stats_.errors_incomplete, stats_.errors_io,
                stats_.errors_connect);
    print_percentiles("ttfb_us", stats_.ttfb_us);
    std::printf(",");
    print_percentiles("ttfd_us", stats_.ttfd_us);
    std::printf(",");
    print_percentiles("total_us", stats_.total_us);
    std::printf(",");
    print_percentiles("gap_us", stats_.gap_us);
    std::printf(",");
    print_counts("open", stats_.open);
    std::printf(",");
    print_counts("live", stats_.live);
    std::printf(",");
    print_counts("active", stats_.active);
    std::printf("}\n");
  }

 private:
  static void print_percentiles(const char* name, std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    auto at = [&v](double q) {
      if (v.empty()) return 0.0;
      size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
      return v[std::min(i, v.size() - 1)];
    };
    std::printf("\"%s\":{\"n\":%zu,\"p50\":%.1f,\"p90\":%.1f,\"p99\":%.1f,\"max\":%.1f}", name,
                v.size(), at(0.5), at(0.9), at(0.99), v.empty() ? 0.0 : v.back());
  }

  static void print_counts(const char* name, std::vector<int> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    if (v.empty()) v.push_back(0);
    std::printf("\"%s\":{\"min\":%d,\"p50\":%d,\"max\":%d,\"samples\":%zu}", name, v.front(),
                v[v.size() / 2], v.back(), n);
  }

  int active_count(Clock::time_point now) const {
    const auto limit = std::chrono::milliseconds(o_.active_ms);
    return count_if([&](const Conn& c) {
      return c.in_request && c.reader.head_received && now - c.last_read <= limit;
    });
  }

  template <typename Pred>
  int count_if(Pred pred) const {
    return static_cast<int>(std::count_if(conns_.begin(), conns_.end(), pred));
  }

  int open_count() const {
    return count_if([](const Conn& c) { return c.in_request; });
  }

  int live_count() const {
    return count_if([](const Conn& c) { return c.in_request && c.reader.head_received; });
  }

  int in_flight() const {
    return count_if([](const Conn& c) { return c.in_request || c.connecting; });
  }

  size_t index(const Conn& c) const { return static_cast<size_t>(&c - conns_.data()); }

  void open(Conn& c) {
    c.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c.fd < 0) {
      ++stats_.errors_connect;
      return;
    }
    int one = 1;
    setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    epoll_event ev{};
    ev.events = EPOLLOUT | EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = index(c);
    epoll_ctl(epoll_, EPOLL_CTL_ADD, c.fd, &ev);
    int rc = connect(c.fd, reinterpret_cast<sockaddr*>(&addr_), sizeof addr_);
    if (rc < 0 && errno != EINPROGRESS) {
      ++stats_.errors_connect;
      drop(c);
      return;
    }
    c.connecting = true;
  }

  void drop(Conn& c) {
    if (c.fd >= 0) {
      epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, nullptr);
      ::close(c.fd);
    }
    c.fd = -1;
    c.connecting = false;
    c.in_request = false;
  }

  // A new request, on this connection or (when the server closed it) a new one.
  void next(Conn& c) {
    Clock::time_point now = Clock::now();
    if (now >= window_end_) {
      drop(c);
      return;
    }
    if (c.fd < 0) {
      open(c);
      return;
    }
    c.in_request = true;
    c.measured = now >= window_start_;
    c.sent_at = now;
    c.out_at = 0;
    c.first_seen = false;
    c.reader.reset();
    c.reader.head_received = false;
    c.first = Finder(o_.first);
    c.expect = Finder(o_.expect);
    send_some(c);
  }

  void send_some(Conn& c) {
    while (c.out_at < request_.size()) {
      ssize_t n =
          ::send(c.fd, request_.data() + c.out_at, request_.size() - c.out_at, MSG_NOSIGNAL);
      if (n > 0) {
        c.out_at += static_cast<size_t>(n);
      } else if (n < 0 && errno == EAGAIN) {
        return;  // EPOLLOUT stays registered
      } else {
        fail(c, stats_.errors_io);
        return;
      }
    }
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = index(c);
    epoll_ctl(epoll_, EPOLL_CTL_MOD, c.fd, &ev);
  }

  // Errors count in every phase (ramp and drain too); completions only in the window.
  void fail(Conn& c, long& counter) {
    ++counter;
    drop(c);
    next(c);
  }

  void on_event(Conn& c, uint32_t events) {
    if (c.fd < 0) return;
    if (c.connecting) {
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0 || (events & (EPOLLERR | EPOLLHUP))) {
        ++stats_.errors_connect;
        drop(c);
        return;  // not retried: a refused connection is a finding, not noise
      }
      c.connecting = false;
      next(c);
      return;
    }
    if ((events & EPOLLOUT) && c.in_request && c.out_at < request_.size()) send_some(c);
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP)) read_some(c);
  }

  void read_some(Conn& c) {
    char buf[65536];
    for (;;) {
      ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {  // the server closed
        if (c.in_request && c.reader.ends_at_close()) {
          finish(c);
          drop(c);
          next(c);
        } else if (c.in_request) {
          fail(c, stats_.errors_io);
        } else {
          drop(c);
          next(c);
        }
        return;
      }
      if (!c.in_request) continue;  // bytes nobody asked for
      Clock::time_point now = Clock::now();
      bool had_head = c.reader.head_received;
      long used = c.reader.feed(buf, static_cast<size_t>(n), [&](std::string_view body) {
        c.expect.feed(body);
        if (!c.first_seen && c.first.feed(body)) {
          c.first_seen = true;
          if (c.measured) stats_.ttfd_us.push_back(micros(now - c.sent_at));
        }
      });
      if (used < 0) {
        fail(c, stats_.errors_io);
        return;
      }
      if (!had_head && c.reader.head_received && c.measured)
        stats_.ttfb_us.push_back(micros(now - c.sent_at));
      if (c.first_seen && c.measured && had_head && now < window_end_)
        stats_.gap_us.push_back(micros(now - c.last_read));
      c.last_read = now;
      if (c.reader.done()) {
        finish(c);
        if (c.reader.close) drop(c);
        next(c);
        return;
      }
    }
  }

  void finish(Conn& c) {
    c.in_request = false;
    if (c.reader.status != 200) {
      ++stats_.errors_status;
    } else if (!c.measured) {
      return;
    } else if (!o_.expect.empty() && !c.expect.found()) {
      ++stats_.errors_incomplete;
    } else if (!o_.first.empty() && !c.first_seen) {
      ++stats_.errors_incomplete;
    } else {
      ++stats_.completed;
      stats_.total_us.push_back(micros(Clock::now() - c.sent_at));
    }
  }

  const Options& o_;
  std::string request_;
  int epoll_ = -1;
  sockaddr_in addr_;
  std::vector<Conn> conns_;
  Clock::time_point begin_, window_start_, window_end_;
  Stats stats_;
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) usage(flag + " needs a value");
    std::string v = argv[++i];
    if (flag == "--target") {
      size_t colon = v.rfind(':');
      if (colon == std::string::npos) usage("--target is HOST:PORT");
      o.host = v.substr(0, colon);
      o.port = std::atoi(v.c_str() + colon + 1);
    } else if (flag == "--path") {
      o.path = v;
    } else if (flag == "--body-file") {
      std::ifstream in(v, std::ios::binary);
      if (!in) usage("cannot read " + v);
      std::stringstream s;
      s << in.rdbuf();
      o.body = s.str();
    } else if (flag == "--header") {
      o.headers.push_back(v);
    } else if (flag == "--connections") {
      o.connections = std::atoi(v.c_str());
    } else if (flag == "--duration-s") {
      o.duration_s = std::atof(v.c_str());
    } else if (flag == "--ramp-s") {
      o.ramp_s = std::atof(v.c_str());
    } else if (flag == "--warmup-s") {
      o.warmup_s = std::atof(v.c_str());
    } else if (flag == "--drain-s") {
      o.drain_s = std::atof(v.c_str());
    } else if (flag == "--sample-ms") {
      o.sample_ms = std::atoi(v.c_str());
    } else if (flag == "--active-ms") {
      o.active_ms = std::atoi(v.c_str());
    } else if (flag == "--first") {
      o.first = v;
    } else if (flag == "--expect") {
      o.expect = v;
    } else {
      usage("unknown flag " + flag);
    }
  }
  if (o.port <= 0 || o.connections < 1 || o.duration_s <= 0 || o.sample_ms < 1)
    usage("--target HOST:PORT, --connections >= 1 and --duration-s > 0 are needed");
  if (o.host != "127.0.0.1" && o.host != "::1") usage("loopback targets only");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  Options options = parse_options(argc, argv);
  Load load(options);
  load.run();
  load.report();
  return 0;
}
