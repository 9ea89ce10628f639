// Header-only C++17 layer over agentrt_plugin.h for plugin authors.
//
// Derive from agentrt::sdk::Provider, MemoryBackend, Auth or Tool, give the class a
// constructor `T(const agentrt::sdk::Host&, const std::string& config_json)`, and write
// once, in one source file:
//
//   AGENTRT_PLUGIN(MyProvider, "my-provider", "1.0.0", "what it does",
//                  AGENTRT_FLAG_THREAD_SAFE)
//
// The macro emits the single exported entry symbol and a table of noexcept
// trampolines: any exception thrown by the class becomes an agentrt_error_t and never
// crosses the C boundary. Throw agentrt::sdk::Error to choose the status code.
#ifndef AGENTRT_PLUGIN_HPP
#define AGENTRT_PLUGIN_HPP

#include <agentrt/agentrt_plugin.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace agentrt::sdk {

// An error with an ABI status code; `message` must never contain a secret.
class Error : public std::runtime_error {
 public:
  Error(int32_t code, const std::string& message, int32_t http_status = 0,
        uint32_t retry_after_ms = 0)
      : std::runtime_error(message),
        code_(code),
        http_status_(http_status),
        retry_after_ms_(retry_after_ms) {}
  int32_t code() const noexcept { return code_; }
  int32_t http_status() const noexcept { return http_status_; }
  uint32_t retry_after_ms() const noexcept { return retry_after_ms_; }

 private:
  int32_t code_;
  int32_t http_status_;
  uint32_t retry_after_ms_;
};

// The host's services. Cheap to copy; valid for the life of the instance.
class Host {
 public:
  explicit Host(const agentrt_host_api_t* api) : api_(api) {}

  void log(uint32_t level, std::string_view message) const {
    if (api_ && api_->log) api_->log(api_->host, level, message.data(), message.size());
  }

  // Resolves {"source","value"} to the secret; throws Error on failure.
  std::string secret(std::string_view ref_json) const;

  // Copies `data` into a host-owned output.
  void write(agentrt_output_t* out, std::string_view data) const {
    if (api_->output_write(out, data.data(), data.size()) != AGENTRT_OK)
      throw Error(AGENTRT_ERR_INTERNAL, "host refused output");
  }

  // The SQLite VFS the host offers its plugins (ABI 1.3), or nullptr: an older host,
  // or one that offers none.
  const char* sqlite_vfs() const noexcept {
    if (!api_ || !AGENTRT_HAS_FIELD(agentrt_host_api_t, sqlite_vfs, api_->struct_size) ||
        !api_->sqlite_vfs)
      return nullptr;
    return api_->sqlite_vfs(api_->host);
  }

  const agentrt_host_api_t* api() const noexcept { return api_; }

 private:
  const agentrt_host_api_t* api_;
};

// The stream a completion reports into. Each call returns false once the host wants
// the completion to stop; the provider then returns promptly (throwing
// Error(AGENTRT_ERR_CANCELLED, ...) is the simplest way).
class Sink {
 public:
  explicit Sink(agentrt_sink_t* sink) : sink_(sink) {}
  bool text(std::string_view fragment) { return emit(AGENTRT_DELTA_TEXT, fragment); }
  bool usage(int64_t input_tokens, int64_t output_tokens) {
    char buf[96];
    int n =
        std::snprintf(buf, sizeof buf, "{\"input_tokens\":%lld,\"output_tokens\":%lld}",
                      static_cast<long long>(input_tokens), static_cast<long long>(output_tokens));
    return emit(AGENTRT_DELTA_USAGE, std::string_view(buf, static_cast<size_t>(n)));
  }
  bool finish(std::string_view reason) {
    // The reason is the vendor's word: escaped, so that any word stays valid JSON.
    std::string json = "{\"reason\":";
    append_string(json, reason);
    json += '}';
    return emit(AGENTRT_DELTA_FINISH, json);
  }
  // One complete tool call (ABI 1.8): `arguments` is the model's JSON text as it wrote
  // it; `id` the vendor's, or empty. An older host ignores the delta.
  bool tool_call(std::string_view id, std::string_view name, std::string_view arguments) {
    std::string json = "{\"arguments\":";
    append_string(json, arguments);
    json += ",\"id\":";
    append_string(json, id);
    json += ",\"name\":";
    append_string(json, name);
    json += '}';
    return emit(AGENTRT_DELTA_TOOL_CALL, json);
  }
  // `text`, which must be UTF-8, as a JSON string: quotes, backslashes and control
  // bytes escaped.
  static void append_string(std::string& json, std::string_view text) {
    json += '"';
    for (char c : text) {
      if (c == '"' || c == '\\') {
        json += '\\';
        json += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
        json += escaped;
      } else {
        json += c;
      }
    }
    json += '"';
  }
  bool cancelled() const { return sink_->is_cancelled(sink_) != 0; }
  // Asks the host to call `wake(ctx)` whenever cancelled() may have changed (ABI 1.1);
  // false when this host cannot, and then cancelled() must be polled every 100 ms.
  // Pass nullptr to unregister before `ctx` goes away.
  bool set_waker(void (*wake)(void*), void* ctx) {
    if (!AGENTRT_HAS_FIELD(agentrt_sink_t, set_waker, sink_->struct_size) ||
        sink_->set_waker == nullptr)
      return false;
    return sink_->set_waker(sink_, wake, ctx) == AGENTRT_OK;
  }
  bool emit(uint32_t kind, std::string_view data) {
    return sink_->emit(sink_, kind, data.data(), data.size()) == 0;
  }

