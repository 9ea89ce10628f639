// The C++ layer's promises, exercised in-process through the C tables it generates:
// exceptions never cross the boundary, codes and upstream facts survive, outputs go
// through the host, and the kind follows the base class.
#include <agentrt/plugin.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <utility>

#include <string>
#include <vector>

struct agentrt_output_t {
  std::string data;
};

namespace {

using agentrt::sdk::Error;

int32_t write_output(agentrt_output_t* out, const char* data, size_t len) {
  out->data.append(data, len);
  return AGENTRT_OK;
}

int32_t lookup_secret(agentrt_host_t*, const char* ref, size_t len, agentrt_receive_fn receive,
                      void* user, agentrt_error_t* error) {
  if (std::string(ref, len) != R"({"source":"inline","value":"s3cret"})") {
    error->code = AGENTRT_ERR_NOT_FOUND;
    std::snprintf(error->message, sizeof error->message, "unknown reference");
    return AGENTRT_ERR_NOT_FOUND;
  }
  receive(user, "s3cret", 6);
  return AGENTRT_OK;
}

agentrt_host_api_t make_host() {
  agentrt_host_api_t host{};
  host.struct_size = sizeof host;
  host.abi_major = AGENTRT_ABI_MAJOR;
  host.secret_lookup = &lookup_secret;
  host.output_write = &write_output;
  return host;
}

class Scripted : public agentrt::sdk::Provider {
 public:
  Scripted(const agentrt::sdk::Host& host, const std::string& config) : host_(host) {
    if (config == "explode") throw std::runtime_error("bad config");
  }
  void complete(const std::string& request, agentrt::sdk::Sink& sink) override {
    if (request == "rate-limited") throw Error(AGENTRT_ERR_UNAVAILABLE, "slow down", 429, 1500);
    if (request == "crash") throw 7;  // not even an exception type
    for (const char* word : {"a", "b", "c"})
      if (!sink.text(word)) throw Error(AGENTRT_ERR_CANCELLED, "cancelled");
    sink.usage(3, 4);
    sink.finish("end_turn");
  }
  std::string list_models() override {
    return host_.secret(R"({"source":"inline","value":"s3cret"})");
  }

 private:
  agentrt::sdk::Host host_;
};

class Store : public agentrt::sdk::MemoryBackend {
 public:
  Store(const agentrt::sdk::Host&, const std::string&) {}
  std::string save(const std::string& r) override { return "saved:" + r; }
  std::string get(const std::string&) override { throw Error(AGENTRT_ERR_NOT_FOUND, "no entry"); }
  std::string list(const std::string&) override { return "{}"; }
  std::string remove(const std::string&) override { return "{}"; }
  std::string clear_layer(const std::string&) override { return "{}"; }
  std::string count(const std::string&) override { return "{}"; }
  std::string search(const std::string&) override { return "{}"; }
  std::string delete_by_session(const std::string&) override { return "{}"; }
};

struct Recorder {
  std::vector<std::pair<uint32_t, std::string>> deltas;
  size_t stop_after = 1000;
};

int32_t record(agentrt_sink_t* sink, uint32_t kind, const char* data, size_t len) {
  auto* r = static_cast<Recorder*>(sink->ctx);
  r->deltas.emplace_back(kind, std::string(data, len));
  return r->deltas.size() >= r->stop_after ? 1 : 0;
}
int32_t never_cancelled(const agentrt_sink_t*) {
  return 0;
}

struct Fixture : ::testing::Test {
  agentrt_host_api_t host = make_host();
  const agentrt_plugin_descriptor_t* d = agentrt::sdk::detail::descriptor<Scripted>(
      "scripted", "1.2.3", "test", AGENTRT_FLAG_THREAD_SAFE);
  const agentrt_provider_vtable_t* table = static_cast<const agentrt_provider_vtable_t*>(d->vtable);
  agentrt_error_t error{sizeof(agentrt_error_t), 0, 0, 0, {}};
  void* instance = nullptr;
  Recorder recorder;
  agentrt_sink_t sink{sizeof(agentrt_sink_t), 0,       &recorder, &record,
                      &never_cancelled,       nullptr, nullptr};

