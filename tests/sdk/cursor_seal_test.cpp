// The SDK's cursor seal (agentrt/cursor_seal.hpp): XTEA as published, positions back
// whole, and nothing of a position readable from its cursor.
#include <agentrt/cursor_seal.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace agentrt::sdk {
namespace {

const std::string kKey = "000102030405060708090a0b0c0d0e0f";

// The published XTEA vector (32 cycles): key 00..0f, block "ABCDEFGH".
TEST(CursorSeal, IsXteaAsPublished) {
  auto seal = CursorSeal::from_hex(kKey);
  ASSERT_TRUE(seal);
  EXPECT_EQ(seal->seal(0x4142434445464748ull), "497df3d072612cb5");
}

TEST(CursorSeal, OpensWhatItSealedAndNothingElse) {
  auto seal = CursorSeal::from_hex(kKey);
  auto other = CursorSeal::from_hex("ffeeddccbbaa99887766554433221100");
  ASSERT_TRUE(seal && other);
  for (uint64_t position : {0ull, 1ull, 2ull, 37ull, 0xffffull, (1ull << 48) - 1}) {
    const std::string sealed = seal->seal(position);
    ASSERT_EQ(sealed.size(), 16u);
    EXPECT_EQ(seal->open(sealed), position) << sealed;
    EXPECT_NE(other->seal(position), sealed) << "another key, another cursor";
  }
  int forged = 0;
  for (uint64_t i = 0; i < 2000; ++i) forged += other->open(seal->seal(i)).has_value() ? 1 : 0;
  EXPECT_LE(forged, 2) << "another key's cursors open only by chance, 1 in 65,536";
  EXPECT_FALSE(seal->open(seal->seal(1ull << 48))) << "past 2^48 is not a position";
  for (const char* junk : {"", "0123", "0123456789abcdeg", "0123456789ABCDEF", "0123456789abcdef0"})
    EXPECT_FALSE(seal->open(junk)) << junk;
  for (const char* key : {"", "00", "000102030405060708090a0b0c0d0e0g"})
    EXPECT_FALSE(CursorSeal::from_hex(key)) << key;
}

// Consecutive positions (rows written one after another) give unrelated cursors: no
// digit in common more than chance would give.
TEST(CursorSeal, NeighbouringPositionsLookUnrelated) {
  auto seal = CursorSeal::from_hex("8f3a11d2c4b5e6f708192a3b4c5d6e7f");
  ASSERT_TRUE(seal);
  int same_digits = 0;
  std::set<std::string> seen;
  for (uint64_t position = 1; position <= 1000; ++position) {
    const std::string a = seal->seal(position), b = seal->seal(position + 1);
    seen.insert(a);
    for (size_t i = 0; i < 16; ++i) same_digits += a[i] == b[i] ? 1 : 0;
  }
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_LT(same_digits, 2000) << "about 1,000 (one digit in 16) agree by chance";
}

}  // namespace
}  // namespace agentrt::sdk