 private:
  agentrt_sink_t* sink_;
};

// The sink of a completion started through Provider::start (ABI 1.2 complete_async):
// it stays valid until the call ends with succeed() or fail(), exactly one of them,
// called once, after the last delta and after any waker is unregistered. Copyable;
// every copy is the same sink.
class AsyncSink : public Sink {
 public:
  explicit AsyncSink(agentrt_sink_t* sink) : Sink(sink), raw_(sink) {}
  void succeed() { raw_->done(raw_, AGENTRT_OK, nullptr); }
  void fail(const Error& e) {
    agentrt_error_t error{};
    error.struct_size = sizeof error;
    error.code = e.code() == AGENTRT_OK ? AGENTRT_ERR_INTERNAL : e.code();
    error.http_status = e.http_status();
    error.retry_after_ms = e.retry_after_ms();
    std::snprintf(error.message, sizeof error.message, "%s", e.what());
    raw_->done(raw_, error.code, &error);
  }

 private:
  agentrt_sink_t* raw_;
};

// The sink of a tool call (ABI 1.9): the result's text through text(), in as many
// fragments as suit, and failed() when the tool ran but reports a failure.
class ToolSink : public Sink {
 public:
  using Sink::Sink;
  bool failed() { return emit(AGENTRT_DELTA_FINISH, "{\"is_error\":true}"); }
};

// Base classes: one per plugin kind. JSON shapes are in docs/plugin-author-guide.md.
class Provider {
 public:
  virtual ~Provider() = default;
  virtual void complete(const std::string& request_json, Sink& sink) = 0;
  virtual std::string list_models() = 0;
  // Optional (ABI 1.2): starts the completion complete() would run and returns at
  // once; the provider's own threads then report into `sink` and end it. Returns
  // false when this instance cannot, and the host calls complete() instead. Throws
  // only before anything started (the call then failed and `sink` is never ended).
  virtual bool start(const std::string& request_json, AsyncSink sink) {
    (void)request_json;
    (void)sink;
    return false;
  }
  // What the engine's calls reach: the same two with the request borrowed, valid only
  // until the call returns. By default they copy it into a string and call the two
  // above. A provider that reads the request where it lies overrides these and
  // spares a copy of every request, which for a long conversation is hundreds of KB;
  // it still defines complete(), which may then just call complete_borrowed().
  virtual void complete_borrowed(std::string_view request_json, Sink& sink) {
    complete(std::string(request_json), sink);
  }
  virtual bool start_borrowed(std::string_view request_json, AsyncSink sink) {
    return start(std::string(request_json), sink);
  }
};

class MemoryBackend {
 public:
  virtual ~MemoryBackend() = default;
  virtual std::string save(const std::string& request_json) = 0;
  virtual std::string get(const std::string& request_json) = 0;
  virtual std::string list(const std::string& request_json) = 0;
  virtual std::string remove(const std::string& request_json) = 0;
  virtual std::string clear_layer(const std::string& request_json) = 0;
  virtual std::string count(const std::string& request_json) = 0;
  virtual std::string search(const std::string& request_json) = 0;
  virtual std::string delete_by_session(const std::string& request_json) = 0;
  // Optional (ABI 1.5): throws when the store cannot take a write now (see the C
  // header's `probe`); GET /health calls it after a call of the instance failed.
  virtual std::string probe(const std::string& request_json) {
    (void)request_json;
    throw Error(AGENTRT_ERR_UNSUPPORTED, "this store has no probe");
  }
};

class Auth {
 public:
  virtual ~Auth() = default;
  virtual std::string verify(const std::string& request_json) = 0;
  virtual std::string issue(const std::string& request_json) = 0;
  virtual std::string list(const std::string& request_json) = 0;
  virtual std::string revoke(const std::string& request_json) = 0;
  // Optional (ABI 1.5): throws when the store cannot take a write now (see the C
  // header's `probe`); GET /health calls it after a call of the instance failed.
  virtual std::string probe(const std::string& request_json) {
    (void)request_json;
    throw Error(AGENTRT_ERR_UNSUPPORTED, "this store has no probe");
  }
};

