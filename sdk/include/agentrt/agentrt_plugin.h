/*
 * agentrt plugin ABI, version 1.9 (1.0 plus appended members, each marked "Since").
 *
 * This header is the whole boundary between the agentrt engine (the host) and a
 * plugin shared library. It is plain C99, has no dependency beyond <stddef.h> and
 * <stdint.h>, and can only grow:
 *   - a released struct never changes a field's type or offset; new fields are
 *     appended and a minor version is added;
 *   - a changed function signature is added as a new `*_v2` member beside the old;
 *   - every struct that may grow begins with `struct_size`, so each side reads a
 *     field only when the other side's `struct_size` covers it
 *     (AGENTRT_HAS_FIELD below).
 *
 * Name prefixes: `agentrt_*_t` are types; the `agentrt_plugin_query` entry point and
 * the members of the per-kind vtables are what the plugin implements; the members of
 * `agentrt_host_api_t` and `agentrt_sink_t` are what the host implements.
 *
 * Ownership, everywhere unless a function says otherwise:
 *   - pointer inputs are borrowed for the duration of the call only;
 *   - variable-size outputs are copied through `host->output_write`, never returned
 *     as plugin-owned memory;
 *   - errors are written into a caller-owned `agentrt_error_t`;
 *   - an instance made by a vtable's `create` is freed only by that vtable's `destroy`.
 *
 * Rich data (config, requests, model lists, memory entries, auth claims) crosses as
 * UTF-8 JSON text with an explicit length, so new model parameters never change the ABI.
 * The JSON shapes are documented in docs/plugin-author-guide.md.
 */
#ifndef AGENTRT_PLUGIN_H
#define AGENTRT_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Versions ----------------------------------------------------------- */

#define AGENTRT_ABI_MAGIC 0x54524741u /* "AGRT" read as little-endian bytes */
#define AGENTRT_ABI_MAJOR 1
#define AGENTRT_ABI_MINOR 10
#define AGENTRT_ABI_VERSION_STRING "1.10"

/* The one symbol a plugin exports. */
#define AGENTRT_PLUGIN_QUERY_SYMBOL "agentrt_plugin_query"

/* True when a struct whose first member says it is `size` bytes long contains
 * `field` in full. Use it before reading any field added after 1.0. */
#define AGENTRT_HAS_FIELD(type, field, size) \
  (offsetof(type, field) + sizeof(((type*)0)->field) <= (size_t)(size))

#if defined(_WIN32)
#define AGENTRT_EXPORT __declspec(dllexport)
#else
#define AGENTRT_EXPORT __attribute__((visibility("default")))
#endif

/* ---- Status codes (int32_t) --------------------------------------------- */

#define AGENTRT_OK 0
#define AGENTRT_ERR_INVALID_ARGUMENT 1 /* the request or config is wrong; not retried */
#define AGENTRT_ERR_UNAUTHENTICATED 2  /* credentials missing or refused (upstream 401) */
#define AGENTRT_ERR_PERMISSION 3       /* credentials lack a right (upstream 403) */
#define AGENTRT_ERR_NOT_FOUND 4
#define AGENTRT_ERR_CONFLICT 5
#define AGENTRT_ERR_UNAVAILABLE 6 /* overloaded or down (429, 5xx); may be retried */
#define AGENTRT_ERR_TIMEOUT 7
#define AGENTRT_ERR_CANCELLED 8 /* the sink asked to stop */
#define AGENTRT_ERR_UPSTREAM 9  /* the upstream answered with something unusable */
#define AGENTRT_ERR_INTERNAL 10
#define AGENTRT_ERR_UNSUPPORTED 11 /* the instance does not offer this operation */
/* Since 1.4. From a provider's `complete` or `complete_async`: this instance cannot send
 * the request as it is (an image link to a model that takes only inline images), and
 * it has sent nothing upstream and reported nothing to the sink. The host then refuses
 * the client's request (400) and stores nothing of the run, so the request does not
 * stay in the session's history to fail every later run. An older host takes it as a
 * provider error. */
