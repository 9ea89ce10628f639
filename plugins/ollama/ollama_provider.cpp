// The Ollama provider: the native /api/chat endpoint, streamed as NDJSON.
#include "ollama_request.h"
#include "ollama_stream.h"

#include "common/chat_provider.h"

namespace agentrt::providers::ollama {
namespace {

using Adapter = VendorAdapterOf<ChatLineDecoder, build_request, parse_error_body>;

class OllamaProvider : public ChatProvider {
 public:
  OllamaProvider(const sdk::Host& host, const std::string& config_json)
      : ChatProvider(host, "ollama", parse_provider_config("ollama", config_json),
                     std::make_unique<Adapter>()) {}
};

}  // namespace
}  // namespace agentrt::providers::ollama

AGENTRT_PLUGIN(agentrt::providers::ollama::OllamaProvider, "ollama", "1.0.0",
               "Ollama native chat API, streamed", AGENTRT_FLAG_THREAD_SAFE)
