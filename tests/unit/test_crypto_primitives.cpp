// Known-answer tests for the OpenSSL wrappers: RFC 5869 (HKDF), RFC 4231
// (HMAC), RFC 7748 (X25519), RFC 8032 (Ed25519), SP 800-38A (AES-CTR), FIPS
// 180/202 (SHA-1, SHA-256, SHA3-256, SHAKE-256).
#include <catch2/catch.hpp>

#include "conflux/crypto/aes_ctr.hpp"
#include "conflux/crypto/ct.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/random.hpp"
#include "conflux/crypto/x25519.hpp"
#include "test_support.hpp"

using namespace conflux::crypto;
using conflux::test::hex;
using conflux::test::unhex;

namespace {
std::vector<std::uint8_t> range(int from, int to) {
  std::vector<std::uint8_t> v;
  for (int i = from; i < to; ++i) v.push_back(static_cast<std::uint8_t>(i));
  return v;
}
std::span<const std::uint8_t> str(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}
}  // namespace

TEST_CASE("HKDF-SHA256 RFC 5869 test case 1", "[crypto][hkdf]") {
  auto ikm = std::vector<std::uint8_t>(22, 0x0b);
  auto salt = range(0x00, 0x0d);
  auto info = range(0xf0, 0xfa);
  CHECK(hex(hkdf_sha256_extract(salt, ikm)) == "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5");
  const std::string okm =
      "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865";
  CHECK(hex(hkdf_sha256(ikm, salt, info, 42)) == okm);
  CHECK(hex(hkdf_sha256_expand(hkdf_sha256_extract(salt, ikm), info, 42)) == okm);
}

TEST_CASE("HKDF-SHA256 RFC 5869 test case 2 (long inputs)", "[crypto][hkdf]") {
  auto ikm = range(0x00, 0x50);
  auto salt = range(0x60, 0xb0);
  auto info = range(0xb0, 0x100);
  CHECK(hex(hkdf_sha256_extract(salt, ikm)) == "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244");
  CHECK(hex(hkdf_sha256(ikm, salt, info, 82)) ==
        "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
        "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
        "cc30c58179ec3e87c14c01d5c1f3434f1d87");
}

TEST_CASE("HKDF-SHA256 RFC 5869 test case 3 (empty salt and info)", "[crypto][hkdf]") {
  auto ikm = std::vector<std::uint8_t>(22, 0x0b);
  CHECK(hex(hkdf_sha256_extract({}, ikm)) == "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04");
  CHECK(hex(hkdf_sha256(ikm, {}, {}, 42)) ==
        "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8");
}

TEST_CASE("HKDF-SHA256 refuses impossible output lengths", "[crypto][hkdf]") {
  auto prk = std::vector<std::uint8_t>(32, 1);
  CHECK_THROWS(hkdf_sha256_expand(prk, {}, 255 * 32 + 1));
  CHECK(hkdf_sha256_expand(prk, {}, 255 * 32).size() == 255 * 32);
}

TEST_CASE("HMAC-SHA256 RFC 4231 test case 2", "[crypto]") {
  CHECK(hex(hmac_sha256(str("Jefe"), str("what do ya want for nothing?"))) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST_CASE("hash known answers", "[crypto]") {
  CHECK(hex(sha1(str("abc"))) == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(hex(sha256(str("abc"))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hex(sha3_256({})) == "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
  CHECK(hex(shake256({}, 32)) == "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f");
}

TEST_CASE("incremental hash: peek keeps running, copy checkpoints, restore rewinds", "[crypto]") {
  Sha1 h;
  h.update(str("a"));
  Sha1 checkpoint = h;
  h.update(str("bc"));
  CHECK(hex(h.peek()) == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(hex(h.peek()) == "a9993e364706816aba3e25717850c26c9cd0d89d");  // peek does not consume
  h.restore(checkpoint);
  h.update(str("bc"));
  CHECK(hex(h.peek()) == "a9993e364706816aba3e25717850c26c9cd0d89d");
  Sha3_256 s3;
  CHECK(hex(s3.peek()) == "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
}

TEST_CASE("AES-CTR SP 800-38A F.5.1 and F.5.5, continuous across calls", "[crypto]") {
  auto iv = unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
  auto pt = unhex("6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51");
  std::span<const std::uint8_t, 16> iv16(iv.data(), 16);

  AesCtr a128(unhex("2b7e151628aed2a6abf7158809cf4f3c"), iv16);
  auto buf = pt;
  a128.apply(std::span(buf).first(5));  // split mid-block: the key stream must continue
  a128.apply(std::span(buf).subspan(5));
  CHECK(hex(buf) == "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff");

  AesCtr a256(unhex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"), iv16);
  buf = pt;
  a256.apply(buf);
  CHECK(hex(buf) == "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5");
  CHECK_THROWS(AesCtr(unhex("00112233")));
}

TEST_CASE("X25519 RFC 7748 section 6.1", "[crypto]") {
  auto a = unhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
  auto b = unhex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
  auto alice = X25519Secret::from_bytes(std::span<const std::uint8_t, 32>(a.data(), 32));
  auto bob = X25519Secret::from_bytes(std::span<const std::uint8_t, 32>(b.data(), 32));
  CHECK(hex(alice.public_key()) == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
  CHECK(hex(bob.public_key()) == "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
  auto s1 = alice.dh(bob.public_key());
  auto s2 = bob.dh(alice.public_key());
  REQUIRE(s1.has_value());
  REQUIRE(s2.has_value());
  CHECK(hex(s1->view()) == "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
  CHECK(ct_equal(s1->view(), s2->view()));
}

TEST_CASE("X25519 rejects small-order peer keys (all-zero shared secret)", "[crypto]") {
  auto me = X25519Secret::generate();
  X25519Public zero{};
  CHECK_FALSE(me.dh(zero).has_value());
  X25519Public one{};
  one[0] = 1;  // the point of order 1 (u = 1)
  CHECK_FALSE(me.dh(one).has_value());
}

TEST_CASE("Ed25519 RFC 8032 test 1 and tamper detection", "[crypto]") {
  auto seed = unhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
  auto kp = Ed25519Keypair::from_seed(std::span<const std::uint8_t, 32>(seed.data(), 32));
  CHECK(hex(kp.public_key()) == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  auto sig = kp.sign({});
  CHECK(hex(sig) ==
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0"
        "595bbe24655141438e7a100b");
  CHECK(ed25519_verify(kp.public_key(), {}, sig));
  sig[3] ^= 1;
  CHECK_FALSE(ed25519_verify(kp.public_key(), {}, sig));
  auto other = Ed25519Keypair::generate();
  auto sig2 = other.sign(str("msg"));
  CHECK(ed25519_verify(other.public_key(), str("msg"), sig2));
  CHECK_FALSE(ed25519_verify(other.public_key(), str("msh"), sig2));
  CHECK_FALSE(ed25519_verify(kp.public_key(), str("msg"), sig2));
}

TEST_CASE("constant-time compare and random", "[crypto]") {
  auto a = unhex("00010203");
  auto b = unhex("00010204");
  CHECK(ct_equal(a, a));
  CHECK_FALSE(ct_equal(a, b));
  CHECK_FALSE(ct_equal(a, std::span(a).first(3)));
  CHECK(ct_is_zero(unhex("000000")));
  CHECK_FALSE(ct_is_zero(unhex("000100")));
  auto r1 = random_array<32>();
  auto r2 = random_array<32>();
  CHECK(r1 != r2);
  for (int i = 0; i < 1000; ++i) CHECK(random_uniform(7) < 7);
}
