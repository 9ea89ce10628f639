// A provider written by someone who has only the installed SDK.
#include <agentrt/plugin.hpp>

class ThirdParty : public agentrt::sdk::Provider {
 public:
  ThirdParty(const agentrt::sdk::Host&, const std::string&) {}
  void complete(const std::string&, agentrt::sdk::Sink& sink) override {
    sink.text("hello from outside");
    sink.finish("end_turn");
  }
  std::string list_models() override {
    return R"({"models":[{"id":"outside","context_window":4096}]})";
  }
};

AGENTRT_PLUGIN(ThirdParty, "third-party", "2.0.0", "built against the installed SDK", 0)
