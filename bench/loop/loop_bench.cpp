// The step loop's own cost (bench/loop/run.sh, bench/README.md "The step loop"): from
// the last byte of a step's upstream response to the first byte of the next step's
// request, as the upstream's sockets saw them, with agentd's tool server in process,
// over MCP stdio and over MCP streamable HTTP; beside it the tool called straight over
// MCP, the same two steps sent by this program itself (the floor: with the tool's
// result made inline, and on a thread started for it as agentd runs a server tool),
// and agentd's CPU a step against a plain /chat of one step, all in the same rounds.
//
//   loop_bench --agentd HOST:PORT --admin-token T --pid PID [--servers inproc,stdio,http]
//              [--mcp-url URL] [--mcp-stdio "node .../index.js stdio"] [--runs 5000]
//              [--rounds 5] [--warmup 50] [--concurrency 1,4]
//
// agentd must be running with the tool servers named by --servers in its config (each
// offering `echo`); this program starts the upstream, makes agentd's shared provider
// point at it, makes an agent per server and a plain one, and prints markdown.
#include "loop_upstream.h"
#include "report.h"
#include "scenarios.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace loop_bench {
namespace {

using nlohmann::json;

struct Options {
  std::string agentd, admin_token, mcp_url, mcp_stdio;
  pid_t pid = 0;
  std::vector<std::string> servers = {"inproc", "stdio", "http"};
  std::vector<int> concurrency = {1};
  int runs = 5000, rounds = 5, warmup = 50;
};

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, by);)
    if (!item.empty()) out.push_back(item);
  return out;
}

Options parse_options(int argc, char** argv) {
  std::map<std::string, std::string> given;
  for (int i = 1; i + 1 < argc; i += 2) given[argv[i]] = argv[i + 1];
  Options o;
  auto take = [&](const char* flag) {
    auto found = given.find(flag);
    if (found == given.end()) return std::string();
    std::string value = found->second;
    given.erase(found);
    return value;
  };
  auto take_int = [&](const char* flag, int fallback) {
    const std::string value = take(flag);
    return value.empty() ? fallback : std::atoi(value.c_str());
  };
  o.agentd = take("--agentd");
  o.admin_token = take("--admin-token");
  o.pid = take_int("--pid", 0);
  if (std::string servers = take("--servers"); !servers.empty()) o.servers = split(servers, ',');
  o.mcp_url = take("--mcp-url");
  o.mcp_stdio = take("--mcp-stdio");
  o.runs = take_int("--runs", o.runs);
  o.rounds = take_int("--rounds", o.rounds);
  o.warmup = take_int("--warmup", o.warmup);
  if (std::string list = take("--concurrency"); !list.empty()) {
    o.concurrency.clear();
    for (const std::string& c : split(list, ',')) o.concurrency.push_back(std::atoi(c.c_str()));
  }
  if (!given.empty() || o.agentd.empty() || o.admin_token.empty() || o.pid <= 0 || o.runs < 1 ||
      o.rounds < 1) {
    std::fprintf(stderr, "loop_bench: bad flags (see the header of bench/loop/loop_bench.cpp)\n");
    std::exit(2);
  }
  return o;
}

// agentd's CPU so far (user + system, every thread it ever had), in clock ticks.
long cpu_ticks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), {});
  std::stringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; fields >> field; ++i) {  // field 3 is the state, after "pid (comm)"
    if (i == 14) utime = std::atol(field.c_str());
    if (i == 15) {
      stime = std::atol(field.c_str());
      break;
    }
  }
  return utime + stime;
}

json admin_post(HttpClient& http, const Options& o, const std::string& path, const json& body) {
  const HttpResponse r =
      http.request("POST", "http://" + o.agentd + path, body.dump(),
                   {"Authorization: Bearer " + o.admin_token, "Content-Type: application/json"});
  if (r.status / 100 != 2)
    throw std::runtime_error("POST " + path + ": " + std::to_string(r.status) + " " + r.body);
  return json::parse(r.body);
}

std::string make_agent(HttpClient& http, const Options& o, const std::string& name,
                       const json& tools) {
  json body = {{"name", name}, {"model", "loop-model"}};
  if (!tools.empty()) body["tools"] = tools;
  return admin_post(http, o, "/agents", body).at("id");
}

// `n` runs of `s` on `threads` clients; latencies into `s` when `keep`.
void block(Scenario& s, const Target& target, std::vector<Client>& clients, int threads, int n,
           bool keep) {
  std::atomic<int> left{n};
  std::mutex mutex;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      std::vector<double> mine;
      unsigned errors = 0;
      std::string error;
      while (left.fetch_sub(1) > 0) {
        try {
          mine.push_back(run_once(s, target, clients[t]));
        } catch (const std::exception& e) {
          ++errors;
          if (error.empty()) error = e.what();
        }
      }
      std::lock_guard<std::mutex> lock(mutex);
      if (!keep) return;
      s.latency_us.insert(s.latency_us.end(), mine.begin(), mine.end());
      s.runs += static_cast<unsigned>(mine.size() + errors);
      s.errors += errors;
      if (s.first_error.empty()) s.first_error = error;
    });
  for (std::thread& w : workers) w.join();
}

