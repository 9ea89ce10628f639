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
#include "common/vendor_adapter.h"

#include <agentrt/plugin.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace agentrt::providers {

class AsyncCall;
class TransferLoop;

class ChatProvider : public sdk::Provider {
 public:
  // `plugin` is the plugin's name, for messages.
  ChatProvider(const sdk::Host& host, std::string plugin, ProviderConfig config,
               std::unique_ptr<VendorAdapter> adapter);
  // Ends every call started with start() and still running with CANCELLED.
  ~ChatProvider() override;

  std::string list_models() override;
  // Blocks the calling thread for the whole call (hosts before ABI 1.2).
  void complete_borrowed(std::string_view request_json, sdk::Sink& sink) override;
  // The same call driven by the instance's transfer loops: parses the request and
  // resolves the key here (what fails there throws), then returns at once.
  bool start_borrowed(std::string_view request_json, sdk::AsyncSink sink) override;
  // The engine calls the two above; these only serve callers of the copying forms.
  void complete(const std::string& request_json, sdk::Sink& sink) override;
  bool start(const std::string& request_json, sdk::AsyncSink sink) override;

 private:
  std::string resolve_key() const;
  // The vendor's request for `request_json`, with the key it resolved into `key`.
  HttpRequest request_for(std::string_view request_json, std::string& key) const;
  HttpRequest prepare(const ChatRequest& chat, const std::string& key) const;
  void stream(const HttpRequest& http, const std::string& key, sdk::Sink& sink) const;
  void submit(std::unique_ptr<AsyncCall> call);

  sdk::Host host_;
  std::string plugin_;
  ProviderConfig config_;
  std::unique_ptr<VendorAdapter> adapter_;
  // Made on the first start(), so that hosts that only call complete() pay nothing.
  // Declared last: destroyed first, while the adapter its calls use is still whole.
  std::mutex loops_mutex_;  // choosing a loop and handing it the call are one step
  std::vector<std::unique_ptr<TransferLoop>> loops_;
};

}  // namespace agentrt::providers
