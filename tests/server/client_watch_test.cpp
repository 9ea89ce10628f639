// ClientWatch: a departed client is noticed, but the socket is probed at most once an
// interval, however often a run asks.
#include "server/http/client_watch.h"

#include <gtest/gtest.h>

#include <thread>

namespace agentrt::server {
namespace {

using std::chrono::milliseconds;

TEST(ClientWatch, ProbesAtMostOnceAnIntervalAndRemembersAClientGone) {
  int probes = 0;
  bool closed = false;
  ClientWatch watch(
      [&] {
        ++probes;
        return closed;
      },
      milliseconds(40));
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(watch.gone());
  EXPECT_EQ(probes, 0) << "not before the first interval has passed";
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(watch.gone());
  EXPECT_FALSE(watch.gone());
  EXPECT_EQ(probes, 1);
  closed = true;
  EXPECT_FALSE(watch.gone()) << "the next probe waits for its interval";
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_TRUE(watch.gone());
  closed = false;
  EXPECT_TRUE(watch.gone());
  EXPECT_EQ(probes, 2);
}

TEST(ClientWatch, WithoutAProbeTheClientIsNeverGone) {
  ClientWatch watch({}, milliseconds(0));
  EXPECT_FALSE(watch.gone());
}

}  // namespace
}  // namespace agentrt::server
