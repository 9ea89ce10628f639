// The OpenAI provider: Chat Completions over server-sent events, for api.openai.com
// and the many servers that speak the same protocol (base_url decides which).
#include "openai_request.h"
#include "openai_stream.h"

#include "common/chat_provider.h"

namespace agentrt::providers::openai {
namespace {

using Adapter = VendorAdapterOf<ChunkDecoder, build_request, parse_error_body>;

class OpenAiProvider : public ChatProvider {
 public:
  OpenAiProvider(const sdk::Host& host, const std::string& config_json)
      : ChatProvider(host, "openai", parse_provider_config("openai", config_json),
                     std::make_unique<Adapter>()) {}
};

}  // namespace
}  // namespace agentrt::providers::openai

AGENTRT_PLUGIN(agentrt::providers::openai::OpenAiProvider, "openai", "1.0.0",
               "OpenAI Chat Completions (and compatible servers), streamed",
               AGENTRT_FLAG_THREAD_SAFE)
