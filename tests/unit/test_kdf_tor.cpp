// KDF-TOR (tor-spec 5.2.1) and the CREATE_FAST handshake (tor-spec 5.1.3):
// tor's own KDF vectors, a hand derivation from the spec's formula, both
// sides agreeing, and every rejection path.
#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "conflux/crypto/create_fast.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/kdf_tor.hpp"
#include "conflux/crypto/relay_crypto_keys.hpp"
#include "test_support.hpp"

using namespace conflux::crypto;
using conflux::test::hex;
using conflux::test::unhex;

namespace {

std::span<const std::uint8_t> str(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// The spec's formula written out independently: SHA-1 over K0 | [i] built as
// one buffer per block, concatenated, truncated.
std::vector<std::uint8_t> by_hand(std::span<const std::uint8_t> k0, std::size_t len) {
  std::vector<std::uint8_t> out;
  for (unsigned i = 0; out.size() < len; ++i) {
    std::vector<std::uint8_t> in(k0.begin(), k0.end());
    in.push_back(static_cast<std::uint8_t>(i));
    auto d = sha1(in);
    out.insert(out.end(), d.begin(), d.end());
  }
  out.resize(len);
  return out;
}

FastKey key(std::uint8_t first) {
  FastKey k{};
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(first + i);
  return k;
}

}  // namespace

TEST_CASE("KDF-TOR matches tor's test vectors", "[crypto][kdf_tor]") {
  // tor, src/test/test_crypto.c, test_crypto_kdf_TAP (crypto_expand_key_material_TAP, 100 bytes).
  CHECK(hex(kdf_tor(str(""), 100)) ==
        "5ba93c9db0cff93f52b521d7420e43f6eda2784fbf8b4530d8d246dd74ac53a13471bba17941dff7c4ea21bb365bbeeaf5f2"
        "c654883e56d11e43c44e9842926af7ca0a8cca12604f945414f07b01e13da42c6cf1de3abfdea9b95f34687cbbe92b9a7383");
  CHECK(hex(kdf_tor(str("Tor"), 100)) ==
        "776c6214fc647aaa5f683c737ee66ec44f03d0372e1cce69227950f236ddf1e329a7ce7c227903303f525a8c6662426e8034"
        "870642a6dabbd41b5d97ec9bf2312ea729992f48f8ea2d0ba83f45dfda1a80bdc8b80de01b23e3e0ffae099b3e4ccf28dc28");
  CHECK(hex(kdf_tor(str("AN ALARMING ITEM TO FIND ON A MONTHLY AUTO-DEBIT NOTICE"), 100)) ==
        "a340b5d126086c3ab29c2af4179196dbf95e1c72431419d3314844bf8f6afb6098db952b95581fb6c33625709d6f4400b8e7"
        "ace18a70579fad83c0982ef73f89395bcc39493ad53a685854daf2ba9b78733b805d9a6824c907ee1dba5ac27a1e466d4d10");
}

TEST_CASE("KDF-TOR equals the spec's formula at every length up to the counter's limit", "[crypto][kdf_tor]") {
  const auto k0 = unhex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627");
  for (std::size_t len : {1U, 19U, 20U, 21U, 92U, 4000U, 5120U}) {
    auto k = kdf_tor(k0, len);
    REQUIRE(k.size() == len);
    CHECK(k == by_hand(k0, len));
  }
  // A prefix of a longer output: the blocks do not depend on the length.
  const auto short_k = kdf_tor(k0, 40);
  const auto long_k = kdf_tor(k0, 92);
  CHECK(std::equal(short_k.begin(), short_k.end(), long_k.begin()));
  CHECK_THROWS_AS(kdf_tor(k0, 0), std::invalid_argument);
  CHECK_THROWS_AS(kdf_tor(k0, kKdfTorMaxLen + 1), std::invalid_argument);
}

TEST_CASE("CREATE_FAST: a known answer for fixed X and Y", "[crypto][create_fast]") {
  const FastKey x = key(0x00);
  const FastKey y = key(0x20);
  auto server = fast_server_handshake_with_y(x, y, RelayCryptoKeys::kMaterialLen);
  REQUIRE(server.has_value());
  // Computed outside the code under test: K = SHA1(X|Y|00) | SHA1(X|Y|01) | ...
  // with Python's hashlib, then split as KH | Df | Db | Kf | Kb.
  CHECK(hex(server->reply) == "202122232425262728292a2b2c2d2e2f30313233"  // Y
                              "66ddefcef95bee0017f247c6b96c0d2e616d1fb7");
  CHECK(hex(server->keys.view()) ==
        "ce670ceef6e128e05a7b04d0c4059b8f1bc4d85e955865c70d816766bb51c2172cca12bf2d346cee15cf2dab5aca394f41961094"
        "e1b8ebff5ace8392d3e3bab2d15238e301a9092e");
  // The same by the spec's formula, in this file.
  std::vector<std::uint8_t> k0(x.begin(), x.end());
  k0.insert(k0.end(), y.begin(), y.end());
  auto k = by_hand(k0, 92);
  CHECK(std::equal(k.begin(), k.begin() + 20, server->reply.begin() + 20));
  CHECK(std::equal(k.begin() + 20, k.end(), server->keys.view().begin()));

  auto client = FastClient::start_with_x(x);
  CHECK(client.x == x);
  auto keys = client.state.finish(server->reply, RelayCryptoKeys::kMaterialLen);
  REQUIRE(keys.has_value());
  CHECK(std::ranges::equal(keys->view(), server->keys.view()));
}

TEST_CASE("CREATE_FAST: both sides agree on fresh keys, the layout feeds tor1 relay crypto", "[crypto][create_fast]") {
  auto client = FastClient::start();
  auto other = FastClient::start();
  CHECK(client.x != other.x);
  // A CREATE_FAST payload is 509 bytes: X then padding.
  std::vector<std::uint8_t> payload(509, 0);
  std::copy(client.x.begin(), client.x.end(), payload.begin());
  auto server = fast_server_handshake(payload, RelayCryptoKeys::kMaterialLen);
  REQUIRE(server.has_value());
  // CREATED_FAST is also padded to 509 bytes.
  std::vector<std::uint8_t> reply(509, 0xee);
  std::copy(server->reply.begin(), server->reply.end(), reply.begin());
  auto keys = client.state.finish(reply, RelayCryptoKeys::kMaterialLen);
  REQUIRE(keys.has_value());
  CHECK(std::ranges::equal(keys->view(), server->keys.view()));
  CHECK(RelayCryptoKeys::from_key_material(keys->view()).has_value());
  // A second run picks another Y.
  auto again = fast_server_handshake(payload, RelayCryptoKeys::kMaterialLen);
  REQUIRE(again.has_value());
  CHECK_FALSE(std::equal(again->reply.begin(), again->reply.begin() + 20, server->reply.begin()));
}

TEST_CASE("CREATE_FAST: short input and a wrong KH are refused", "[crypto][create_fast]") {
  auto client = FastClient::start();
  std::vector<std::uint8_t> short_x(client.x.begin(), client.x.end() - 1);
  auto refused = fast_server_handshake(short_x, RelayCryptoKeys::kMaterialLen);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error() == HandshakeError::BadLength);

  auto server = fast_server_handshake(client.x, RelayCryptoKeys::kMaterialLen);
  REQUIRE(server.has_value());
  auto short_reply = client.state.finish(std::span(server->reply).first(39), RelayCryptoKeys::kMaterialLen);
  REQUIRE_FALSE(short_reply.has_value());
  CHECK(short_reply.error() == HandshakeError::BadLength);
  for (std::size_t flip : {0U, 20U, 39U}) {
    auto bad = server->reply;
    bad[flip] ^= 0x01;  // in Y the derived KH changes; in KH it no longer matches
    auto r = client.state.finish(bad, RelayCryptoKeys::kMaterialLen);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == HandshakeError::BadAuth);
  }
  // Another client's state does not accept this reply.
  CHECK_FALSE(FastClient::start().state.finish(server->reply, RelayCryptoKeys::kMaterialLen).has_value());
}