#define AGENTRT_ERR_REFUSED 12

/* ---- Plugin kinds (uint32_t) -------------------------------------------- */

#define AGENTRT_KIND_PROVIDER 1
#define AGENTRT_KIND_MEMORY_BACKEND 2
#define AGENTRT_KIND_AUTH 3
/* Since 1.9: tools the engine runs for a model (agentrt_tool_vtable_t). A host before
 * 1.9 refuses the plugin as of an unknown kind. */
#define AGENTRT_KIND_TOOL 4

/* ---- Descriptor flags (uint64_t) ---------------------------------------- */

/* The instance's functions may be called from several threads at once. Without it
 * the host serialises all calls into one instance. */
#define AGENTRT_FLAG_THREAD_SAFE 0x1u

/* ---- Log levels (uint32_t) ---------------------------------------------- */

#define AGENTRT_LOG_DEBUG 10
#define AGENTRT_LOG_INFO 20
#define AGENTRT_LOG_WARN 30
#define AGENTRT_LOG_ERROR 40

/* ---- Errors ------------------------------------------------------------- */

#define AGENTRT_ERROR_MESSAGE_CAPACITY 512

/* Caller-owned. The host zero-fills it and sets `struct_size` before each call; a
 * failing function sets `code` (equal to its return value), a NUL-terminated
 * `message` that never contains a secret, and, for upstream failures, the HTTP
 * status and the retry delay the upstream asked for. */
typedef struct agentrt_error_t {
  uint32_t struct_size;
  int32_t code;
  int32_t http_status;     /* upstream HTTP status, or 0 */
  uint32_t retry_after_ms; /* upstream's requested delay, or 0 */
  char message[AGENTRT_ERROR_MESSAGE_CAPACITY];
} agentrt_error_t;

/* ---- Host services ------------------------------------------------------ */

/* Opaque host-owned objects. */
typedef struct agentrt_host_t agentrt_host_t;
typedef struct agentrt_output_t agentrt_output_t;

/* Receives borrowed bytes; copy them before returning. */
typedef void (*agentrt_receive_fn)(void* user, const char* data, size_t len);

/* Implemented by the host, valid for the life of every instance it is handed to.
 * A plugin calls a member added after 1.0 only when AGENTRT_HAS_FIELD says the
 * host's table has it and the pointer is not NULL. Every member is thread-safe. */
typedef struct agentrt_host_api_t {
  uint32_t struct_size;
  uint16_t abi_major;
  uint16_t abi_minor;
  agentrt_host_t* host; /* passed back as the first argument of every callback */

  /* Writes one log line attributed to the calling plugin. `message` is borrowed.
   * Never pass a secret. */
  void (*log)(agentrt_host_t* host, uint32_t level, const char* message, size_t message_len);

  /* Resolves a credential reference, the JSON object {"source":"inline|env|file",
   * "value":"..."}, and hands the secret to `receive(user, secret, len)` once, during
   * this call; the secret is borrowed, so `receive` copies it. Returns AGENTRT_OK or an
   * error code with `error` filled; the message never contains the secret. */
  int32_t (*secret_lookup)(agentrt_host_t* host, const char* ref_json, size_t ref_json_len,
                           agentrt_receive_fn receive, void* user, agentrt_error_t* error);

  /* Appends `len` bytes to a host-owned output; the host copies them. Returns
   * AGENTRT_OK, or AGENTRT_ERR_INVALID_ARGUMENT when the output refuses more data. */
  int32_t (*output_write)(agentrt_output_t* out, const char* data, size_t len);

  /* Since 1.3, optional. The name of a SQLite VFS the host has registered in the
   * process's SQLite library, or NULL when it offers none. The string is host-owned
   * and lives as long as the process. agentd offers none (it returns NULL): its own
   * stores open with SQLite's default VFS, and a plugin's should too. A plugin that
   * is given a name may pass it to sqlite3_open_v2, after checking that
   * sqlite3_vfs_find() finds it: a plugin linked to a SQLite of its own will not, and
   * opens with its default VFS. */
  const char* (*sqlite_vfs)(agentrt_host_t* host);
} agentrt_host_api_t;

