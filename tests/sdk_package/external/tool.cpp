// A tool server written by someone who has only the installed SDK: a tool plugin
// (ABI 1.9) through the C++ layer. Its tools:
//   ping  {}        -> "pong from outside"
//   shout {"text"}  -> the text in capitals (ASCII letters), then the config's "suffix"
// It reads JSON with the few functions below rather than a library, so that the SDK's
// headers are all it includes.
#include <agentrt/plugin.hpp>

#include <cctype>
#include <map>
#include <string>

namespace {

using agentrt::sdk::Error;

[[noreturn]] void bad(const std::string& what) {
  throw Error(AGENTRT_ERR_INVALID_ARGUMENT, "third-party-tool: " + what);
}

struct Cursor {
  const std::string& text;
  size_t at = 0;
  bool more() const { return at < text.size(); }
  char peek() const { return more() ? text[at] : '\0'; }
  void skip_space() {
    while (more() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
  }
};

void append_utf8(std::string& out, unsigned cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// A JSON string at the cursor, decoded (a \u escape outside the BMP is kept as two
// three-byte halves: enough for a test's text).
std::string read_string(Cursor& c) {
  if (c.peek() != '"') bad("expected a string");
  std::string out;
  for (++c.at; c.more(); ++c.at) {
    const char ch = c.text[c.at];
    if (ch == '"') {
      ++c.at;
      return out;
    }
    if (ch != '\\') {
      out += ch;
      continue;
    }
    if (++c.at >= c.text.size()) break;
    const char esc = c.text[c.at];
    if (esc == 'u') {
      if (c.at + 4 >= c.text.size()) break;
      append_utf8(out, static_cast<unsigned>(std::stoul(c.text.substr(c.at + 1, 4), nullptr, 16)));
      c.at += 4;
    } else {
      const std::string from = "nrtbf", to = "\n\r\t\b\f";
      const size_t i = from.find(esc);
      out += i == std::string::npos ? esc : to[i];
    }
  }
  bad("unterminated string");
}

// Moves past one value of any type; what it passes over is the value's text.
void skip_value(Cursor& c) {
  int depth = 0;
  while (c.more()) {
    const char ch = c.peek();
    if (ch == '"') {
      read_string(c);
      continue;
    }
    if ((ch == ',' || ch == '}' || ch == ']') && depth == 0) return;
    if (ch == '{' || ch == '[') ++depth;
    if (ch == '}' || ch == ']') --depth;
    ++c.at;
  }
}

// The members of a JSON object: each key with its value's text as written.
std::map<std::string, std::string> members(const std::string& text) {
  Cursor c{text};
  c.skip_space();
  if (c.peek() != '{') bad("expected a JSON object");
  ++c.at;
  std::map<std::string, std::string> out;
  c.skip_space();
  if (c.peek() == '}') return out;
  for (;;) {
    c.skip_space();
    const std::string key = read_string(c);
    c.skip_space();
    if (c.peek() != ':') bad("expected ':' after \"" + key + "\"");
    ++c.at;
    c.skip_space();
    const size_t from = c.at;
    skip_value(c);
    std::string value = text.substr(from, c.at - from);
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back())))
      value.pop_back();
    out[key] = value;
    if (c.peek() == '}') return out;
    if (c.peek() != ',') bad("expected ',' or '}'");
    ++c.at;
  }
}

// A member that must be a string, or `fallback` when it is absent.
std::string string_member(const std::map<std::string, std::string>& object, const std::string& key,
                          const std::string& fallback) {
  const auto it = object.find(key);
  if (it == object.end()) return fallback;
  Cursor c{it->second};
  return read_string(c);
}

class ThirdPartyTools : public agentrt::sdk::Tool {
 public:
  // The host hands the whole tool_servers entry: its own keys, and "suffix", ours.
  ThirdPartyTools(const agentrt::sdk::Host&, const std::string& config_json) {
    const auto config = members(config_json);
    for (const auto& [key, value] : config)
      if (key != "name" && key != "type" && key != "require_approval" && key != "timeout_ms" &&
          key != "suffix")
        bad("unknown key \"" + key + "\"");
    suffix_ = string_member(config, "suffix", "");
  }

  std::string list_tools() override {
    return R"({"tools":[)"
           R"({"name":"ping","description":"Answers pong","parameters":{"type":"object"}},)"
           R"({"name":"shout","description":"The text in capitals","parameters":{"type":"object",)"
           R"("properties":{"text":{"type":"string"}},"required":["text"]}}]})";
  }

  void call(const std::string& request_json, agentrt::sdk::ToolSink& sink) override {
    const auto request = members(request_json);
    const std::string name = string_member(request, "name", "");
    if (name == "ping") {
      sink.text("pong from outside");
      return;
    }
    if (name != "shout") throw Error(AGENTRT_ERR_NOT_FOUND, "no tool named " + name);
    const auto it = request.find("arguments");
    const auto arguments = members(it == request.end() ? "{}" : it->second);
    if (!arguments.count("text") || arguments.at("text").rfind('"', 0) != 0) {
      sink.text("shout needs a string \"text\"");
      sink.failed();  // the tool ran and says why: the model sees an error result
      return;
    }
    std::string text = string_member(arguments, "text", "") + suffix_;
    for (char& ch : text)
      if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
    const auto max = request.find("max_output_bytes");
    if (max != request.end()) {
      size_t limit = std::stoul(max->second);
      if (text.size() > limit) {
        while (limit > 0 && (static_cast<unsigned char>(text[limit]) & 0xC0) == 0x80) --limit;
        text.resize(limit);  // on a character's first byte: the rest stays UTF-8
      }
    }
    sink.text(text);
  }

  std::string probe(const std::string&) override { return "{}"; }

 private:
  std::string suffix_;
};

}  // namespace

AGENTRT_PLUGIN(ThirdPartyTools, "third-party-tool", "1.0.0",
               "a tool server built against the installed SDK", AGENTRT_FLAG_THREAD_SAFE)
