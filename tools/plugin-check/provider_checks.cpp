#include "tools/plugin-check/checks.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>

namespace agentrt::plugin_check {
namespace {

using core::ProviderDelta;
using core::ProviderInstance;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string one_message_request(const std::string& model, const std::string& text) {
  return json{{"model", model},
              {"messages", {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", text}}}}}}}}
      .dump();
}

// The models the instance lists, checked against the shape the host requires.
json checked_models(const ProviderInstance& instance) {
  json answer = json::parse(instance.list_models(), nullptr, false);
  if (!answer.is_object() || !answer.contains("models") || !answer["models"].is_array())
    throw Failure("the answer is not {\"models\":[...]}");
  const json& models = answer["models"];
  if (models.empty()) throw Failure("no models listed");
  for (const json& model : models) {
    if (!model.is_object() || !model.contains("id") || !model["id"].is_string() ||
        model["id"].get<std::string>().empty() || model["id"].get<std::string>().size() > 256)
      throw Failure("a model without an id of 1 to 256 characters: " + model.dump());
    const json window = model.value("context_window", json());
    if (!window.is_number_integer() || window.get<int64_t>() < 1 ||
        window.get<int64_t>() > 100000000)
      throw Failure("model " + model["id"].get<std::string>() +
                    ": context_window must be an integer from 1 to 100000000");
  }
  return models;
}

std::string model_to_use(const Context& context, const ProviderInstance& instance) {
  if (!context.options->model.empty()) return context.options->model;
  try {
    return checked_models(instance).at(0).at("id").get<std::string>();
  } catch (const std::exception& e) {
    throw Skip(std::string("no model to ask (pass --model): ") + e.what());
  }
}

Outcome list_models(const Context& context) {
  auto instance = make_instance<ProviderInstance>(context);
  json models = checked_models(*instance);
  return {Result::pass,
          std::to_string(models.size()) + " model(s), first " + models[0]["id"].get<std::string>()};
}

Outcome complete(const Context& context) {
  auto instance = make_instance<ProviderInstance>(context);
  const std::string model = model_to_use(context, *instance);
  std::string text, finish;
  auto on_delta = [&](const ProviderDelta& delta) {
    if (delta.kind == AGENTRT_DELTA_TEXT) text.append(delta.data);
    if (delta.kind == AGENTRT_DELTA_FINISH) finish.assign(delta.data);
    return true;
  };
  try {
    instance->complete(one_message_request(model, context.options->prompt), on_delta,
                       [] { return false; });
  } catch (const core::PluginError& e) {
    return {Result::fail, "model " + model + ": " + describe(e)};
  }
  if (text.empty()) return {Result::fail, "model " + model + ": no text delta"};
  if (finish.empty()) return {Result::fail, "model " + model + ": no finish delta"};
  return {Result::pass, "model " + model + ": " + std::to_string(text.size()) +
                            " bytes of text, finish " + finish};
}

// The sink says stop after the first delta; the plugin must return CANCELLED promptly.
Outcome cancel(const Context& context) {
  auto instance = make_instance<ProviderInstance>(context);
  const std::string model = model_to_use(context, *instance);
  std::string prompt;
  for (int i = 1; i <= 64; ++i) prompt += "Count to " + std::to_string(i) + ", slowly. ";
  std::atomic<bool> stopped{false};
  std::atomic<int64_t> stopped_at{0};
  auto on_delta = [&](const ProviderDelta&) {
    if (!stopped.exchange(true)) stopped_at = Clock::now().time_since_epoch().count();
    return false;
  };
  try {
    instance->complete(one_message_request(model, prompt), on_delta,
                       [&] { return stopped.load(); });
  } catch (const core::PluginError& e) {
    if (!stopped) return {Result::skip, "no delta arrived to cancel after: " + describe(e)};
    if (e.code != AGENTRT_ERR_CANCELLED)
      return {Result::fail, "cancelled, but the call returned " + describe(e)};
    const auto took = Clock::now() - Clock::time_point(Clock::duration(stopped_at.load()));
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(took).count();
    if (ms >= 2000) return {Result::fail, "returned CANCELLED " + std::to_string(ms) + " ms late"};
    return {Result::pass, "returned CANCELLED " + std::to_string(ms) + " ms after the stop"};
  }
  if (!stopped) return {Result::skip, "the completion sent no delta"};
  return {Result::fail, "the call finished with OK although the sink said stop"};
}

CheapCall prepare_list_models(const Context& context) {
  std::shared_ptr<ProviderInstance> instance = make_instance<ProviderInstance>(context);
  return [instance] { (void)instance->list_models(); };
}

}  // namespace

std::vector<Check> provider_checks() {
  return {{"list_models", list_models},
          {"complete", complete},
          {"cancel", cancel},
          thread_safety_check(prepare_list_models)};
}

}  // namespace agentrt::plugin_check