/* ---- Streaming sink (provider completions, tool calls) ------------------ */

/* Delta kinds (uint32_t). A host ignores a kind it does not know, so later minors
 * can add kinds (tool calls, reasoning) without breaking older hosts. */
#define AGENTRT_DELTA_TEXT 1   /* data: UTF-8 answer text fragment, whole characters */
#define AGENTRT_DELTA_USAGE 2  /* data: {"input_tokens":n,"output_tokens":n} */
#define AGENTRT_DELTA_FINISH 3 /* data: {"reason":"end_turn|max_tokens|tool_use|..."} */
/* Since 1.8. data: {"id","name","arguments"}: one tool call, complete (never a part of
 * one), in the order the model made it among the text fragments. `arguments` is the
 * JSON text the model wrote, as a string (not re-encoded, and not checked: a model may
 * write something that is not JSON); `id` is the vendor's, or "" when the vendor gives
 * none (the host makes one). A completion that ends because the model called tools
 * finishes with the reason "tool_use". Sent only when the request offered "tools". */
#define AGENTRT_DELTA_TOOL_CALL 4

/* Host-owned. Handed to `complete` (or, since 1.9, to a tool's `call`), it is valid
 * only during that call, on the thread that made the call. Handed to `complete_async` (since 1.2),
 * it is valid until the plugin's call of `done` returns, and the plugin calls its members from
 * threads of its own, never two at once for one sink. */
typedef struct agentrt_sink_t {
  uint32_t struct_size;
  uint32_t reserved;
  void* ctx; /* host's own state; the plugin passes the sink, never reads ctx */

  /* Reports one delta; `data` is borrowed. A non-zero return means "stop": the
   * plugin ends the upstream call promptly and returns AGENTRT_ERR_CANCELLED. */
  int32_t (*emit)(struct agentrt_sink_t* sink, uint32_t delta_kind, const char* data, size_t len);

  /* Non-zero once the host wants the call to stop (client gone, interrupt,
   * shutdown). Cheap; poll it while waiting on the upstream, at least every 100 ms. */
  int32_t (*is_cancelled)(const struct agentrt_sink_t* sink);

  /* Since 1.1 (check with AGENTRT_HAS_FIELD): instead of waking every 100 ms to poll
   * is_cancelled, a plugin may register `wake`, which the host then calls, from any
   * thread and possibly more than once, whenever is_cancelled may have changed; the
   * plugin then checks is_cancelled at least once a second (the host's keep-alives
   * and client checks ride on that call). Returns AGENTRT_OK when the host will call
   * it. Register NULL before whatever `wake_ctx` points to goes away: once that call
   * returns, `wake` is not running and will not be called. A thousand idle streams
   * polled every 25 ms cost a core in thread switches alone. */
  int32_t (*set_waker)(struct agentrt_sink_t* sink, void (*wake)(void* wake_ctx), void* wake_ctx);

  /* Since 1.2, set only on a sink handed to `complete_async`: ends that call. The
   * plugin calls it exactly once, after the call's last emit and after unregistering
   * its waker, with what `complete` would have returned: AGENTRT_OK, or an error code
   * and `error` filled as `complete` fills it (borrowed for the call). The sink may
   * be gone as soon as `done` returns. */
  void (*done)(struct agentrt_sink_t* sink, int32_t status, const agentrt_error_t* error);
} agentrt_sink_t;

/* ---- Common shape of every kind's function table ------------------------ */

