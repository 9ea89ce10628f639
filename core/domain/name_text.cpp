#include "core/domain/name_text.h"

#include "core/domain/errors.h"

#include <string>

namespace agentrt::core {

void check_name_text(std::string_view text, const char* field) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const bool c1 = byte == 0xC2 && i + 1 < text.size() &&
                    static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if (byte < 0x20 || byte == 0x7F || c1)
      throw invalid("field '" + std::string(field) + "' must not hold a control character");
  }
  if (!text.empty() && (text.front() == ' ' || text.back() == ' '))
    throw invalid("field '" + std::string(field) + "' must not begin or end with a blank");
}

}  // namespace agentrt::core