  void TearDown() override {
    if (instance) table->destroy(instance);
  }
  int32_t complete(const std::string& request) {
    return table->complete(instance, request.data(), request.size(), &sink, &error);
  }
};

TEST_F(Fixture, DescriptorCarriesAbiFactsAndKind) {
  EXPECT_EQ(d->magic, AGENTRT_ABI_MAGIC);
  EXPECT_EQ(d->abi_major, AGENTRT_ABI_MAJOR);
  EXPECT_EQ(d->struct_size, sizeof(agentrt_plugin_descriptor_t));
  EXPECT_EQ(d->kind, static_cast<uint32_t>(AGENTRT_KIND_PROVIDER));
  EXPECT_STREQ(d->name, "scripted");
  EXPECT_EQ(d->flags, AGENTRT_FLAG_THREAD_SAFE);
  EXPECT_EQ(table->struct_size, sizeof(agentrt_provider_vtable_t));
  auto* memory = agentrt::sdk::detail::descriptor<Store>("store", "1", "", 0);
  EXPECT_EQ(memory->kind, static_cast<uint32_t>(AGENTRT_KIND_MEMORY_BACKEND));
}

TEST_F(Fixture, ThrowingConstructorBecomesAnError) {
  std::string config = "explode";
  EXPECT_EQ(table->create(&host, config.data(), config.size(), &instance, &error),
            AGENTRT_ERR_INTERNAL);
  EXPECT_EQ(instance, nullptr);
  EXPECT_STREQ(error.message, "bad config");
}

TEST_F(Fixture, DeltasReachTheSinkInOrder) {
  ASSERT_EQ(table->create(&host, "", 0, &instance, &error), AGENTRT_OK);
  ASSERT_EQ(complete("hello"), AGENTRT_OK);
  ASSERT_EQ(recorder.deltas.size(), 5u);
  EXPECT_EQ(recorder.deltas[0], std::make_pair(uint32_t{AGENTRT_DELTA_TEXT}, std::string("a")));
  EXPECT_EQ(recorder.deltas[3].second, R"({"input_tokens":3,"output_tokens":4})");
  EXPECT_EQ(recorder.deltas[4].second, R"({"reason":"end_turn"})");
}

TEST_F(Fixture, SinkStopBecomesCancelled) {
  ASSERT_EQ(table->create(&host, "", 0, &instance, &error), AGENTRT_OK);
  recorder.stop_after = 2;
  EXPECT_EQ(complete("hello"), AGENTRT_ERR_CANCELLED);
  EXPECT_EQ(recorder.deltas.size(), 2u);
}

TEST_F(Fixture, ErrorKeepsCodeStatusAndRetryDelay) {
  ASSERT_EQ(table->create(&host, "", 0, &instance, &error), AGENTRT_OK);
  EXPECT_EQ(complete("rate-limited"), AGENTRT_ERR_UNAVAILABLE);
  EXPECT_EQ(error.code, AGENTRT_ERR_UNAVAILABLE);
  EXPECT_EQ(error.http_status, 429);
  EXPECT_EQ(error.retry_after_ms, 1500u);
  EXPECT_STREQ(error.message, "slow down");
}

TEST_F(Fixture, NonStandardThrowIsContained) {
  ASSERT_EQ(table->create(&host, "", 0, &instance, &error), AGENTRT_OK);
  EXPECT_EQ(complete("crash"), AGENTRT_ERR_INTERNAL);
  EXPECT_STREQ(error.message, "unknown exception");
}

TEST_F(Fixture, OutputsAndSecretsGoThroughTheHost) {
  ASSERT_EQ(table->create(&host, "", 0, &instance, &error), AGENTRT_OK);
  agentrt_output_t out;
  ASSERT_EQ(table->list_models(instance, &out, &error), AGENTRT_OK);
  EXPECT_EQ(out.data, "s3cret");
}

TEST(CppLayer, FinishReasonsAreEscapedIntoValidJson) {
  Recorder recorder;
  agentrt_sink_t raw{sizeof(agentrt_sink_t), 0,       &recorder, &record,
                     &never_cancelled,       nullptr, nullptr};
  agentrt::sdk::Sink sink(&raw);
  sink.finish("odd\"word\\with\ncontrol");
  ASSERT_EQ(recorder.deltas.size(), 1u);
  EXPECT_EQ(recorder.deltas[0].second, R"({"reason":"odd\"word\\with\u000acontrol"})");
}

