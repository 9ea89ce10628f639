// The readers of the routes' JSON bodies, one at a time: the input's first byte picks
// the reader (modulo kReaders), the rest is the body as a client sends it.
//   0  parse_json_body: every route's body (core/domain/json_body.h)
//   1  parse_run_request: /run and /chat (core/runs/run_request.h)
//   2  parse_chat_completion: /v1/chat/completions (core/openai/chat_completion_request.h)
//   3  parse_responses_request: /v1/responses (core/openai/responses_request.h)
//   4  parse_tool_server_request: each of POST /admin/tool-servers' "servers"
//   5  read_agent_tools_text: an agent's "tools" (core/runs/agent_tools.h)
//   6  parse_provider: each of PUT /admin/providers' "providers", and
//      parse_model_list, a provider plugin's list of models (core/providers)
//   7  the field rules the cell, token, agent and memory services hold their bodies'
//      strings to (cell ids, time zones, locales, names, session ids, secret refs)
// Every reader may refuse a body only with core::DomainError of kind `invalid` (a 400:
// anything else is a 500), and then in valid UTF-8. Besides:
//   - a run request's refusal of a text that is not JSON is parse_json_body's, word for
//     word, and a text parse_run_request takes, parse_json_body takes too;
//   - what a run request holds is what the engine relies on: each message's content the
//     JSON text of an array, tool names valid, max_steps within 1 to 64;
//   - an agent's tools written out (agent_tools_json) read back the same;
//   - a time zone that passes names a file under the zone directory, never above it.
#include "core/cells/cell_rules.h"
#include "core/domain/errors.h"
#include "core/domain/json_body.h"
#include "core/domain/name_text.h"
#include "core/domain/secret_ref.h"
#include "core/openai/chat_completion_request.h"
#include "core/openai/responses_request.h"
#include "core/providers/provider_config.h"
#include "core/runs/agent_tools.h"
#include "core/runs/run_request.h"
#include "core/tools/tool_server_request.h"
#include "fuzz/fuzz_support.h"
#include "text/utf8.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace {

using namespace agentrt::core;
using nlohmann::json;

constexpr int kReaders = 8;

// Runs `read`; false when it refused the body as a 400, the one way it may.
bool accepted(const std::function<void()>& read, std::string* refusal = nullptr) {
  try {
    read();
    return true;
  } catch (const DomainError& e) {
    FUZZ_CHECK(e.kind() == ErrorKind::invalid, "a body is refused as invalid");
    FUZZ_CHECK(agentrt::text::is_utf8(e.what()), "a refusal is valid UTF-8");
    if (refusal) *refusal = e.what();
    return false;
  }
}

void check_run_request(const RunRequest& run) {
  for (const StoredMessage& message : run.messages) {
    const json content = json::parse(message.content_text.str(), nullptr, false);
    FUZZ_CHECK(content.is_array(), "a message's content is the text of a JSON array");
  }
  for (const ToolSpec& tool : run.tools) {
    FUZZ_CHECK(valid_tool_name(tool.name), "a tool's name is valid");
    FUZZ_CHECK(json::parse(tool.parameters, nullptr, false).is_object(),
               "a tool's parameters are a JSON object");
  }
  if (run.max_steps) FUZZ_CHECK(*run.max_steps >= 1 && *run.max_steps <= 64, "max_steps 1-64");
  if (run.session_id) FUZZ_CHECK(valid_session_id(*run.session_id), "a session id is valid");
}

void read_run(std::string_view body) {
  std::string run_refusal, body_refusal;
  std::optional<RunRequest> run;
  const bool run_ok = accepted([&] { run = parse_run_request(body); }, &run_refusal);
  const bool body_ok = accepted([&] { parse_json_body(body); }, &body_refusal);
  if (run_ok) {
    FUZZ_CHECK(body_ok, "a run request is a body every route takes");
    check_run_request(*run);
  }
  if (!body_ok) FUZZ_CHECK(run_refusal == body_refusal, "a run request is refused as any body");
}

// The elements of the document's `list` array, each handed to `read`.
void each_of(std::string_view body, const char* list,
             const std::function<void(const json&, size_t)>& read) {
  json document;
  if (!accepted([&] { document = parse_json_body(body); })) return;
  if (!document.is_object() || !document.contains(list) || !document[list].is_array()) return;
  for (size_t i = 0; i < document[list].size(); ++i) accepted([&] { read(document, i); });
}

bool same_tools(const AgentTools& a, const AgentTools& b) {
  if (a.client.size() != b.client.size() || a.refs.size() != b.refs.size()) return false;
  for (size_t i = 0; i < a.client.size(); ++i)
    if (a.client[i].name != b.client[i].name ||
        a.client[i].description != b.client[i].description ||
        json::parse(a.client[i].parameters) != json::parse(b.client[i].parameters))
      return false;
  for (size_t i = 0; i < a.refs.size(); ++i)
    if (a.refs[i].type != b.refs[i].type || a.refs[i].server != b.refs[i].server ||
        a.refs[i].tools != b.refs[i].tools || a.refs[i].name != b.refs[i].name ||
        a.refs[i].require_approval != b.refs[i].require_approval)
      return false;
  return true;
}

void read_agent_tools(std::string_view body) {
  AgentTools tools;
  if (!accepted([&] { tools = read_agent_tools_text(body, "tools"); })) return;
  const std::string written = agent_tools_json(tools.client, tools.refs);
  AgentTools again;
  FUZZ_CHECK(accepted([&] { again = read_agent_tools_text(written, "tools"); }),
             "an agent's tools written out read again");
  FUZZ_CHECK(same_tools(tools, again), "an agent's tools written out read the same");
}

void read_providers(std::string_view body) {
  const std::set<std::string> types = {"openai", "anthropic", "ollama", "echo"};
  each_of(body, "providers", [&](const json& document, size_t i) {
    parse_provider(document["providers"][i], i, types);
  });
  accepted([&] { parse_model_list(std::string(body)); });
}

// The strings of a body's fields as the services' rules take them.
void read_field_rules(std::string_view body) {
  json document;
  if (!accepted([&] { document = parse_json_body(body); }) || !document.is_object()) return;
  for (const auto& item : document.items()) {
    const std::string& key = item.key();
    const json& value = item.value();
    if (value.is_object() && key == "api_key_ref") accepted([&] { parse_secret_ref(value, key); });
    if (!value.is_string()) continue;
    const std::string& text = value.get_ref<const std::string&>();
    valid_cell_id(text);
    valid_locale(text);
    valid_session_id(text);
    accepted([&] { check_name_text(text, "name"); });
    if (!text.empty() && valid_timezone(text)) {
      FUZZ_CHECK(text.front() != '/', "a time zone is a relative name");
      FUZZ_CHECK(("/" + text + "/").find("/../") == std::string::npos, "a time zone stays below");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % kReaders) {
    case 0:
      accepted([&] { parse_json_body(body); });
      break;
    case 1:
      read_run(body);
      break;
    case 2:
      accepted([&] {
        const openai::ChatCompletionRequest request = openai::parse_chat_completion(body);
        FUZZ_CHECK(request.run.stateless, "a chat completion is stateless");
        check_run_request(request.run);
      });
      break;
    case 3:
      accepted([&] { check_run_request(openai::parse_responses_request(body).run); });
      break;
    case 4:
      each_of(body, "servers",
              [](const json& document, size_t i) { parse_tool_server_request(document, i); });
      break;
    case 5:
      read_agent_tools(body);
      break;
    case 6:
      read_providers(body);
      break;
    case 7:
      read_field_rules(body);
      break;
  }
  return 0;
}
