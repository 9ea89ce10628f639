#include "common/transfer_loop.h"

#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace agentrt::providers {
namespace {

constexpr int kMaxEvents = 128;
constexpr size_t kMaxSpareEasy = 64;
constexpr long kMaxWaitMs = 60000;
constexpr const char* kShutdown = "cancelled: the provider instance is shutting down";

// The host's waker: posts the id, never touches the call.
void wake_call(void* target) {
  auto* t = static_cast<WakeTarget*>(target);
  t->loop->wake(t->id);
}

std::exception_ptr shutdown() {
  return std::make_exception_ptr(sdk::Error(AGENTRT_ERR_CANCELLED, kShutdown));
}

}  // namespace

TransferLoop::TransferLoop() {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  multi_ = curl_multi_init();
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = static_cast<uint64_t>(event_fd_);
  if (epoll_fd_ < 0 || event_fd_ < 0 || !multi_ ||
      epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, event_fd_, &ev) != 0) {
    std::string why = std::strerror(errno);
    if (multi_) curl_multi_cleanup(multi_);
    if (event_fd_ >= 0) ::close(event_fd_);
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
    throw sdk::Error(AGENTRT_ERR_INTERNAL, "cannot start a transfer loop: " + why);
  }
  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &TransferLoop::on_socket);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &TransferLoop::on_timer);
  curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  thread_ = std::thread([this] { run(); });
}

TransferLoop::~TransferLoop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    inbox_.stopping = true;
  }
  signal();
  thread_.join();
  // Closes the cached connections; its callbacks still find this object whole.
  curl_multi_cleanup(multi_);
  spare_easy_.clear();
  ::close(event_fd_);
  ::close(epoll_fd_);
}

void TransferLoop::submit(std::unique_ptr<AsyncCall> call) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (inbox_.stopping)
      throw sdk::Error(AGENTRT_ERR_UNAVAILABLE, "the provider instance is shutting down");
    inbox_.starts.emplace_back(next_id_++, std::move(call));
    load_.fetch_add(1, std::memory_order_relaxed);
    if (signalled_) return;
    signalled_ = true;
  }
  signal();
}

void TransferLoop::wake(uint64_t id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    inbox_.wakes.push_back(id);
    if (signalled_) return;
    signalled_ = true;
  }
  signal();
}

void TransferLoop::signal() {
  uint64_t one = 1;
  // Fails only when the counter is saturated, and then the loop wakes anyway.
  [[maybe_unused]] ssize_t n = ::write(event_fd_, &one, sizeof one);
}

int TransferLoop::on_socket(CURL*, curl_socket_t s, int what, void* loop, void*) {
  auto* self = static_cast<TransferLoop*>(loop);
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(self->epoll_fd_, EPOLL_CTL_DEL, s, nullptr);
    return 0;
  }
  epoll_event ev{};
  ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
  ev.data.u64 = static_cast<uint64_t>(s);
  if (epoll_ctl(self->epoll_fd_, EPOLL_CTL_ADD, s, &ev) != 0 && errno == EEXIST)
    epoll_ctl(self->epoll_fd_, EPOLL_CTL_MOD, s, &ev);
  return 0;
}

int TransferLoop::on_timer(CURLM*, long timeout_ms, void* loop) {
  auto* self = static_cast<TransferLoop*>(loop);
  if (timeout_ms < 0)
    self->curl_deadline_.reset();
  else
    self->curl_deadline_ = Clock::now() + std::chrono::milliseconds(timeout_ms);
  return 0;
}

void TransferLoop::run() {
  pthread_setname_np(pthread_self(), "agentrt-stream");
  while (!stopping_) {
    try {
      iterate();
    } catch (...) {
      // Only a failure outside every call lands here (each call catches its own);
      // the other calls still need the loop.
    }
  }
  end_all();
}

void TransferLoop::iterate() {
  epoll_event events[kMaxEvents];
  int n = epoll_wait(epoll_fd_, events, kMaxEvents, wait_ms());
  for (int i = 0; i < n; ++i) {
    const uint64_t data = events[i].data.u64;
    if (data == static_cast<uint64_t>(event_fd_)) {
      if (take_inbox()) stopping_ = true;
      continue;
    }
    uint32_t got = events[i].events;
    int flags = 0;
    if (got & (EPOLLIN | EPOLLHUP)) flags |= CURL_CSELECT_IN;
    if (got & EPOLLOUT) flags |= CURL_CSELECT_OUT;
    if (got & EPOLLERR) flags |= CURL_CSELECT_ERR;
    socket_action(static_cast<curl_socket_t>(data), flags);
  }
  if (curl_deadline_ && *curl_deadline_ <= Clock::now()) {
    curl_deadline_.reset();
    socket_action(CURL_SOCKET_TIMEOUT, 0);
  }
  flush_texts();
  reap_finished();
  run_checks();
}

int TransferLoop::wait_ms() const {
  std::optional<Clock::time_point> next = curl_deadline_;
  if (!due_.empty() && (!next || due_.top().when < *next)) next = due_.top().when;
  if (!next) return static_cast<int>(kMaxWaitMs);
  Clock::duration left = *next - Clock::now();
  if (left <= Clock::duration::zero()) return 0;
  // Rounded up: waking a little early would only spin until the deadline.
  return static_cast<int>(
      std::min<long>(std::chrono::ceil<std::chrono::milliseconds>(left).count(), kMaxWaitMs));
}