std::vector<Scenario> scenarios(const Options& o, HttpClient& admin, int concurrency) {
  std::vector<Scenario> out;
  for (const std::string& server : o.servers) {
    Scenario s;
    s.kind = Kind::chat;
    s.steps = 2;
    s.via = server == "inproc" ? Via::in_process : server == "stdio" ? Via::stdio : Via::http;
    s.label = s.via == Via::in_process ? "agentd, in-process tool plugin"
              : s.via == Via::stdio    ? "agentd, MCP over stdio"
                                       : "agentd, MCP over streamable HTTP";
    s.agent_id =
        make_agent(admin, o, "loop-" + server + "-c" + std::to_string(concurrency),
                   json::array({{{"type", "mcp"}, {"server", server}, {"tools", {"echo"}}}}));
    out.push_back(s);
  }
  Scenario plain;
  plain.label = "agentd, plain /chat (one step, no tools)";
  plain.agent_id =
      make_agent(admin, o, "loop-plain-c" + std::to_string(concurrency), json::array());
  out.push_back(plain);
  Scenario floor;
  floor.label = "floor: this program's own loop, no tool";
  floor.kind = Kind::floor;
  out.push_back(floor);
  floor.label = "floor, the tool on a thread of its own";
  floor.kind = Kind::floor_thread;
  out.push_back(floor);
  // The tool alone, at concurrency 1 only: agentd shares one stdio child among its calls,
  // which a direct client of its own at a higher concurrency would not.
  if (concurrency == 1 && !o.mcp_stdio.empty()) {
    Scenario tool;
    tool.label = "echo straight over MCP stdio (own child)";
    tool.kind = Kind::tool_stdio;
    out.push_back(tool);
  }
  if (concurrency == 1 && !o.mcp_url.empty()) {
    Scenario tool;
    tool.label = "echo straight over MCP streamable HTTP";
    tool.kind = Kind::tool_http;
    out.push_back(tool);
    // agentd's MCP client makes a libcurl handle for each call, and with it a new
    // connection: the same call on a new connection each time, for comparison.
    tool.label = "echo straight over MCP streamable HTTP, a new connection a call";
    tool.kind = Kind::tool_http_fresh;
    out.push_back(tool);
  }
  return out;
}

Pass measure(const Options& o, const Target& target, LoopUpstream& upstream, HttpClient& admin,
             int concurrency) {
  Pass pass;
  pass.concurrency = concurrency;
  pass.rounds = o.rounds;
  pass.scenarios = scenarios(o, admin, concurrency);
  pass.round_gap_p50_us.resize(pass.scenarios.size());
  std::vector<Client> clients(static_cast<size_t>(concurrency));
  if (concurrency == 1) {
    if (!o.mcp_url.empty()) {
      clients[0].mcp_http = std::make_unique<McpHttpEcho>(o.mcp_url, false);
      clients[0].mcp_http_fresh = std::make_unique<McpHttpEcho>(o.mcp_url, true);
    }
    if (!o.mcp_stdio.empty())
      clients[0].mcp_stdio = std::make_unique<McpStdioEcho>(split(o.mcp_stdio, ' '));
  }
  std::fprintf(stderr, "loop_bench: concurrency %d, warming up\n", concurrency);
  for (Scenario& s : pass.scenarios) {
    block(s, target, clients, 1, 1, true);  // one run each first: a setup that fails says so
    if (s.errors) throw std::runtime_error(s.label + ": " + s.first_error);
    s.clear_figures();
    block(s, target, clients, concurrency, o.warmup, false);
  }
  upstream.take();
  const int per_round = (o.runs + o.rounds - 1) / o.rounds;
  for (int round = 0; round < o.rounds; ++round) {
    std::fprintf(stderr, "loop_bench: concurrency %d, round %d of %d\n", concurrency, round + 1,
                 o.rounds);
    for (size_t i = 0; i < pass.scenarios.size(); ++i) {
      Scenario& s = pass.scenarios[i];
      const long before = cpu_ticks(o.pid);
      block(s, target, clients, concurrency, per_round, true);
      s.cpu_ticks += cpu_ticks(o.pid) - before;
      LoopUpstream::Seen seen = upstream.take();
      s.errors += seen.bad_results;
      pass.round_gap_p50_us[i].push_back(percentile(seen.gaps_us, 50));
      s.gaps_us.insert(s.gaps_us.end(), seen.gaps_us.begin(), seen.gaps_us.end());
    }
  }
  return pass;
}

}  // namespace
}  // namespace loop_bench

int main(int argc, char** argv) {
  using namespace loop_bench;
  const Options o = parse_options(argc, argv);
  try {
    LoopUpstream upstream;
    HttpClient admin;
    Target target;
    target.agentd = "http://" + o.agentd;
    target.upstream = "http://127.0.0.1:" + std::to_string(upstream.port()) + "/v1";
    admin_post(admin, o, "/admin/shared-providers",
               {{"providers",
                 {{{"name", "loop"},
                   {"type", "openai"},
                   {"base_url", target.upstream},
                   {"api_key_ref", {{"source", "inline"}, {"value", "sk-loop"}}},
                   {"models", {{{"id", "loop-model"}, {"context_window", 8192}}}}}}}});
    target.token = admin_post(admin, o, "/admin/tokens", {{"ttl", "24h"}, {"actor", "loop"}})
                       .at("token")
                       .get<std::string>();
    for (int c : o.concurrency)
      print_report(measure(o, target, upstream, admin, c), sysconf(_SC_CLK_TCK));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loop_bench: %s\n", e.what());
    std::fflush(stdout);
    std::_Exit(1);
  }
  // The upstream's threads block in accept and recv for good: no orderly teardown.
  std::fflush(stdout);
  std::_Exit(0);
}
