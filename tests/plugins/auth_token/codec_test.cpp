// The plugin's small codecs, compiled straight from its sources: base64url (RFC 4648
// vectors), the token grammar, the secrets' hash, the list cursor and the constant-time
// comparison.
#include "base64url.h"
#include "list_cursor.h"
#include "token_format.h"

#include <gtest/gtest.h>

#include <iomanip>
#include <sstream>

namespace agentrt::auth_token {
namespace {

TEST(Base64Url, Rfc4648VectorsWithoutPadding) {
  const std::pair<const char*, const char*> cases[] = {
      {"", ""},           {"f", "Zg"},          {"fo", "Zm8"},         {"foo", "Zm9v"},
      {"foob", "Zm9vYg"}, {"fooba", "Zm9vYmE"}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : cases) {
    EXPECT_EQ(base64url_encode(plain), encoded);
    EXPECT_EQ(base64url_decode(encoded), std::optional<std::string>(plain));
  }
}

TEST(Base64Url, UsesTheUrlSafeAlphabet) {
  EXPECT_EQ(base64url_encode("\xfb\xff"), "-_8");
  EXPECT_EQ(base64url_decode("-_8"), std::optional<std::string>("\xfb\xff"));
}

TEST(Base64Url, RejectsWhatNoEncoderProduces) {
  EXPECT_FALSE(base64url_decode("Zm9v="));  // padding
  EXPECT_FALSE(base64url_decode("Zm+v"));   // standard alphabet
  EXPECT_FALSE(base64url_decode("Z"));      // impossible length
  EXPECT_FALSE(base64url_decode("Zh"));     // non-zero leftover bits
}

TEST(TokenFormat, GeneratedTokensParseBack) {
  NewToken t = generate_token();
  std::optional<TokenParts> parts = parse_token(t.token);
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->id, t.parts.id);
  EXPECT_EQ(parts->secret, t.parts.secret);
  EXPECT_EQ(base64url_decode(parts->secret)->size(), kSecretBytes);
}

TEST(TokenFormat, RejectsWrongShapes) {
  std::string good = generate_token().token;
  EXPECT_FALSE(parse_token(good.substr(0, good.size() - 1)));
  EXPECT_FALSE(parse_token(good + "A"));
  EXPECT_FALSE(parse_token("arx_" + good.substr(4)));
  std::string upper_id = good;
  upper_id[4] = 'A';
  EXPECT_FALSE(parse_token(upper_id));
  std::string bad_secret = good;
  bad_secret[40] = '+';
  EXPECT_FALSE(parse_token(bad_secret));
}

std::string hex(const Sha256Digest& d) {
  std::ostringstream out;
  for (uint8_t b : d) out << std::hex << std::setw(2) << std::setfill('0') << int{b};
  return out.str();
}

// auth.db keeps SHA-256 of the secret's base64url text: the stores of every earlier
// build hold exactly these bytes, so their tokens go on verifying. The expected values
// are FIPS 180-4's and coreutils' sha256sum of the same text.
TEST(TokenFormat, TheSecretsHashIsTheSha256OfItsText) {
  EXPECT_EQ(hex(hash_secret("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex(hash_secret("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(hash_secret("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex(hash_secret("q3Vn0-_xY9aZk2LmP8sT4wB7cD1eF6gH5jK0lM2nO3p")),
            "773f5b85f9d999805bb21d2ee9b45a0719f61208ade09c602aea8e5ef9918fef");
}

TEST(ConstantTimeEqual, DetectsADifferenceInAnyByte) {
  Sha256Digest a = hash_secret("x");
  EXPECT_TRUE(constant_time_equal(a, a));
  for (size_t i = 0; i < a.size(); ++i) {
    Sha256Digest b = a;
    b[i] ^= 0x01;
    EXPECT_FALSE(constant_time_equal(a, b)) << "byte " << i;
  }
}

TEST(ListCursor, RoundTripsAndRejectsGarbage) {
  ListPosition p{1795305599, "0123456789abcdef"};
  std::optional<ListPosition> back = decode_cursor(encode_cursor(p));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->issued, p.issued);
  EXPECT_EQ(back->id, p.id);
  for (const char* garbage : {"", "%%%", "bm9jb2xvbg", "MTIzOnh5eg", "LTE6MDEyMzQ1Njc4OWFiY2RlZg"})
    EXPECT_FALSE(decode_cursor(garbage)) << garbage;
}

}  // namespace
}  // namespace agentrt::auth_token
