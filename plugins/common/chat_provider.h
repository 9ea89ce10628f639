// The part every HTTP chat provider shares: config, model list, key resolution at
// call time, the streaming transfer, error mapping and key hygiene. A vendor plugin
// supplies only a VendorAdapter: how to phrase the request, how to read the stream,
// how to read an error body.
#pragma once

#include "common/chat_request.h"
#include "common/error_mapping.h"
#include "common/http_stream.h"
#include "common/provider_config.h"
#include "common/stream_decoder.h"

#include <agentrt/plugin.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace agentrt::providers {

class VendorAdapter {
 public:
  virtual ~VendorAdapter() = default;
  // URL, headers (with `api_key` when non-empty) and body for `chat`. Throws
  // Error(INVALID_ARGUMENT) for a request the vendor cannot express.
  virtual HttpRequest build(const ChatRequest& chat, const ProviderConfig& config,
                            const std::string& api_key) const = 0;
  virtual std::unique_ptr<StreamDecoder> decoder(DeltaEmitter& out) const = 0;
  // What a non-2xx body says; tolerant of bodies that are not the vendor's JSON.
  virtual UpstreamErrorInfo parse_error(std::string_view body) const = 0;
};

class ChatProvider : public sdk::Provider {
 public:
  // `plugin` is the plugin's name, for messages.
  ChatProvider(const sdk::Host& host, std::string plugin, ProviderConfig config,
               std::unique_ptr<VendorAdapter> adapter);

  std::string list_models() override;
  void complete(const std::string& request_json, sdk::Sink& sink) override;

 private:
  std::string resolve_key() const;
  void stream(const ChatRequest& chat, const std::string& key, sdk::Sink& sink) const;

  sdk::Host host_;
  std::string plugin_;
  ProviderConfig config_;
  std::unique_ptr<VendorAdapter> adapter_;
};

}  // namespace agentrt::providers
