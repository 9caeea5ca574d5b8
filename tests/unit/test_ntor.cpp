// ntor v1 (tor-spec 5.1.4): a published known-answer vector, agreement on
// random keys, and every rejection path (length, NODEID, KEYID, AUTH,
// degenerate Diffie-Hellman).
#include <catch2/catch.hpp>

#include <algorithm>

#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/ntor.hpp"
#include "conflux/crypto/random.hpp"
#include "test_support.hpp"

using namespace conflux::crypto;
using conflux::test::hex;
using conflux::test::unhex;

namespace {

template <std::size_t N>
std::array<std::uint8_t, N> arr(std::string_view h) {
  auto v = unhex(h);
  REQUIRE(v.size() == N);
  std::array<std::uint8_t, N> a{};
  std::copy(v.begin(), v.end(), a.begin());
  return a;
}

X25519Secret secret_from_hex(std::string_view h) { return X25519Secret::from_bytes(arr<32>(h)); }

std::span<const std::uint8_t> str(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

NtorServerKeys random_server() {
  return NtorServerKeys{random_array<20>(), X25519Secret::generate(), std::nullopt};
}

// Points whose X25519 product with any scalar is all zeros (order 1, 2, 4, 8
// and their non-canonical encodings): 0, 1, two order-8 points, p-1, p, p+1.
const char* const kSmallOrderPoints[] = {
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0100000000000000000000000000000000000000000000000000000000000000",
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
};

}  // namespace

// The vector published with Arti's ntor implementation (tor-proto
// crates/tor-proto/src/crypto/handshake/ntor.rs, `testvec`), made with fixed
// ASCII secrets. 72 bytes of keys = the tor1 Df|Db|Kf|Kb layout.
TEST_CASE("ntor v1 known-answer vector", "[crypto][ntor]") {
  const auto b = secret_from_hex("4820544f4c4420594f5520444f474954204b454550532048415050454e494e47");
  const auto x = secret_from_hex("706f6461792069207075742e2e2e2e2e2e2e2e4a454c4c59206f6e2074686973");
  const auto y = secret_from_hex("70686520737175697272656c2e2e2e2e2e2e2e2e686173206869732067616d65");
  CHECK(hex(b.public_key()) == "ccbc8541904d18af08753eae967874749e6149f873de937f57f8fd903a21c471");
  CHECK(hex(x.public_key()) == "e65dfdbef8b2635837fe2cebc086a8096eae3213e6830dc407516083d412b078");
  CHECK(hex(y.public_key()) == "390480a14362761d6aec1fea840f6e9e928fb2adb7b25c670be1045e35133a37");
  const NtorNodeId id = arr<20>("69546f6c64596f7541626f75745374616972732e");  // "iToldYouAboutStairs."

  const std::string client_hs =
      "69546f6c64596f7541626f75745374616972732e"
      "ccbc8541904d18af08753eae967874749e6149f873de937f57f8fd903a21c471"
      "e65dfdbef8b2635837fe2cebc086a8096eae3213e6830dc407516083d412b078";
  const std::string server_hs =
      "390480a14362761d6aec1fea840f6e9e928fb2adb7b25c670be1045e35133a37"
      "1cbdf68b89923e1f85e8e18ee6e805ea333fe4849c790ffd2670bd80fec95cc8";
  const std::string keys =
      "0c62dee7f48893370d0ef896758d35729867beef1a5121df80e00f79ed349af39b51cae125719182f19d932a667dae1a"
      "fbf2e336e6910e7822223e763afad0a13342157969dc6b79";

  auto start = NtorClient::start_with_ephemeral(id, b.public_key(), x);
  CHECK(hex(start.onionskin) == client_hs);

  NtorServerKeys server{id, b, std::nullopt};
  auto srv = ntor_server_handshake_with_ephemeral(server, start.onionskin, 72, y);
  REQUIRE(srv.has_value());
  CHECK(hex(srv->reply) == server_hs);
  CHECK(hex(srv->keys.view()) == keys);

  auto cli = start.state.finish(srv->reply, 72);
  REQUIRE(cli.has_value());
  CHECK(hex(cli->view()) == keys);

  // HKDF-Expand output is prefix-stable: asking for fewer bytes gives a prefix.
  auto short_keys = start.state.finish(srv->reply, 20);
  REQUIRE(short_keys.has_value());
  CHECK(hex(short_keys->view()) == keys.substr(0, 40));
}

// The formulas, recomputed from the primitives with the spec's strings, so a
// typo in a tweak constant cannot hide behind a vector that shares it.
TEST_CASE("ntor v1 matches tor-spec 5.1.4 formulas", "[crypto][ntor]") {
  auto server = random_server();
  auto x = X25519Secret::generate();
  auto y = X25519Secret::generate();
  auto start = NtorClient::start_with_ephemeral(server.node_id, server.onion_key.public_key(), x);
  auto srv = ntor_server_handshake_with_ephemeral(server, start.onionskin, 92, y);
  REQUIRE(srv.has_value());

  const auto& B = server.onion_key.public_key();
  std::vector<std::uint8_t> secret_input;
  auto put = [](std::vector<std::uint8_t>& v, std::span<const std::uint8_t> s) { v.insert(v.end(), s.begin(), s.end()); };
  put(secret_input, x.dh(y.public_key())->view());
  put(secret_input, x.dh(B)->view());
  put(secret_input, server.node_id);
  put(secret_input, B);
  put(secret_input, x.public_key());
  put(secret_input, y.public_key());
  put(secret_input, str("ntor-curve25519-sha256-1"));
  auto key_seed = hmac_sha256(str("ntor-curve25519-sha256-1:key_extract"), secret_input);
  auto verify = hmac_sha256(str("ntor-curve25519-sha256-1:verify"), secret_input);
  std::vector<std::uint8_t> auth_input;
  put(auth_input, verify);
  put(auth_input, server.node_id);
  put(auth_input, B);
  put(auth_input, y.public_key());
  put(auth_input, x.public_key());
  put(auth_input, str("ntor-curve25519-sha256-1"));
  put(auth_input, str("Server"));
  auto auth = hmac_sha256(str("ntor-curve25519-sha256-1:mac"), auth_input);

  CHECK(hex(std::span(srv->reply).first(32)) == hex(y.public_key()));
  CHECK(hex(std::span(srv->reply).last(32)) == hex(auth));
  CHECK(hex(srv->keys.view()) == hex(hkdf_sha256_expand(key_seed, str("ntor-curve25519-sha256-1:key_expand"), 92)));
  // KEY_SEED is HKDF-Extract with salt t_key, so the one-shot HKDF agrees.
  CHECK(hex(srv->keys.view()) ==
        hex(hkdf_sha256(secret_input, str("ntor-curve25519-sha256-1:key_extract"), str("ntor-curve25519-sha256-1:key_expand"), 92)));
}

TEST_CASE("ntor v1 client and server agree on random keys", "[crypto][ntor]") {
  for (int i = 0; i < 8; ++i) {
    auto server = random_server();
    auto start = NtorClient::start(server.node_id, server.onion_key.public_key());
    REQUIRE(start.onionskin.size() == kNtorOnionskinLen);
    CHECK(std::equal(server.node_id.begin(), server.node_id.end(), start.onionskin.begin()));
    auto srv = ntor_server_handshake(server, start.onionskin, 72);
    REQUIRE(srv.has_value());
    auto cli = start.state.finish(srv->reply, 72);
    REQUIRE(cli.has_value());
    REQUIRE(cli->size() == 72);
    CHECK(hex(cli->view()) == hex(srv->keys.view()));
  }
  // Two handshakes with the same relay never share keys (fresh x and y).
  auto server = random_server();
  auto s1 = NtorClient::start(server.node_id, server.onion_key.public_key());
  auto s2 = NtorClient::start(server.node_id, server.onion_key.public_key());
  auto r1 = ntor_server_handshake(server, s1.onionskin, 72);
  auto r2 = ntor_server_handshake(server, s2.onionskin, 72);
  REQUIRE((r1.has_value() && r2.has_value()));
  CHECK(hex(r1->keys.view()) != hex(r2->keys.view()));
}

TEST_CASE("ntor v1 server accepts the previous onion key", "[crypto][ntor]") {
  auto server = random_server();
  auto old_key = X25519Secret::generate();
  server.previous_onion_key = old_key;
  auto start = NtorClient::start(server.node_id, old_key.public_key());
  auto srv = ntor_server_handshake(server, start.onionskin, 72);
  REQUIRE(srv.has_value());
  auto cli = start.state.finish(srv->reply, 72);
  REQUIRE(cli.has_value());
  CHECK(hex(cli->view()) == hex(srv->keys.view()));
}

TEST_CASE("ntor v1 server rejects bad onionskins", "[crypto][ntor]") {
  auto server = random_server();
  auto start = NtorClient::start(server.node_id, server.onion_key.public_key());
  std::vector<std::uint8_t> skin(start.onionskin.begin(), start.onionskin.end());

  SECTION("wrong length") {
    auto shorter = std::span(skin).first(83);
    CHECK(ntor_server_handshake(server, shorter, 72).error() == HandshakeError::BadLength);
    auto longer = skin;
    longer.push_back(0);
    CHECK(ntor_server_handshake(server, longer, 72).error() == HandshakeError::BadLength);
    CHECK(ntor_server_handshake(server, {}, 72).error() == HandshakeError::BadLength);
  }
  SECTION("another NODEID") {
    skin[19] ^= 0x01;
    CHECK(ntor_server_handshake(server, skin, 72).error() == HandshakeError::WrongNodeId);
  }
  SECTION("another KEYID") {
    skin[20] ^= 0x80;
    CHECK(ntor_server_handshake(server, skin, 72).error() == HandshakeError::UnknownKeyId);
    auto other = NtorClient::start(server.node_id, X25519Secret::generate().public_key());
    CHECK(ntor_server_handshake(server, other.onionskin, 72).error() == HandshakeError::UnknownKeyId);
  }
  SECTION("small-order X gives an all-zero DH") {
    for (const char* p : kSmallOrderPoints) {
      auto bad = unhex(p);
      std::copy(bad.begin(), bad.end(), skin.begin() + 52);
      INFO(p);
      CHECK(ntor_server_handshake(server, skin, 72).error() == HandshakeError::DegenerateDh);
    }
  }
}

TEST_CASE("ntor v1 client rejects bad replies", "[crypto][ntor]") {
  auto server = random_server();
  auto start = NtorClient::start(server.node_id, server.onion_key.public_key());
  auto srv = ntor_server_handshake(server, start.onionskin, 72);
  REQUIRE(srv.has_value());
  NtorReply reply = srv->reply;

  SECTION("every AUTH bit matters") {
    for (std::size_t i = 32; i < 64; ++i) {
      auto bad = reply;
      bad[i] ^= static_cast<std::uint8_t>(1u << (i % 8));
      CHECK(start.state.finish(bad, 72).error() == HandshakeError::BadAuth);
    }
  }
  SECTION("a different Y fails AUTH") {
    auto bad = reply;
    bad[5] ^= 0x10;
    CHECK(start.state.finish(bad, 72).error() == HandshakeError::BadAuth);
  }
  SECTION("wrong length") {
    CHECK(start.state.finish(std::span(reply).first(63), 72).error() == HandshakeError::BadLength);
    std::vector<std::uint8_t> longer(reply.begin(), reply.end());
    longer.push_back(0);
    CHECK(start.state.finish(longer, 72).error() == HandshakeError::BadLength);
  }
  SECTION("small-order Y gives an all-zero DH") {
    for (const char* p : kSmallOrderPoints) {
      auto bad = reply;
      auto pt = unhex(p);
      std::copy(pt.begin(), pt.end(), bad.begin());
      INFO(p);
      CHECK(start.state.finish(bad, 72).error() == HandshakeError::DegenerateDh);
    }
  }
  SECTION("a reply meant for another handshake") {
    auto other = NtorClient::start(server.node_id, server.onion_key.public_key());
    CHECK(other.state.finish(reply, 72).error() == HandshakeError::BadAuth);
  }
  // A rejected reply leaves the state usable for the genuine one.
  auto ok = start.state.finish(reply, 72);
  REQUIRE(ok.has_value());
  CHECK(hex(ok->view()) == hex(srv->keys.view()));
}

TEST_CASE("ntor v1 client rejects a small-order onion key B", "[crypto][ntor]") {
  NtorNodeId id{};
  auto bad_b = arr<32>(kSmallOrderPoints[2]);
  auto start = NtorClient::start(id, bad_b);
  // Whatever the reply, EXP(B,x) is zero.
  auto y = X25519Secret::generate();
  NtorReply reply{};
  std::copy(y.public_key().begin(), y.public_key().end(), reply.begin());
  CHECK(start.state.finish(reply, 72).error() == HandshakeError::DegenerateDh);
}

TEST_CASE("ntor v1 key length is the caller's", "[crypto][ntor]") {
  auto server = random_server();
  auto start = NtorClient::start(server.node_id, server.onion_key.public_key());
  auto srv = ntor_server_handshake(server, start.onionskin, 255 * 32);
  REQUIRE(srv.has_value());
  CHECK(srv->keys.size() == 255 * 32);
  CHECK_THROWS_AS(ntor_server_handshake(server, start.onionskin, 0), std::invalid_argument);
  CHECK_THROWS_AS(ntor_server_handshake(server, start.onionskin, 255 * 32 + 1), std::invalid_argument);
  CHECK(std::string(to_string(HandshakeError::BadAuth)) == "server AUTH mismatch");
}
