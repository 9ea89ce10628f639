#include "scenarios.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace loop_bench {
namespace {

using nlohmann::json;

const json kUserMessage = {{"role", "user"},
                           {"content", {{{"type", "text"}, {"text", "echo loop bench"}}}}};

double chat(const Scenario& s, const Target& target, Client& client) {
  const std::string body = json{{"agent_id", s.agent_id}, {"messages", {kUserMessage}}}.dump();
  const auto start = Clock::now();
  const HttpResponse r = client.http.request(
      "POST", target.agentd + "/chat", body,
      {"Authorization: Bearer " + target.token, "Content-Type: application/json"});
  const double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  const json answer = json::parse(r.body, nullptr, false);
  if (r.status != 200 || !answer.is_object() || answer.value("reason", "") != "end_turn" ||
      answer.value("response", "") != "done")
    throw std::runtime_error("/chat answered " + std::to_string(r.status) + " " +
                             r.body.substr(0, 300));
  return us;
}

// What agentd's loop does between the two calls, done by the bench with no tool: read
// the call's stream to its end, then send the next step with the call's result.
// `on_thread`: the tool's result is made on a thread started for it and joined, as
// agentd runs each server tool call (core/tools/server_calls.cpp).
double floor_run(const Target& target, Client& client, bool on_thread) {
  const json tool = {{"type", "function"},
                     {"function", {{"name", "echo"}, {"parameters", {{"type", "object"}}}}}};
  json request = {{"model", "loop-model"},
                  {"stream", true},
                  {"stream_options", {{"include_usage", true}}},
                  {"tools", {tool}},
                  {"messages", {{{"role", "user"}, {"content", "echo loop bench"}}}}};
  const std::vector<std::string> headers = {"Authorization: Bearer sk-loop",
                                            "Content-Type: application/json"};
  const std::string url = target.upstream + "/chat/completions";
  const auto start = Clock::now();
  const HttpResponse call = client.http.request("POST", url, request.dump(), headers);
  const size_t at = call.body.find("\"id\":\"call_loop_");
  if (call.status != 200 || at == std::string::npos)
    throw std::runtime_error("the upstream did not call: " + call.body.substr(0, 300));
  const std::string id = call.body.substr(at + 6, call.body.find('"', at + 6) - at - 6);
  request["messages"].push_back(
      {{"role", "assistant"},
       {"content", nullptr},
       {"tool_calls",
        {{{"id", id},
          {"type", "function"},
          {"function", {{"name", "echo"}, {"arguments", R"({"message": "loop bench"})"}}}}}}});
  std::string result;
  auto run_tool = [&result] { result = "Echo: loop bench"; };
  if (on_thread) {
    std::thread(run_tool).join();
  } else {
    run_tool();
  }
  request["messages"].push_back({{"role", "tool"}, {"tool_call_id", id}, {"content", result}});
  const HttpResponse answer = client.http.request("POST", url, request.dump(), headers);
  const double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  if (answer.status != 200 || answer.body.find("\"done\"") == std::string::npos)
    throw std::runtime_error("the upstream did not answer: " + answer.body.substr(0, 300));
  return us;
}

}  // namespace

double run_once(const Scenario& s, const Target& target, Client& client) {
  switch (s.kind) {
    case Kind::chat:
      return chat(s, target, client);
    case Kind::floor:
      return floor_run(target, client, false);
    case Kind::floor_thread:
      return floor_run(target, client, true);
    case Kind::tool_http:
      return client.mcp_http->call_us();
    case Kind::tool_http_fresh:
      return client.mcp_http_fresh->call_us();
    case Kind::tool_stdio:
      return client.mcp_stdio->call_us();
  }
  throw std::logic_error("unknown scenario");
}

}  // namespace loop_bench