// A tool server (ABI 1.9): list_tools() answers {"tools":[{"name","description"?,
// "parameters"}]}; call() runs {"name","arguments","call_id","max_output_bytes"},
// reporting into `sink`, and throws Error when the tool could not be run
// (AGENTRT_ERR_CANCELLED once sink.cancelled()).
class Tool {
 public:
  virtual ~Tool() = default;
  virtual std::string list_tools() = 0;
  virtual void call(const std::string& request_json, ToolSink& sink) = 0;
  // Optional: throws when the tool server does not answer now.
  virtual std::string probe(const std::string& request_json) {
    (void)request_json;
    throw Error(AGENTRT_ERR_UNSUPPORTED, "this tool server has no probe");
  }
};

namespace detail {

inline int32_t fail(agentrt_error_t* error, int32_t code, const char* message) noexcept {
  if (error) {
    error->code = code;
    std::snprintf(error->message, sizeof error->message, "%s", message);
  }
  return code;
}

// Runs `body`, turning every exception into a status code and message.
template <class Body>
int32_t guarded(agentrt_error_t* error, Body&& body) noexcept {
  try {
    body();
    return AGENTRT_OK;
  } catch (const Error& e) {
    if (error) {
      error->http_status = e.http_status();
      error->retry_after_ms = e.retry_after_ms();
    }
    return fail(error, e.code() == AGENTRT_OK ? AGENTRT_ERR_INTERNAL : e.code(), e.what());
  } catch (const std::exception& e) {
    return fail(error, AGENTRT_ERR_INTERNAL, e.what());
  } catch (...) {
    return fail(error, AGENTRT_ERR_INTERNAL, "unknown exception");
  }
}

// What `create` makes: the host handle beside the author's object.
template <class T>
struct Instance {
  Host host;
  T impl;
  Instance(const agentrt_host_api_t* api, const std::string& config)
      : host(api), impl(host, config) {}
};

template <class T>
T& impl(void* instance) {
  return static_cast<Instance<T>*>(instance)->impl;
}

// Through the base, where the borrowed calls are declared: a class that declares only
// complete(const std::string&) hides them from lookup in its own scope.
template <class T>
Provider& as_provider(void* instance) {
  return impl<T>(instance);
}

template <class T>
int32_t create(const agentrt_host_api_t* api, const char* config, size_t len, void** instance,
               agentrt_error_t* error) noexcept {
  return guarded(error, [&] {
    *instance = new Instance<T>(api, std::string(config ? config : "", config ? len : 0));
  });
}

template <class T>
void destroy(void* instance) noexcept {
  try {
    delete static_cast<Instance<T>*>(instance);
  } catch (...) {  // a destructor that throws must not cross the boundary either
  }
}

// Adapts a `std::string method(const std::string&)` member to agentrt_json_call_fn.
template <class T, std::string (T::*Method)(const std::string&)>
int32_t json_call(void* instance, const char* request, size_t len, agentrt_output_t* out,
                  agentrt_error_t* error) noexcept {
  return guarded(error, [&] {
    auto* self = static_cast<Instance<T>*>(instance);
    self->host.write(out, (self->impl.*Method)(std::string(request, len)));
  });
}

// The same for `probe`, which most classes inherit: called through their base, since a
// pointer to the base's member is no template argument of json_call<T, ...>.
template <class T, class Base>
int32_t probe_call(void* instance, const char* request, size_t len, agentrt_output_t* out,
                   agentrt_error_t* error) noexcept {
  return guarded(error, [&] {
    auto* self = static_cast<Instance<T>*>(instance);
    Base& base = self->impl;
    self->host.write(out, base.probe(std::string(request, len)));
  });
}

template <class T>
const void* vtable_for() noexcept {
  if constexpr (std::is_base_of_v<Provider, T>) {
    static const agentrt_provider_vtable_t table = {
        sizeof(agentrt_provider_vtable_t),
        0,
        &create<T>,
        &destroy<T>,
        [](void* instance, const char* request, size_t len, agentrt_sink_t* sink,
           agentrt_error_t* error) noexcept {
          return guarded(error, [&] {
            Sink wrapped(sink);
            as_provider<T>(instance).complete_borrowed(std::string_view(request, len), wrapped);
          });
        },
        [](void* instance, agentrt_output_t* out, agentrt_error_t* error) noexcept {
          return guarded(error, [&] {
            auto* self = static_cast<Instance<T>*>(instance);
            self->host.write(out, self->impl.list_models());
          });
        },
        [](void* instance, const char* request, size_t len, agentrt_sink_t* sink,
           agentrt_error_t* error) noexcept {
          bool started = false;
          int32_t rc = guarded(error, [&] {
            started = as_provider<T>(instance).start_borrowed(std::string_view(request, len),
                                                              AsyncSink(sink));
          });
          if (rc != AGENTRT_OK || started) return rc;
          return fail(error, AGENTRT_ERR_UNSUPPORTED, "this provider completes synchronously");
        }};
    return &table;
  } else if constexpr (std::is_base_of_v<MemoryBackend, T>) {
    static const agentrt_memory_vtable_t table = {sizeof(agentrt_memory_vtable_t),
                                                  0,
                                                  &create<T>,
                                                  &destroy<T>,
                                                  &json_call<T, &T::save>,
                                                  &json_call<T, &T::get>,
                                                  &json_call<T, &T::list>,
                                                  &json_call<T, &T::remove>,
                                                  &json_call<T, &T::clear_layer>,
                                                  &json_call<T, &T::count>,
                                                  &json_call<T, &T::search>,
                                                  &json_call<T, &T::delete_by_session>,
                                                  &probe_call<T, MemoryBackend>};
    return &table;
  } else if constexpr (std::is_base_of_v<Tool, T>) {
    static const agentrt_tool_vtable_t table = {
        sizeof(agentrt_tool_vtable_t),
        0,
        &create<T>,
        &destroy<T>,
        [](void* instance, agentrt_output_t* out, agentrt_error_t* error) noexcept {
          return guarded(error, [&] {
            auto* self = static_cast<Instance<T>*>(instance);
            self->host.write(out, self->impl.list_tools());
          });
        },
        [](void* instance, const char* request, size_t len, agentrt_sink_t* sink,
           agentrt_error_t* error) noexcept {
          return guarded(error, [&] {
            ToolSink wrapped(sink);
            impl<T>(instance).call(std::string(request, len), wrapped);
          });
        },
        &probe_call<T, Tool>};
    return &table;
  } else {
    static_assert(std::is_base_of_v<Auth, T>,
                  "a plugin class derives from Provider, MemoryBackend, Auth or Tool");
    static const agentrt_auth_vtable_t table = {sizeof(agentrt_auth_vtable_t),
                                                0,
                                                &create<T>,
                                                &destroy<T>,
                                                &json_call<T, &T::verify>,
                                                &json_call<T, &T::issue>,
                                                &json_call<T, &T::list>,
                                                &json_call<T, &T::revoke>,
                                                &probe_call<T, Auth>};
    return &table;
  }
}

template <class T>
constexpr uint32_t kind_of() noexcept {
  if constexpr (std::is_base_of_v<Provider, T>) return AGENTRT_KIND_PROVIDER;
  if constexpr (std::is_base_of_v<MemoryBackend, T>) return AGENTRT_KIND_MEMORY_BACKEND;
  if constexpr (std::is_base_of_v<Tool, T>) return AGENTRT_KIND_TOOL;
  return AGENTRT_KIND_AUTH;
}

template <class T>
const agentrt_plugin_descriptor_t* descriptor(const char* name, const char* version,
                                              const char* description, uint64_t flags) noexcept {
  static const agentrt_plugin_descriptor_t d = {AGENTRT_ABI_MAGIC,
                                                AGENTRT_ABI_MAJOR,
                                                AGENTRT_ABI_MINOR,
                                                sizeof(agentrt_plugin_descriptor_t),
                                                kind_of<T>(),
                                                name,
                                                version,
                                                description,
                                                flags,
                                                vtable_for<T>()};
  return &d;
}

}  // namespace detail

inline std::string Host::secret(std::string_view ref_json) const {
  if (!api_->secret_lookup) throw Error(AGENTRT_ERR_UNSUPPORTED, "host has no secret lookup");
  std::string value;
  agentrt_error_t error{};
  error.struct_size = sizeof error;
  auto receive = [](void* user, const char* data, size_t len) {
    static_cast<std::string*>(user)->assign(data, len);
  };
  int32_t rc =
      api_->secret_lookup(api_->host, ref_json.data(), ref_json.size(), receive, &value, &error);
  if (rc != AGENTRT_OK) throw Error(rc, error.message);
  return value;
}

}  // namespace agentrt::sdk

// Emits the plugin's one exported symbol. Use it exactly once per plugin.
#define AGENTRT_PLUGIN(Class, Name, Version, Description, Flags)                            \
  extern "C" AGENTRT_EXPORT const agentrt_plugin_descriptor_t* agentrt_plugin_query(void) { \
    return ::agentrt::sdk::detail::descriptor<Class>(Name, Version, Description, Flags);    \
  }

#endif  // AGENTRT_PLUGIN_HPP
