// SHA-256 against the FIPS 180-2 appendix vectors and padding-boundary lengths,
// compiled straight from the plugin's source.
#include "sha256.h"

#include <gtest/gtest.h>

#include <string>

namespace agentrt::auth_token {
namespace {

std::string hex(const Sha256Digest& d) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : d) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 0xf]);
  }
  return out;
}

TEST(Sha256, EmptyMessage) {
  EXPECT_EQ(hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, OneBlockMessageAbc) {
  EXPECT_EQ(hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, TwoBlockMessage448Bits) {
  EXPECT_EQ(hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, Message896Bits) {
  EXPECT_EQ(hex(sha256("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                       "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, OneMillionA) {
  EXPECT_EQ(hex(sha256(std::string(1000000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// 55 bytes is the longest message whose padding fits one block; 56..64 need a second.
TEST(Sha256, PaddingBoundaries) {
  const std::pair<size_t, const char*> cases[] = {
      {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
      {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
  };
  for (const auto& [length, expected] : cases)
    EXPECT_EQ(hex(sha256(std::string(length, 'a'))), expected) << length << " bytes";
}

TEST(Sha256, IncrementalUpdatesMatchOneShot) {
  std::string message;
  for (int i = 0; i < 1000; ++i) message.push_back(static_cast<char>(i * 31 + 7));
  for (size_t chunk : {1u, 3u, 63u, 64u, 65u, 200u}) {
    Sha256 hasher;
    for (size_t at = 0; at < message.size(); at += chunk)
      hasher.update(message.data() + at, std::min(chunk, message.size() - at));
    EXPECT_EQ(hex(hasher.finish()), hex(sha256(message))) << "chunk " << chunk;
  }
}

}  // namespace
}  // namespace agentrt::auth_token
