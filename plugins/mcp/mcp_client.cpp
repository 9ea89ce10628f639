#include "mcp/mcp_client.h"

#include "mcp/http_transport.h"
#include "mcp/result_text.h"
#include "mcp/stdio_transport.h"

#include <cctype>
#include <set>

namespace agentrt::mcp {
namespace {

using nlohmann::json;
using sdk::Error;
using std::chrono::milliseconds;

constexpr const char* kProtocolVersion = "2025-06-18";
constexpr size_t kDefaultMaxOutput = 100000;

// "YYYY-MM-DD" versions compare as text; anything else is no version we know.
bool accepted_version(const std::string& v) {
  if (v.size() != 10 || v[4] != '-' || v[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isdigit(static_cast<unsigned char>(v[i]))) return false;
  return v == "2025-03-26" || v >= kProtocolVersion;
}

std::string error_text(const json& error) {
  std::string code = error.contains("code") ? error["code"].dump() : "?";
  std::string message = error.contains("message") && error["message"].is_string()
                            ? error["message"].get<std::string>()
                            : std::string("(no message)");
  return "mcp error " + code + ": " + message.substr(0, 1000);
}

// Unregisters the host's waker before the call's stack goes.
struct WakerGuard {
  sdk::ToolSink& sink;
  bool registered;
  ~WakerGuard() {
    if (registered) sink.set_waker(nullptr, nullptr);
  }
};

// A streamable HTTP server may forget its session (404): the transport then says so,
// and the second try's connect() initializes a new session. Once only.
template <class Fn>
auto retry_expired_session(Fn fn) {
  try {
    return fn();
  } catch (const Error& e) {
    if (std::string(e.what()) != "mcp session expired") throw;
  }
  return fn();
}

}  // namespace

McpClient::McpClient(McpConfig config, const sdk::Host& host)
    : config_(std::move(config)), host_(host) {}

McpClient::~McpClient() {
  std::lock_guard<std::mutex> lock(transport_mutex_);
  transport_.reset();
}

milliseconds McpClient::setup_timeout() const {
  return std::min(config_.timeout, milliseconds(15000));
}

std::shared_ptr<Transport> McpClient::open_transport() {
  auto notify = [this](const json& message) { on_notification(message); };
  if (!config_.url.empty())
    return std::make_shared<HttpTransport>(config_.url, config_.headers, notify);
  return std::make_shared<StdioTransport>(config_.child, host_, config_.name, notify);
}

std::shared_ptr<Transport> McpClient::connect(const CancelCheck& cancelled) {
  std::unique_lock<std::timed_mutex> connecting(connect_mutex_, std::defer_lock);
  while (!connecting.try_lock_for(milliseconds(50)))
    if (cancelled && cancelled())
      throw Error(AGENTRT_ERR_CANCELLED, "cancelled while the mcp server was being connected");
  {
    std::lock_guard<std::mutex> lock(transport_mutex_);
    if (transport_ && transport_->usable()) return transport_;
  }
  std::shared_ptr<Transport> fresh = open_transport();
  initialize(*fresh, cancelled);
  tools_stale_ = true;  // a new connection may be a new server version
  std::shared_ptr<Transport> old;
  {
    std::lock_guard<std::mutex> lock(transport_mutex_);
    old = std::move(transport_);
    transport_ = fresh;
  }
  return fresh;  // `old` ends here, outside the lock: stopping a child takes time
}

json McpClient::rpc(Transport& transport, const std::string& method, json params,
                    const CancelCheck& cancelled, milliseconds timeout) {
  json request = {{"jsonrpc", "2.0"}, {"id", next_id_++}, {"method", method}};
  if (!params.is_null()) request["params"] = std::move(params);
  json response = transport.request(request, cancelled, timeout);
  if (response.contains("error") && response["error"].is_object())
    throw Error(AGENTRT_ERR_UPSTREAM, error_text(response["error"]));
  if (!response.contains("result") || !response["result"].is_object())
    throw Error(AGENTRT_ERR_UPSTREAM, "mcp server sent a malformed " + method + " response");
  return std::move(response["result"]);
}

void McpClient::initialize(Transport& transport, const CancelCheck& cancelled) {
  json params = {{"protocolVersion", kProtocolVersion},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "agentrt"}, {"version", "1.0.0"}}}};
  json result = rpc(transport, "initialize", params, cancelled, setup_timeout());
  const std::string version =
      result.contains("protocolVersion") && result["protocolVersion"].is_string()
          ? result["protocolVersion"].get<std::string>()
          : std::string();
  if (!accepted_version(version))
    throw Error(AGENTRT_ERR_UPSTREAM, "mcp server speaks protocol version \"" +
                                          version.substr(0, 40) +
                                          "\"; agentrt needs 2025-03-26 or 2025-06-18 or later");
  transport.set_protocol_version(version);
  transport.notify({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
}

void McpClient::on_notification(const json& message) {
  if (message["method"] == "notifications/tools/list_changed") tools_stale_ = true;
}

json McpClient::fetch_tools(Transport& transport) {
  json tools = json::array();
  std::set<std::string> seen;
  std::string cursor;
  for (int page = 0; page < 1000; ++page) {  // bounded: a server whose cursor never ends
    json params = cursor.empty() ? json::object() : json{{"cursor", cursor}};
    json result = rpc(transport, "tools/list", params, nullptr, setup_timeout());
    if (!result.contains("tools") || !result["tools"].is_array())
      throw Error(AGENTRT_ERR_UPSTREAM, "mcp server sent a tools/list result without tools");
    for (const json& tool : result["tools"]) {
      if (!tool.is_object() || !tool.contains("name") || !tool["name"].is_string()) continue;
      const std::string name = tool["name"];
      if (!seen.insert(name).second) {
        host_.log(AGENTRT_LOG_WARN, "mcp server " + config_.name + " lists two tools named \"" +
                                        name + "\"; the first is kept");
        continue;
      }
      json entry = {{"name", name}};
      if (tool.contains("description") && tool["description"].is_string())
        entry["description"] = tool["description"];
      const bool has_schema = tool.contains("inputSchema") && tool["inputSchema"].is_object();
      entry["parameters"] = has_schema ? tool["inputSchema"] : json{{"type", "object"}};
      tools.push_back(std::move(entry));
    }
    if (!result.contains("nextCursor") || !result["nextCursor"].is_string()) break;
    cursor = result["nextCursor"].get<std::string>();
    if (cursor.empty()) break;
  }
  return tools;
}

std::string McpClient::list_tools() {
  std::lock_guard<std::mutex> lock(tools_mutex_);
  connect(nullptr);  // a server that exited is restarted, and its list then read again
  // Cleared before the round trip, so that a list_changed arriving meanwhile counts.
  if (tools_stale_.exchange(false) || !tools_) {
    try {
      tools_ = retry_expired_session([this] { return fetch_tools(*connect(nullptr)); });
    } catch (...) {
      tools_stale_ = true;
      throw;
    }
  }
  return json{{"tools", *tools_}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

void McpClient::wake(void* self) {
  auto* client = static_cast<McpClient*>(self);
  std::lock_guard<std::mutex> lock(client->transport_mutex_);
  if (client->transport_) client->transport_->wake_all();
}

json McpClient::call_once(const std::string& name, const json& arguments, sdk::ToolSink& sink) {
  CancelCheck cancelled = [&sink] { return sink.cancelled(); };
  std::shared_ptr<Transport> transport = connect(cancelled);
  const int64_t id = next_id_++;
  json request = {{"jsonrpc", "2.0"},
                  {"id", id},
                  {"method", "tools/call"},
                  {"params", {{"name", name}, {"arguments", arguments}}}};
  json response;
  try {
    // The host owns the call's timeout and cancels through the sink; ours is a
    // backstop for a host that never does.
    response = transport->request(request, cancelled, config_.timeout + milliseconds(10000));
  } catch (const Error& e) {
    if (e.code() == AGENTRT_ERR_CANCELLED || e.code() == AGENTRT_ERR_TIMEOUT) {
      json params = {{"requestId", id},
                     {"reason", e.code() == AGENTRT_ERR_CANCELLED ? "cancelled by agentrt"
                                                                  : "timed out in agentrt"}};
      try {
        transport->notify(
            {{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", params}});
      } catch (const Error&) {
        // the server is gone: nothing left to cancel
      }
    }
    throw;
  }
  if (response.contains("error") && response["error"].is_object())
    throw Error(AGENTRT_ERR_UPSTREAM, error_text(response["error"]));
  if (!response.contains("result"))
    throw Error(AGENTRT_ERR_UPSTREAM, "mcp server sent a malformed tools/call response");
  return std::move(response["result"]);
}

void McpClient::call(const std::string& request_json, sdk::ToolSink& sink) {
  const json request = json::parse(request_json, nullptr, false);
  if (!request.is_object() || !request.contains("name") || !request["name"].is_string())
    throw Error(AGENTRT_ERR_INVALID_ARGUMENT, "mcp: a call needs a \"name\"");
  json arguments = request.value("arguments", json::object());
  if (arguments.is_null()) arguments = json::object();
  size_t max_output = kDefaultMaxOutput;
  if (request.contains("max_output_bytes") && request["max_output_bytes"].is_number_unsigned())
    max_output = request["max_output_bytes"].get<size_t>();
  WakerGuard waker{sink, sink.set_waker(&McpClient::wake, this)};
  const std::string name = request["name"];
  json answer = retry_expired_session([&] { return call_once(name, arguments, sink); });
  ResultText result = result_text(answer, max_output);
  if (!result.text.empty()) sink.text(result.text);
  if (result.is_error) sink.failed();
}

void McpClient::probe() {
  std::shared_ptr<Transport> transport;
  {
    std::lock_guard<std::mutex> lock(transport_mutex_);
    transport = transport_;
  }
  if (transport && transport->usable()) {
    // Connected before: a ping says whether it still answers.
    retry_expired_session(
        [&] { return rpc(*connect(nullptr), "ping", nullptr, nullptr, setup_timeout()); });
    return;
  }
  connect(nullptr);
}

}  // namespace agentrt::mcp