// Returns true once the loop is asked to stop.
bool TransferLoop::take_inbox() {
  uint64_t count = 0;
  // Read before taking the inbox: a command posted after the read writes again.
  [[maybe_unused]] ssize_t n = ::read(event_fd_, &count, sizeof count);
  Inbox taken;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    taken.starts.swap(inbox_.starts);
    taken.wakes.swap(inbox_.wakes);
    taken.stopping = inbox_.stopping;
    signalled_ = false;
  }
  for (auto& [id, call] : taken.starts) {
    if (taken.stopping) {
      call->end(shutdown());
      load_.fetch_sub(1, std::memory_order_relaxed);
      call->report();
    } else {
      adopt(id, std::move(call));
    }
  }
  for (uint64_t id : taken.wakes) {
    auto it = calls_.find(id);
    if (it == calls_.end()) continue;  // already over: the wake raced its end
    it->second->woken();
    if (it->second->ended()) finish(id);
  }
  return taken.stopping;
}

void TransferLoop::adopt(uint64_t id, std::unique_ptr<AsyncCall> call) {
  AsyncCall& ref = *call;
  calls_.emplace(id, std::move(call));
  auto schedule_it = [this, id](Clock::time_point when) { schedule(id, when); };
  auto unflushed = [this, id] { unflushed_.push_back(id); };
  try {
    ref.begin(acquire_easy(), WakeTarget{this, id}, &wake_call, schedule_it, unflushed);
    if (!ref.ended()) {
      CURLMcode rc = curl_multi_add_handle(multi_, ref.easy());
      if (rc != CURLM_OK)
        throw sdk::Error(AGENTRT_ERR_INTERNAL,
                         std::string("libcurl refused the transfer: ") + curl_multi_strerror(rc));
    }
  } catch (...) {
    ref.end(std::current_exception());
  }
  if (ref.ended())
    finish(id);
  else
    schedule(id, ref.next_check());
}

void TransferLoop::socket_action(curl_socket_t s, int flags) {
  int running = 0;
  // Body bytes reach the decoders, and deltas the sinks, from inside this call.
  curl_multi_socket_action(multi_, s, flags, &running);
}

// After every socket of the pass was read: a stream whose upstream got ahead of it
// sends what several reads brought as one fragment, one event and one write to its
// client (delta_emitter.h).
void TransferLoop::flush_texts() {
  for (uint64_t id : unflushed_) {
    auto it = calls_.find(id);
    if (it == calls_.end()) continue;
    it->second->flush_text();
    if (it->second->ended()) finish(id);
  }
  unflushed_.clear();
}

void TransferLoop::reap_finished() {
  int queued = 0;
  while (CURLMsg* message = curl_multi_info_read(multi_, &queued)) {
    if (message->msg != CURLMSG_DONE) continue;
    CURLcode code = message->data.result;
    char* owner = nullptr;
    curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &owner);
    if (!owner) continue;
    auto* call = reinterpret_cast<AsyncCall*>(owner);
    call->transfer_done(code);
    finish(call->id());
  }
}

void TransferLoop::run_checks() {
  Clock::time_point now = Clock::now();
  while (!due_.empty() && due_.top().when <= now) {
    Due due = due_.top();
    due_.pop();
    auto it = calls_.find(due.id);
    // Entries are never removed, only outdated: a call that ended, or whose next
    // check moved, left one behind.
    if (it == calls_.end() || it->second->next_check() != due.when) continue;
    it->second->check(now);
    if (it->second->ended())
      finish(due.id);
    else
      schedule(due.id, it->second->next_check());
  }
}

void TransferLoop::schedule(uint64_t id, Clock::time_point when) {
  due_.push(Due{when, id});
}

void TransferLoop::finish(uint64_t id) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  std::unique_ptr<AsyncCall> call = std::move(it->second);
  calls_.erase(it);
  if (std::unique_ptr<EasyHandle> handle = call->take_handle()) {
    // Removing an unfinished transfer closes its connection: the upstream sees the
    // client leave. A finished one goes back to the connection cache.
    curl_multi_remove_handle(multi_, handle->get());
    release_easy(std::move(handle));
  }
  load_.fetch_sub(1, std::memory_order_relaxed);
  call->report();
}

void TransferLoop::end_all() {
  for (auto& [id, call] : calls_) call->end(shutdown());
  while (!calls_.empty()) finish(calls_.begin()->first);
}

std::unique_ptr<EasyHandle> TransferLoop::acquire_easy() {
  if (spare_easy_.empty()) return std::make_unique<EasyHandle>();
  std::unique_ptr<EasyHandle> handle = std::move(spare_easy_.back());
  spare_easy_.pop_back();
  return handle;
}

void TransferLoop::release_easy(std::unique_ptr<EasyHandle> handle) {
  // Drops what the options pointed at (the call's headers and buffers) before the
  // call goes.
  handle->clear_call();
  if (spare_easy_.size() < kMaxSpareEasy) spare_easy_.push_back(std::move(handle));
}

}  // namespace agentrt::providers
