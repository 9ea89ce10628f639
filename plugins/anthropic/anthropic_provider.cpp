// The Anthropic provider: the Messages API over server-sent events.
#include "anthropic_request.h"
#include "anthropic_stream.h"

#include "common/chat_provider.h"

namespace agentrt::providers::anthropic {
namespace {

class Adapter : public VendorAdapter {
 public:
  HttpRequest build(const ChatRequest& chat, const ProviderConfig& config,
                    const std::string& api_key) const override {
    return build_request(chat, config, api_key);
  }
  std::unique_ptr<StreamDecoder> decoder(DeltaEmitter& out) const override {
    return std::make_unique<MessageDecoder>(out);
  }
  UpstreamErrorInfo parse_error(std::string_view body) const override {
    return parse_error_body(body);
  }
};

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
