// A SAX reader for nlohmann's parser that accepts every value and looks at none: a
// reader that wants a few fields of a document overrides only the events it reads, and
// no document is built. A parse error stops the parse (sax_parse then returns false).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace agentrt::core {

class JsonSaxReader : public nlohmann::json::json_sax_t {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception&) override {
    return false;
  }
};

}  // namespace agentrt::core
