// The Anthropic provider: the Messages API over server-sent events.
#include "anthropic_request.h"
#include "anthropic_stream.h"

#include "common/chat_provider.h"

namespace agentrt::providers::anthropic {
namespace {

using Adapter = VendorAdapterOf<MessageDecoder, build_request, parse_error_body>;

class AnthropicProvider : public ChatProvider {
 public:
  AnthropicProvider(const sdk::Host& host, const std::string& config_json)
      : ChatProvider(host, "anthropic", parse_provider_config("anthropic", config_json),
                     std::make_unique<Adapter>()) {}
};

}  // namespace
}  // namespace agentrt::providers::anthropic

AGENTRT_PLUGIN(agentrt::providers::anthropic::AnthropicProvider, "anthropic", "1.0.0",
               "Anthropic Messages API, streamed", AGENTRT_FLAG_THREAD_SAFE)
