// What a vendor plugin supplies to ChatProvider: how to phrase the request, how to
// read the stream, how to read an error body.
#pragma once

#include "common/chat_request.h"
#include "common/error_mapping.h"
#include "common/http_response.h"
#include "common/http_stream.h"
#include "common/provider_config.h"
#include "common/stream_decoder.h"

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

// The last step of every completion, blocking or not, once the transfer is over:
// a non-2xx `response` becomes the mapped error (throws), a 2xx one ends `decoder`
// (which throws for a stream cut short). `key` is kept out of every message.
void end_response(const HttpResponse& response, const VendorAdapter& adapter,
                  StreamDecoder& decoder, std::string_view key);

// The adapter of a vendor whose parts are a request builder, a stream decoder class and
// an error-body reader, as every bundled vendor's are.
template <typename Decoder, auto BuildRequest, auto ParseErrorBody>
class VendorAdapterOf final : public VendorAdapter {
 public:
  HttpRequest build(const ChatRequest& chat, const ProviderConfig& config,
                    const std::string& api_key) const override {
    return BuildRequest(chat, config, api_key);
  }
  std::unique_ptr<StreamDecoder> decoder(DeltaEmitter& out) const override {
    return std::make_unique<Decoder>(out);
  }
  UpstreamErrorInfo parse_error(std::string_view body) const override {
    return ParseErrorBody(body);
  }
};

}  // namespace agentrt::providers
