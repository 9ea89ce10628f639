// HeldSink: a stream's events wait, in order, until its start is stored; then they and
// everything after go to the receiver, whichever thread sends them.
#include "core/runs/held_sink.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace agentrt::core {
namespace {

class Receiver : public RunSink {
 public:
  bool send(const std::string& event) override {
    std::lock_guard<std::mutex> lock(mutex);
    events.push_back(event);
    return accept_more-- > 0;
  }
  bool idle() override {
    ++idles;
    return true;
  }
  std::mutex mutex;
  std::vector<std::string> events;
  int accept_more = 1 << 30;
  std::atomic<int> idles{0};
};

TEST(HeldSink, KeepsEventsUntilOpenedThenSendsThemInOrderAndPassesTheRestOn) {
  Receiver receiver;
  HeldSink held(receiver);
  EXPECT_TRUE(held.send("run_start"));
  EXPECT_TRUE(held.send("delta 1"));
  EXPECT_TRUE(held.idle());
  EXPECT_TRUE(receiver.events.empty());
  EXPECT_EQ(receiver.idles, 0) << "no keep-alive may go out before the first event";
  EXPECT_FALSE(held.is_open());

  held.open();
  EXPECT_TRUE(held.is_open());
  EXPECT_EQ(receiver.events, (std::vector<std::string>{"run_start", "delta 1"}));
  EXPECT_TRUE(held.send("done"));
  EXPECT_TRUE(held.idle());
  EXPECT_EQ(receiver.idles, 1);
  held.open();  // a second open sends nothing twice
  EXPECT_EQ(receiver.events, (std::vector<std::string>{"run_start", "delta 1", "done"}));
}

TEST(HeldSink, AReceiverGoneWhileTheHeldEventsGoOutStopsTheRun) {
  Receiver receiver;
  receiver.accept_more = 1;  // takes the first event, then reports itself gone
  HeldSink held(receiver);
  for (const char* event : {"a", "b", "c"}) EXPECT_TRUE(held.send(event));
  held.open();
  EXPECT_EQ(receiver.events, (std::vector<std::string>{"a", "b"})) << "nothing after a refusal";
  EXPECT_FALSE(held.send("d"));
  EXPECT_FALSE(held.idle());
  EXPECT_EQ(receiver.events.size(), 2u);
}

// The provider's thread sends while the run's own thread opens the sink: every event
// arrives once, in the order sent.
TEST(HeldSink, EventsSentDuringTheOpeningKeepTheirOrder) {
  for (int round = 0; round < 20; ++round) {
    Receiver receiver;
    HeldSink held(receiver);
    ASSERT_TRUE(held.send("0"));
    std::atomic<bool> started{false};
    std::thread provider([&] {
      started = true;
      for (int i = 1; i <= 2000; ++i) held.send(std::to_string(i));
    });
    while (!started) std::this_thread::yield();
    held.open();
    provider.join();
    ASSERT_EQ(receiver.events.size(), 2001u);
    for (size_t i = 0; i < receiver.events.size(); ++i)
      ASSERT_EQ(receiver.events[i], std::to_string(i)) << "round " << round;
  }
}

}  // namespace
}  // namespace agentrt::core