/* `create` receives the host table and the plugin's config object as JSON (for a
 * provider, also the "models" it must serve; for an auth module or a memory backend,
 * also the "data_dir"). On success it stores a new instance in `*instance` and returns
 * AGENTRT_OK.
 * Since 1.6, an auth module's config may carry "guest": true: the host is a short-lived
 * tool beside a serving agentd (agentd admin-token), which may be an older build. Use
 * the stores as they are: change no schema (fail, naming the store, when one needs an
 * upgrade), start no background work, write nothing but what the calls ask for.
 * Since 1.7, an auth module's or memory backend's config carries "cursor_key" (32 hex
 * digits), the data dir's secret for list cursors, the same at every start: seal the
 * positions a list hands out as cursors with it (agentrt/cursor_seal.hpp), so that a
 * cursor does not tell how many rows others wrote between two pages. */
typedef int32_t (*agentrt_create_fn)(const agentrt_host_api_t* host, const char* config_json,
                                     size_t config_json_len, void** instance,
                                     agentrt_error_t* error);
typedef void (*agentrt_destroy_fn)(void* instance);

/* One JSON request in, one JSON document out through `out`. */
typedef int32_t (*agentrt_json_call_fn)(void* instance, const char* request_json,
                                        size_t request_json_len, agentrt_output_t* out,
                                        agentrt_error_t* error);

/* ---- Provider ------------------------------------------------------------ */

typedef struct agentrt_provider_vtable_t {
  uint32_t struct_size;
  uint32_t reserved;
  agentrt_create_fn create;   /* required */
  agentrt_destroy_fn destroy; /* required */

  /* Runs one completion. `request_json` is {"model","messages":[{"role","content":
   * [parts]}],"max_tokens"?,...}. Blocks the calling thread and reports deltas
   * through `sink` on that same thread. Returns AGENTRT_OK after the final delta, or
   * an error code (AGENTRT_ERR_CANCELLED when the sink stopped it). Required.
   * Since 1.8, a plugin built for 1.8 or later may be sent tools: "tools":[{"name",
   * "description"?,"parameters"}], "tool_choice" ("auto", "none", "required" or
   * {"type":"tool","name"}), assistant parts {"type":"tool_call","id","name",
   * "arguments"} and messages of role "tool" whose parts are {"type":"tool_result",
   * "tool_call_id","output","is_error"?}. A plugin built before 1.8 is sent none of
   * them (docs/plugin-author-guide.md says what it gets instead).
   * Since 1.10, a plugin built for 1.10 or later may be sent "top_p" (0 to 1),
   * "presence_penalty" and "frequency_penalty" (-2 to 2), "seed" (an integer), "stop"
   * (an array of strings) and, beside "tools", "parallel_tool_calls" (a boolean), each
   * only when the client set it; pass on those the vendor has, ignore the others. */
  int32_t (*complete)(void* instance, const char* request_json, size_t request_json_len,
                      agentrt_sink_t* sink, agentrt_error_t* error);

  /* Writes {"models":[{"id","context_window","supports_vision"}]}: what the
   * instance serves. Required. Since 1.8 a model may say "supports_tools" (absent:
   * true for a plugin built for 1.8 or later, false for an older one). */
  int32_t (*list_models)(void* instance, agentrt_output_t* out, agentrt_error_t* error);

  /* Since 1.2, optional (NULL, or AGENTRT_ERR_UNSUPPORTED: the host calls `complete`
   * instead, for this and every later call of the instance). Starts the same
   * completion as `complete` and returns without waiting for it. AGENTRT_OK means it
   * started: the plugin then drives it from threads of its own, reports deltas
   * through `sink` exactly as `complete` would, and ends it with one `sink->done`.
   * Any other status means nothing started: `error` is filled and `done` is never
   * called. The host passes only sinks whose `done` is set, and
   * never destroys the instance from inside one of the call's sink callbacks (they
   * run on the plugin's thread, which `destroy` may have to wait for).
   * Why: a blocked thread per call costs a sleep and a wake-up per streamed delta;
   * one plugin thread waiting on many upstream sockets at once pays that once for
   * all the deltas that arrived together. */
  int32_t (*complete_async)(void* instance, const char* request_json, size_t request_json_len,
                            agentrt_sink_t* sink, agentrt_error_t* error);
} agentrt_provider_vtable_t;

