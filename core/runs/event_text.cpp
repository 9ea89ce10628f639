#include "core/runs/event_text.h"

#include <charconv>

namespace agentrt::core {

// The error handler SSE has always dumped events with; the store now gets the same.
constexpr auto kInvalidUtf8 = nlohmann::json::error_handler_t::replace;

std::string event_text(const nlohmann::json& event) {
  return event.dump(-1, ' ', /*ensure_ascii=*/false, kInvalidUtf8);
}

DeltaText::DeltaText()
    : content_(nlohmann::json::value_t::string),
      serializer_(nlohmann::detail::output_adapter<char, std::string>(buffer_), ' ', kInvalidUtf8) {
}

std::string DeltaText::operator()(std::string_view content, int64_t seq) {
  buffer_.assign(R"({"content":)");
  content_.get_ref<std::string&>().assign(content);
  serializer_.dump(content_, /*pretty_print=*/false, /*ensure_ascii=*/false, 0);
  buffer_.append(R"(,"seq":)");
  char digits[24];
  buffer_.append(digits, std::to_chars(digits, digits + sizeof digits, seq).ptr);
  buffer_.append(R"(,"type":"stream_delta"})");
  return buffer_;
}

}  // namespace agentrt::core