TEST(CppLayer, JsonCallsMapExceptionsToCodes) {
  agentrt_host_api_t host = make_host();
  auto* d = agentrt::sdk::detail::descriptor<Store>("store", "1", "", 0);
  auto* table = static_cast<const agentrt_memory_vtable_t*>(d->vtable);
  agentrt_error_t error{sizeof(agentrt_error_t), 0, 0, 0, {}};
  void* instance = nullptr;
  ASSERT_EQ(table->create(&host, "{}", 2, &instance, &error), AGENTRT_OK);
  agentrt_output_t out;
  EXPECT_EQ(table->save(instance, "x", 1, &out, &error), AGENTRT_OK);
  EXPECT_EQ(out.data, "saved:x");
  EXPECT_EQ(table->get(instance, "x", 1, &out, &error), AGENTRT_ERR_NOT_FOUND);
  EXPECT_STREQ(error.message, "no entry");
  table->destroy(instance);
}

// set_waker (ABI 1.1) reaches a host that offers it, and says "no" to a 1.0 host,
// whose smaller sink has no such member to read.
int32_t host_set_waker(agentrt_sink_t* sink, void (*wake)(void*), void* ctx) {
  auto* seen = static_cast<std::pair<void (*)(void*), void*>*>(sink->ctx);
  *seen = {wake, ctx};
  return AGENTRT_OK;
}

void some_wake(void*) {}

TEST(CppLayer, SetWakerReachesA11HostAndNotA10One) {
  std::pair<void (*)(void*), void*> seen{nullptr, nullptr};
  int target = 0;
  agentrt_sink_t raw{sizeof(agentrt_sink_t), 0,      &seen, &record, &never_cancelled,
                     &host_set_waker,        nullptr};
  agentrt::sdk::Sink sink(&raw);
  EXPECT_TRUE(sink.set_waker(&some_wake, &target));
  EXPECT_EQ(seen.first, &some_wake);
  EXPECT_EQ(seen.second, &target);
  raw.struct_size = offsetof(agentrt_sink_t, set_waker);  // what a 1.0 host passes
  seen = {nullptr, nullptr};
  EXPECT_FALSE(sink.set_waker(&some_wake, &target));
  EXPECT_EQ(seen.first, nullptr) << "read past the end of a 1.0 sink";
}

const char* offered_vfs(agentrt_host_t*) {
  return "some-vfs";
}

TEST(CppLayer, SqliteVfsComesFromA13HostAndNotA12One) {
  agentrt_host_api_t raw = make_host();
  agentrt::sdk::Host host(&raw);
  EXPECT_EQ(host.sqlite_vfs(), nullptr) << "a 1.3 host that offers none";
  raw.sqlite_vfs = &offered_vfs;
  EXPECT_STREQ(host.sqlite_vfs(), "some-vfs");
  raw.struct_size = offsetof(agentrt_host_api_t, sqlite_vfs);  // what a 1.2 host passes
  EXPECT_EQ(host.sqlite_vfs(), nullptr) << "read past the end of a 1.2 host table";
}

}  // namespace