/* ---- Tool (since 1.9) ------------------------------------------------------ */

/* A tool plugin's instance is one tool server: the tools of one MCP server, or of a
 * native library, with the config of one `tool_servers` entry (docs/plugin-author-
 * guide.md). The host offers its tools to models and runs their calls. */
typedef struct agentrt_tool_vtable_t {
  uint32_t struct_size;
  uint32_t reserved;
  agentrt_create_fn create;   /* required */
  agentrt_destroy_fn destroy; /* required */

  /* Writes {"tools":[{"name","description"?,"parameters"}]}: the tools the instance
   * offers now, `parameters` the JSON Schema object of a call's arguments. The host
   * asks before each run that may use them, so a plugin whose list can change (an MCP
   * server's list_changed) answers from its own up-to-date copy, without a round trip
   * each time. Required. */
  int32_t (*list_tools)(void* instance, agentrt_output_t* out, agentrt_error_t* error);

  /* Runs one call: `request_json` is {"name","arguments":{...},"call_id",
   * "max_output_bytes"}. Blocks the calling thread; reports the result's text through
   * `sink` as AGENTRT_DELTA_TEXT fragments (at most max_output_bytes in all: cut the
   * rest, and say so in the text), and, when the tool ran but reports a failure (an MCP
   * result with isError), AGENTRT_DELTA_FINISH {"is_error":true} after them. Returns
   * AGENTRT_OK once the result is whole, or an error code with `error` filled when the
   * tool could not be run (server down, malformed answer: the host hands the model the
   * message as an error result), AGENTRT_ERR_CANCELLED when the sink stopped it. The
   * host owns timeouts: it cancels through the sink, and the plugin then stops the call
   * at its server (MCP notifications/cancelled, a signal) before it returns. Several
   * calls may run at once when the plugin is thread-safe. Required. */
  int32_t (*call)(void* instance, const char* request_json, size_t request_json_len,
                  agentrt_sink_t* sink, agentrt_error_t* error);

  /* Optional (NULL, or AGENTRT_ERR_UNSUPPORTED). {} -> {}: AGENTRT_OK when the tool
   * server answers now, else an error code saying why. GET /admin/tool-servers shows
   * it as the server's health. */
  agentrt_json_call_fn probe;
} agentrt_tool_vtable_t;

/* ---- Memory backend ----------------------------------------------------- */

/* Every operation takes one JSON request and writes one JSON answer. Every request
 * carries "cell"; the backend scopes every statement by it. Shapes are in the plugin
 * author guide. All members of 1.0 are required. */
