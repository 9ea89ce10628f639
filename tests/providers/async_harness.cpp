#include "tests/providers/async_harness.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace agentrt::test {
namespace {

TestSink& self(const agentrt_sink_t* sink) {
  return *static_cast<TestSink*>(sink->ctx);
}

agentrt_error_t fresh_error() {
  agentrt_error_t error{};
  error.struct_size = sizeof error;
  return error;
}

}  // namespace

TestSink::TestSink() {
  raw_.struct_size = sizeof raw_;
  raw_.ctx = this;
  raw_.emit = &TestSink::emit;
  raw_.is_cancelled = &TestSink::is_cancelled;
  raw_.set_waker = &TestSink::set_waker;
  raw_.done = &TestSink::done;
  error_.struct_size = sizeof error_;
}

void TestSink::note_call() {
  threads_.insert(std::this_thread::get_id());
  if (done_count_ > 0) touched_after_done_ = true;
}

int32_t TestSink::emit(agentrt_sink_t* sink, uint32_t kind, const char* data, size_t len) {
  TestSink& s = self(sink);
  std::lock_guard<std::mutex> lock(s.mutex_);
  s.note_call();
  s.kinds_.push_back(kind);
  s.datas_.emplace_back(data, len);
  s.changed_.notify_all();
  size_t texts = std::count(s.kinds_.begin(), s.kinds_.end(), AGENTRT_DELTA_TEXT);
  return kind == AGENTRT_DELTA_TEXT && texts > s.refuse_after_ ? 1 : 0;
}

int32_t TestSink::is_cancelled(const agentrt_sink_t* sink) {
  TestSink& s = self(sink);
  std::lock_guard<std::mutex> lock(s.mutex_);
  s.note_call();
  return s.cancelled_ ? 1 : 0;
}

int32_t TestSink::set_waker(agentrt_sink_t* sink, void (*wake)(void*), void* ctx) {
  TestSink& s = self(sink);
  std::lock_guard<std::mutex> lock(s.mutex_);
  s.note_call();
  if (!s.accepts_waker_) return AGENTRT_ERR_UNSUPPORTED;
  s.wake_ = wake;
  s.wake_ctx_ = ctx;
  return AGENTRT_OK;
}

void TestSink::done(agentrt_sink_t* sink, int32_t status, const agentrt_error_t* error) {
  TestSink& s = self(sink);
  std::lock_guard<std::mutex> lock(s.mutex_);
  s.note_call();
  ++s.done_count_;
  s.status_ = status;
  if (error) s.error_ = *error;
  s.changed_.notify_all();
}

void TestSink::set_accepts_waker(bool accepts) {
  std::lock_guard<std::mutex> lock(mutex_);
  accepts_waker_ = accepts;
}

void TestSink::refuse_text_after(size_t texts) {
  std::lock_guard<std::mutex> lock(mutex_);
  refuse_after_ = texts;
}

void TestSink::cancel(bool wake) {
  std::lock_guard<std::mutex> lock(mutex_);
  cancelled_ = true;
  if (wake && wake_) wake_(wake_ctx_);
}

bool TestSink::has_waker() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return wake_ != nullptr;
}

bool TestSink::wait_done(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return done_count_ > 0; });
}

bool TestSink::wait_texts(size_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] {
    return static_cast<size_t>(std::count(kinds_.begin(), kinds_.end(), AGENTRT_DELTA_TEXT)) >=
           count;
  });
}

int TestSink::done_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_count_;
}

int32_t TestSink::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_;
}

agentrt_error_t TestSink::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

std::vector<std::string> TestSink::texts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (size_t i = 0; i < kinds_.size(); ++i)
    if (kinds_[i] == AGENTRT_DELTA_TEXT) out.push_back(datas_[i]);
  return out;
}

std::string TestSink::text() const {
  std::string joined;
  for (const std::string& t : texts()) joined += t;
  return joined;
}

std::vector<uint32_t> TestSink::kinds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return kinds_;
}

std::vector<std::string> TestSink::datas() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return datas_;
}

std::set<std::thread::id> TestSink::threads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return threads_;
}

bool TestSink::touched_after_done() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return touched_after_done_;
}

RawProvider::RawProvider(Vendor vendor, const nlohmann::json& config)
    : plugin_(provider_plugin(vendor)) {
  std::string text = config.dump();
  agentrt_error_t error = fresh_error();
  int32_t rc = plugin_->provider_table().create(plugin_->host_api(), text.data(), text.size(),
                                                &instance_, &error);
  if (rc != AGENTRT_OK) throw std::runtime_error(std::string("create: ") + error.message);
}

int32_t RawProvider::start(const nlohmann::json& request, TestSink& sink, agentrt_error_t* error) {
  std::string text = request.dump();
  agentrt_error_t local = fresh_error();
  agentrt_error_t* out = error ? error : &local;
  *out = fresh_error();
  return plugin_->provider_table().complete_async(instance_, text.data(), text.size(), sink.raw(),
                                                  out);
}

int32_t RawProvider::complete(const nlohmann::json& request, TestSink& sink,
                              agentrt_error_t* error) {
  std::string text = request.dump();
  *error = fresh_error();
  return plugin_->provider_table().complete(instance_, text.data(), text.size(), sink.raw(), error);
}

void RawProvider::destroy() {
  if (instance_) plugin_->provider_table().destroy(instance_);
  instance_ = nullptr;
}

size_t expected_loops() {
  return std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
}

std::chrono::steady_clock::duration AsyncTest::run_async(RawProvider& p,
                                                         const nlohmann::json& request,
                                                         TestSink& sink) {
  auto start = std::chrono::steady_clock::now();
  agentrt_error_t error{};
  if (p.start(request, sink, &error) != AGENTRT_OK)
    ADD_FAILURE() << "the call did not start: " << error.message;
  else if (!sink.wait_done(std::chrono::seconds(20)))
    ADD_FAILURE() << "the call never ended";
  return std::chrono::steady_clock::now() - start;
}

}  // namespace agentrt::test