// ABI 1.2: a provider that does not override start() declines complete_async, so the
// host falls back to complete(); one that does ends the call through done() exactly
// once, with the error's code, status and retry delay intact.
namespace {

struct Ended {
  int calls = 0;
  int32_t status = -1;
  agentrt_error_t error{};
};

void record_done(agentrt_sink_t* sink, int32_t status, const agentrt_error_t* error) {
  auto* ended = static_cast<Ended*>(sink->ctx);
  ++ended->calls;
  ended->status = status;
  if (error) ended->error = *error;
}

int32_t ignore_delta(agentrt_sink_t*, uint32_t, const char*, size_t) {
  return 0;
}

// Ends every call at once, on the starting thread: enough to test the layer.
class Immediate : public agentrt::sdk::Provider {
 public:
  Immediate(const agentrt::sdk::Host&, const std::string&) {}
  void complete(const std::string&, agentrt::sdk::Sink&) override {}
  std::string list_models() override { return "{}"; }
  bool start(const std::string& request, agentrt::sdk::AsyncSink sink) override {
    if (request == "refuse") throw Error(AGENTRT_ERR_INVALID_ARGUMENT, "bad request");
    if (request == "fail")
      sink.fail(Error(AGENTRT_ERR_UNAVAILABLE, "overloaded", 503, 2000));
    else
      sink.succeed();
    return true;
  }
};

// An instance of provider T made through the C table the layer generates, destroyed
// with this.
template <class T>
struct Made {
  agentrt_host_api_t host = make_host();
  const agentrt_provider_vtable_t* table =
      static_cast<const agentrt_provider_vtable_t*>(agentrt::sdk::detail::vtable_for<T>());
  agentrt_error_t error{sizeof(agentrt_error_t), 0, 0, 0, {}};
  void* instance = nullptr;
  Made() { EXPECT_EQ(table->create(&host, "", 0, &instance, &error), AGENTRT_OK); }
  ~Made() {
    if (instance) table->destroy(instance);
  }
};

// A 1.2 sink that records how the call ended into `ended`.
agentrt_sink_t ending_sink(Ended& ended) {
  return {sizeof(agentrt_sink_t), 0,       &ended,      &ignore_delta,
          &never_cancelled,       nullptr, &record_done};
}

TEST(CppLayerAsync, ProviderWithoutStartDeclines) {
  Made<Scripted> made;
  ASSERT_NE(made.table->complete_async, nullptr);
  Ended ended;
  agentrt_sink_t sink = ending_sink(ended);
  EXPECT_EQ(made.table->complete_async(made.instance, "hi", 2, &sink, &made.error),
            AGENTRT_ERR_UNSUPPORTED);
  EXPECT_EQ(ended.calls, 0) << "a declined call is never ended";
}

TEST(CppLayerAsync, StartEndsThroughDoneOnce) {
  Made<Immediate> made;
  agentrt_error_t& error = made.error;
  auto start = [&](const std::string& request, Ended& ended) {
    agentrt_sink_t sink = ending_sink(ended);
    return made.table->complete_async(made.instance, request.data(), request.size(), &sink, &error);
  };
  Ended ok, failed, refused;
  EXPECT_EQ(start("hi", ok), AGENTRT_OK);
  EXPECT_EQ(ok.calls, 1);
  EXPECT_EQ(ok.status, AGENTRT_OK);

  EXPECT_EQ(start("fail", failed), AGENTRT_OK) << "it started; the failure comes through done";
  EXPECT_EQ(failed.calls, 1);
  EXPECT_EQ(failed.status, AGENTRT_ERR_UNAVAILABLE);
  EXPECT_EQ(failed.error.code, AGENTRT_ERR_UNAVAILABLE);
  EXPECT_EQ(failed.error.http_status, 503);
  EXPECT_EQ(failed.error.retry_after_ms, 2000u);
  EXPECT_STREQ(failed.error.message, "overloaded");

  EXPECT_EQ(start("refuse", refused), AGENTRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(refused.calls, 0) << "a call that did not start is never ended";
  EXPECT_STREQ(error.message, "bad request");
}

}  // namespace

// The engine's calls reach complete_borrowed and start_borrowed with the host's own
// bytes, not a copy; a provider that overrides only complete() and start() still gets
// its string (Scripted and Immediate above).
namespace {

class Borrowing : public agentrt::sdk::Provider {
 public:
  Borrowing(const agentrt::sdk::Host&, const std::string&) {}
  void complete(const std::string&, agentrt::sdk::Sink&) override { ADD_FAILURE() << "copied"; }
  bool start(const std::string&, agentrt::sdk::AsyncSink) override {
    ADD_FAILURE() << "copied";
    return false;
  }
  void complete_borrowed(std::string_view request, agentrt::sdk::Sink&) override { seen = request; }
  bool start_borrowed(std::string_view request, agentrt::sdk::AsyncSink sink) override {
    seen = request;
    sink.succeed();
    return true;
  }
  std::string list_models() override { return "{}"; }
  static inline std::string_view seen;
};

TEST(CppLayer, ProviderThatBorrowsSeesTheHostsBytes) {
  Made<Borrowing> made;
  const std::string request = R"({"model":"m","messages":[]})";
  Ended ended;
  agentrt_sink_t sink = ending_sink(ended);
  ASSERT_EQ(made.table->complete(made.instance, request.data(), request.size(), &sink, &made.error),
            AGENTRT_OK);
  EXPECT_EQ(Borrowing::seen.data(), request.data());
  EXPECT_EQ(Borrowing::seen.size(), request.size());
  Borrowing::seen = {};
  ASSERT_EQ(made.table->complete_async(made.instance, request.data(), 10, &sink, &made.error),
            AGENTRT_OK);
  EXPECT_EQ(Borrowing::seen.data(), request.data());
  EXPECT_EQ(Borrowing::seen.size(), 10u);
  EXPECT_EQ(ended.calls, 1);
}

}  // namespace
