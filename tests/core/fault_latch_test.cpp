// FaultLatch (core/domain/fault_latch.h): what GET /health makes of a store's failures.
#include "core/domain/fault_latch.h"

#include <gtest/gtest.h>

#include <chrono>

namespace agentrt::core {
namespace {

using std::chrono::milliseconds;

TEST(FaultLatch, UsableWithoutProbingUntilTripped) {
  FaultLatch latch;
  int probes = 0;
  EXPECT_TRUE(latch.usable([&] { return ++probes, false; }));
  EXPECT_EQ(probes, 0);
}

TEST(FaultLatch, OnlyAProbeThatPassesClearsIt) {
  FaultLatch latch;
  latch.trip();
  EXPECT_FALSE(latch.usable([] { return false; }, milliseconds(0)));
  EXPECT_TRUE(latch.tripped());
  EXPECT_TRUE(latch.usable([] { return true; }, milliseconds(0)));
  EXPECT_FALSE(latch.tripped());
}

TEST(FaultLatch, ProbesAtMostOnceAnInterval) {
  FaultLatch latch;
  latch.trip();
  int probes = 0;
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(latch.usable([&] { return ++probes, false; }));
  EXPECT_EQ(probes, 1);
}

TEST(FaultLatch, ATripWhileTheProbeRanStands) {
  FaultLatch latch;
  latch.trip();
  EXPECT_FALSE(latch.usable(
      [&] {
        latch.trip();  // a write failed while the probe's own succeeded
        return true;
      },
      milliseconds(0)));
  EXPECT_TRUE(latch.usable([] { return true; }, milliseconds(0)));
}

TEST(FaultLatch, ACallThatSucceededClearsTheTripsBeforeIt) {
  FaultLatch latch;
  latch.trip();
  const uint64_t before = latch.trips();
  latch.passed(before);
  EXPECT_FALSE(latch.tripped());
  latch.trip();
  latch.passed(before);  // began before this trip: proves nothing about it
  EXPECT_TRUE(latch.tripped());
}

}  // namespace
}  // namespace agentrt::core
