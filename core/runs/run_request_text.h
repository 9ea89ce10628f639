// The common shape of a /run or /chat body, read straight from its text. Parsing it into
// an nlohmann document and reading that (parse_run_request) was about 17 thousand
// instructions of a /chat's 310 thousand, and the messages' contents were then written
// back to text for the store and the provider.
//
// It reads an object of the known fields, each at most once and none null, whose
// messages hold text parts only: their texts' escapes are decoded and their UTF-8
// checked as nlohmann's parser does. Anything else gives nullopt and the body goes the
// general way (parse the JSON, then parse_run_request), which accepts or refuses it
// with the errors it always gave: an image part, a number it does not read, a value that
// parse_run_request would refuse, a malformed body. Whatever it reads is what
// parse_run_request gives for the same body, but each message's content comes as the
// store keeps it (StoredMessage::content_text, with its token estimate), not parsed.
#pragma once

#include "core/runs/run_request.h"

#include <optional>
#include <string_view>

namespace agentrt::core {

std::optional<RunRequest> read_plain_run_request(std::string_view body);

}  // namespace agentrt::core