typedef struct agentrt_memory_vtable_t {
  uint32_t struct_size;
  uint32_t reserved;
  agentrt_create_fn create;
  agentrt_destroy_fn destroy;
  agentrt_json_call_fn save; /* entry in, stored entry out */
  agentrt_json_call_fn get;  /* {"cell","id",filters} -> entry */
  /* filters, limit, cursor, and since 1.5 "max_tokens"?: leave out entries whose token
   * estimate is larger -> {"data","next_cursor"} */
  agentrt_json_call_fn list;
  agentrt_json_call_fn remove;      /* {"cell","id",filters} -> {"deleted":n} */
  agentrt_json_call_fn clear_layer; /* {"cell","layer",filters} -> {"deleted":n} */
  /* filters -> {"<layer>":n,...}. Optional "cache_s": the host may reuse the counts
   * of the same filters for that many seconds (at most 300) as long as it sends the
   * cell no write (save, remove, clear_layer, delete_by_session) meanwhile; set it
   * only if nothing but this host writes the store. Absent or 0: count every time. */
  agentrt_json_call_fn count;
  agentrt_json_call_fn search; /* {"cell","query",...} -> {"data":[...]} */
  /* {"cell","session_id"} -> {"deleted":n}: the session layer's entries of that
   * session, whoever wrote them; entries of other layers naming it stay. */
  agentrt_json_call_fn delete_by_session;
  /* Since 1.5, optional (NULL, or AGENTRT_ERR_UNSUPPORTED: the host counts the
   * instance as failing from a call that fails with AGENTRT_ERR_INTERNAL,
   * _UNAVAILABLE or _TIMEOUT until a call succeeds). {} -> {}: AGENTRT_OK when the
   * store can take a write now, else an error code with `error` saying why. The host
   * calls it only after a call of the instance failed so, from GET /health, at most
   * once a second, until it passes; /health reports storage unusable meanwhile. It
   * writes, since a full disk is found by writing; it fails while the store is known
   * damaged; it does not wait on locks: a store that is only busy is usable. */
  agentrt_json_call_fn probe;
} agentrt_memory_vtable_t;

/* ---- Auth ---------------------------------------------------------------- */

/* The auth module owns credentials. All members of 1.0 are required. */
typedef struct agentrt_auth_vtable_t {
  uint32_t struct_size;
  uint32_t reserved;
  agentrt_create_fn create;
  agentrt_destroy_fn destroy;
  /* {"token"} -> claims {"token_id","actor","cell"|null,"admin","expires_at"};
   * AGENTRT_ERR_UNAUTHENTICATED for an unknown, expired or revoked token. Optional
   * claim "cache_s": the host may reuse the claims
   * for that many seconds (at most 300) without calling verify, dropping them when it
   * revokes the token or its cell; set it only if nothing but this host's revoke can
   * end a token early, and never past its expiry. Absent or 0: verify every call. */
  agentrt_json_call_fn verify;
  /* {"ttl_s","actor","cell"?,"admin"} -> record including the secret "token". */
  agentrt_json_call_fn issue;
  agentrt_json_call_fn list;   /* {} -> {"data":[records without secrets]} */
  agentrt_json_call_fn revoke; /* {"id"} -> {"revoked":true} or NOT_FOUND */
  /* Since 1.5, optional: as the memory backend's `probe`. */
  agentrt_json_call_fn probe;
} agentrt_auth_vtable_t;

/* ---- Descriptor ------------------------------------------------------------ */

/* Returned by the entry point. Static, immutable, padding-free; the host checks
 * `magic`, `abi_major` and `struct_size` before it reads anything else. */
typedef struct agentrt_plugin_descriptor_t {
  uint32_t magic;       /* AGENTRT_ABI_MAGIC */
  uint16_t abi_major;   /* AGENTRT_ABI_MAJOR the plugin was built with */
  uint16_t abi_minor;   /* AGENTRT_ABI_MINOR the plugin was built with */
  uint32_t struct_size; /* sizeof(agentrt_plugin_descriptor_t) as the plugin saw it */
  uint32_t kind;        /* AGENTRT_KIND_* */
  const char* name;     /* [a-z0-9_-]{1,63}; unique among loaded plugins */
  const char* version;  /* the plugin's own version, e.g. "1.2.0" */
  const char* description;
  uint64_t flags;     /* AGENTRT_FLAG_* */
  const void* vtable; /* agentrt_{provider,memory,auth,tool}_vtable_t per `kind` */
} agentrt_plugin_descriptor_t;

/* The entry point: no side effects, callable any number of times, from any thread.
 * Real work starts in the vtable's `create`. */
typedef const agentrt_plugin_descriptor_t* (*agentrt_plugin_query_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AGENTRT_PLUGIN_H */
