// ntor-v3 (prop 332): the proposal's "X.2 Test vectors" reproduced in full
// (inputs, every listed intermediate, both handshake messages, 256 key-stream
// bytes), agreement with congestion-control extensions, every rejection
// path, and the extension-list format.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>

#include "conflux/crypto/ntor_v3.hpp"
#include "conflux/crypto/ntor_v3_detail.hpp"
#include "conflux/crypto/ntor_v3_extensions.hpp"
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

std::vector<std::uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

NtorV3ServerKeys random_server() {
  return NtorV3ServerKeys{random_array<32>(), X25519Secret::generate(), std::nullopt};
}

const std::vector<std::uint8_t> kVer(kNtorV3CircuitVerification.begin(), kNtorV3CircuitVerification.end());

const char* const kSmallOrderPoints[] = {
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0100000000000000000000000000000000000000000000000000000000000000",
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
};

// prop 332, "X.2: Test vectors".
const char kB_sk[] = "4051daa5921cfa2a1c27b08451324919538e79e788a81b38cbed097a5dff454a";
const char kB_pk[] = "f8307a2bc1870b00b828bb74dbb8fd88e632a6375ab3bcd1ae706aaa8b6cdd1d";
const char kId[] = "9fad2af287ef942632833d21f946c6260c33fae6172b60006e86e4a6911753a2";
const char kX_sk[] = "b825a3719147bcbe5fb1d0b0fcb9c09e51948048e2e3283d2ab7b45b5ef38b49";
const char kX_pk[] = "252fe9ae91264c91d4ecb8501f79d0387e34ad8ca0f7c995184f7d11d5da4f46";
const char kCM[] = "68656c6c6f20776f726c64";  // "hello world"
const char kVER[] = "78797a7a79";               // "xyzzy"
const char kY_sk[] = "4865a5b7689dafd978f529291c7171bc159be076b92186405d13220b80e2a053";
const char kY_pk[] = "4bf4814326fdab45ad5184f5518bd7fae25dc59374062698201a50a22954246d";
const char kSM[] = "486f6c61204d756e646f";  // "Hola Mundo"

const char kEncK1[] = "4cd166e93f1c60a29f8fb9ec40ea0fc878930c27800594593e1c4d0f3b5fbd02";
const char kMacK1[] = "f5b69e85fdd26e1b0bdbbc8128e32d8123040255f11f744af3cc98fc13613cda";
const char kMsgMac[] = "9e044d53565f04d82bbb3bebed3d06cea65db8be9c72b68cd461942088502f67";
const char kKeySeed[] = "b9a092741098e1f5b8ab37ce74399dd57522c974d7ae4626283a1077b9273255";
const char kVerify[] = "1dc09fb249738a79f1bc3a545eee8c415f27213894a760bb4df58862e414799a";
const char kEncKey[] = "cab8a93eef62246a83536c4384f331ec26061b66098c61421b6cae81f4f57c56";
const char kAuth[] = "2fc5f8773ca824542bc6cf6f57c7c29bbf4e5476461ab130c5b18ab0a9127665";

const char kClientHandshake[] =
    "9fad2af287ef942632833d21f946c6260c33fae6172b60006e86e4a6911753a2"
    "f8307a2bc1870b00b828bb74dbb8fd88e632a6375ab3bcd1ae706aaa8b6cdd1d"
    "252fe9ae91264c91d4ecb8501f79d0387e34ad8ca0f7c995184f7d11d5da4f46"
    "3bebd9151fd3b47c180abc"
    "9e044d53565f04d82bbb3bebed3d06cea65db8be9c72b68cd461942088502f67";
const char kServerHandshake[] =
    "4bf4814326fdab45ad5184f5518bd7fae25dc59374062698201a50a22954246d"
    "2fc5f8773ca824542bc6cf6f57c7c29bbf4e5476461ab130c5b18ab0a9127665"
    "1202c3e1e87c0d32054c";
const char kKeystream[] =
    "9c19b631fd94ed86a817e01f6c80b0743a43f5faebd39cfaa8b00fa8bcc65c3bfeaa403d91acbd68a821bf6ee8504602b094a254392a"
    "07737d5662768c7a9fb1b2814bb34780eaee6e867c773e28c212ead563e98a1cd5d5b4576f5ee61c59bde025ff2851bb19b721421694"
    "f263818e3531e43a9e4e3e2c661e2ad547d8984caa28ebecd3e4525452299be26b9185a20a90ce1eac20a91f2832d731b54502b09749"
    "b5a2a2949292f8cfcbeffb790c7790ed935a9d251e7e336148ea83b063a5618fcff674a44581585fd22077ca0e52c59a24347a38d1a1"
    "ceebddbf238541f226b8f88d0fb9c07a1bcd2ea764bbbb5dacdaf5312a14c0b9e4f06309b0333b4a";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

TEST_CASE("ntor-v3 prop 332 test vector: inputs", "[crypto][ntor_v3][kat]") {
  CHECK(hex(X25519Secret::from_bytes(arr<32>(kB_sk)).public_key()) == kB_pk);
  CHECK(hex(X25519Secret::from_bytes(arr<32>(kX_sk)).public_key()) == kX_pk);
  CHECK(hex(X25519Secret::from_bytes(arr<32>(kY_sk)).public_key()) == kY_pk);
  CHECK(unhex(kCM) == bytes_of("hello world"));
  CHECK(unhex(kVER) == bytes_of("xyzzy"));
  CHECK(unhex(kSM) == bytes_of("Hola Mundo"));
  CHECK(std::string(kKeystream).size() == 512);
}

TEST_CASE("ntor-v3 prop 332 test vector: intermediate values", "[crypto][ntor_v3][kat]") {
  namespace d = ntor_v3_detail;
  const auto b = X25519Secret::from_bytes(arr<32>(kB_sk));
  const auto x = X25519Secret::from_bytes(arr<32>(kX_sk));
  const auto y = X25519Secret::from_bytes(arr<32>(kY_sk));
  const auto id = arr<32>(kId);
  const auto ver = unhex(kVER);
  const auto& B = b.public_key();
  const auto& X = x.public_key();
  const auto& Y = y.public_key();

  auto bx = x.dh(B);
  auto xb = b.dh(X);
  auto xy = y.dh(X);
  REQUIRE((bx && xb && xy));

  d::Phase1Keys client_k1 = d::phase1_keys(*bx, id, X, B, ver);
  d::Phase1Keys server_k1 = d::phase1_keys(*xb, id, X, B, ver);
  CHECK(hex(client_k1.enc.view()) == kEncK1);
  CHECK(hex(client_k1.mac.view()) == kMacK1);
  CHECK(hex(server_k1.enc.view()) == kEncK1);
  CHECK(hex(server_k1.mac.view()) == kMacK1);

  const auto client_hs = unhex(kClientHandshake);
  const auto encrypted_cm = std::span(client_hs).subspan(96, 11);
  CHECK(hex(d::msg_mac(client_k1.mac.view(), id, B, X, encrypted_cm)) == kMsgMac);

  d::FinalSeeds seeds = d::final_seeds(*xy, *xb, id, B, X, Y, ver);
  CHECK(hex(seeds.key_seed.view()) == kKeySeed);
  CHECK(hex(seeds.verify.view()) == kVerify);

  KeyMaterial raw = d::kdf_final(seeds.key_seed.view(), 256);
  REQUIRE(raw.size() == 32 + 256);
  CHECK(hex(raw.view().first(32)) == kEncKey);
  CHECK(hex(raw.view().subspan(32)) == kKeystream);

  const auto server_hs = unhex(kServerHandshake);
  const auto encrypted_sm = std::span(server_hs).subspan(64);
  CHECK(hex(d::auth(seeds.verify.view(), id, B, Y, X, arr<32>(kMsgMac), encrypted_sm)) == kAuth);
}

TEST_CASE("ntor-v3 prop 332 test vector: handshake messages and key stream", "[crypto][ntor_v3][kat]") {
  const auto x = X25519Secret::from_bytes(arr<32>(kX_sk));
  const auto y = X25519Secret::from_bytes(arr<32>(kY_sk));
  const NtorV3NodeId id = arr<32>(kId);
  const auto B = arr<32>(kB_pk);
  const auto cm = unhex(kCM);
  const auto ver = unhex(kVER);
  const auto sm = unhex(kSM);

  auto start = NtorV3Client::start_with_ephemeral(id, B, cm, ver, x);
  REQUIRE(start.has_value());
  CHECK(hex(start->onionskin) == kClientHandshake);
  CHECK(start->onionskin.size() == kNtorV3OnionskinOverhead + cm.size());

  const NtorV3ServerKeys server{id, X25519Secret::from_bytes(arr<32>(kB_sk)), std::nullopt};
  auto pending = ntor_v3_server_receive(server, start->onionskin, ver);
  REQUIRE(pending.has_value());
  CHECK(hex(pending->client_message()) == kCM);

  auto reply = pending->reply_with_ephemeral(sm, 256, y);
  REQUIRE(reply.has_value());
  CHECK(hex(reply->reply) == kServerHandshake);
  CHECK(hex(reply->keys.view()) == kKeystream);

  auto done = start->state.finish(unhex(kServerHandshake), 256);
  REQUIRE(done.has_value());
  CHECK(hex(done->server_message) == kSM);
  CHECK(hex(done->keys.view()) == kKeystream);

  // The key stream is a SHAKE prefix: 72 bytes for tor1 are its first 72.
  auto short_done = start->state.finish(unhex(kServerHandshake), 72);
  REQUIRE(short_done.has_value());
  CHECK(hex(short_done->keys.view()) == std::string(kKeystream).substr(0, 144));

  // The relay's side also works from the published bytes alone.
  auto pending2 = ntor_v3_server_receive(server, unhex(kClientHandshake), ver);
  REQUIRE(pending2.has_value());
  CHECK(hex(pending2->client_message()) == kCM);
}

TEST_CASE("ntor-v3 circuit verification string is \"circuit extend\"", "[crypto][ntor_v3]") {
  CHECK(std::string(kNtorV3CircuitVerification.begin(), kNtorV3CircuitVerification.end()) == "circuit extend");
}

TEST_CASE("ntor-v3 agreement with congestion-control extensions", "[crypto][ntor_v3]") {
  auto server = random_server();
  auto cm = encode_ntor_v3_extensions(std::vector{make_cc_request()});
  REQUIRE(cm.has_value());
  CHECK(hex(*cm) == "010100");

  auto start = NtorV3Client::start(server.node_id, server.onion_key.public_key(), *cm, kVer);
  REQUIRE(start.has_value());
  CHECK(start->onionskin.size() == 128 + 3);

  std::vector<std::uint8_t> seen_cm;
  auto result = ntor_v3_server_handshake(
      server, start->onionskin, kVer,
      [&](std::span<const std::uint8_t> got) -> std::optional<std::vector<std::uint8_t>> {
        seen_cm.assign(got.begin(), got.end());
        auto exts = decode_ntor_v3_extensions(got);
        if (!exts) return std::nullopt;
        const NtorV3Extension* req = find_ntor_v3_extension(*exts, NtorV3ExtType::CcRequest);
        std::vector<NtorV3Extension> reply_exts;
        if (req && parse_cc_request(*req)) reply_exts.push_back(make_cc_response(31));
        auto enc = encode_ntor_v3_extensions(reply_exts);
        if (!enc) return std::nullopt;
        return *enc;
      },
      72);
  REQUIRE(result.has_value());
  CHECK(hex(seen_cm) == "010100");
  CHECK(result->reply.size() == 64 + 4);

  auto done = start->state.finish(result->reply, 72);
  REQUIRE(done.has_value());
  CHECK(hex(done->server_message) == "0102011f");
  CHECK(hex(done->keys.view()) == hex(result->keys.view()));
  auto sm = decode_ntor_v3_extensions(done->server_message);
  REQUIRE(sm.has_value());
  const NtorV3Extension* resp = find_ntor_v3_extension(*sm, NtorV3ExtType::CcResponse);
  REQUIRE(resp != nullptr);
  CHECK(*parse_cc_response(*resp) == 31);
}

TEST_CASE("ntor-v3 empty messages and the previous onion key", "[crypto][ntor_v3]") {
  auto server = random_server();
  auto old_key = X25519Secret::generate();
  server.previous_onion_key = old_key;
  for (const auto* key : {&server.onion_key, &old_key}) {
    auto start = NtorV3Client::start(server.node_id, key->public_key(), {}, kVer);
    REQUIRE(start.has_value());
    CHECK(start->onionskin.size() == kNtorV3OnionskinOverhead);
    auto pending = ntor_v3_server_receive(server, start->onionskin, kVer);
    REQUIRE(pending.has_value());
    CHECK(pending->client_message().empty());
    auto reply = pending->reply({}, 0);
    REQUIRE(reply.has_value());
    CHECK(reply->reply.size() == kNtorV3ReplyOverhead);
    CHECK(reply->keys.empty());
    auto done = start->state.finish(reply->reply, 0);
    REQUIRE(done.has_value());
    CHECK(done->server_message.empty());
  }
}

TEST_CASE("ntor-v3 server rejects bad onionskins", "[crypto][ntor_v3]") {
  auto server = random_server();
  const auto cm = bytes_of("client says hi");
  auto start = NtorV3Client::start(server.node_id, server.onion_key.public_key(), cm, kVer);
  REQUIRE(start.has_value());
  auto skin = start->onionskin;
  REQUIRE(ntor_v3_server_receive(server, skin, kVer).has_value());

  SECTION("too short") {
    CHECK(ntor_v3_server_receive(server, std::span(skin).first(127), kVer).error() == HandshakeError::BadLength);
    CHECK(ntor_v3_server_receive(server, {}, kVer).error() == HandshakeError::BadLength);
  }
  SECTION("truncated or extended message fails the MAC") {
    CHECK(ntor_v3_server_receive(server, std::span(skin).first(skin.size() - 1), kVer).error() ==
          HandshakeError::BadMac);
    auto longer = skin;
    longer.push_back(0);
    CHECK(ntor_v3_server_receive(server, longer, kVer).error() == HandshakeError::BadMac);
  }
  SECTION("another NODEID") {
    skin[0] ^= 1;
    CHECK(ntor_v3_server_receive(server, skin, kVer).error() == HandshakeError::WrongNodeId);
  }
  SECTION("another KEYID") {
    skin[63] ^= 1;
    CHECK(ntor_v3_server_receive(server, skin, kVer).error() == HandshakeError::UnknownKeyId);
  }
  SECTION("every byte of X, MSG and MAC is authenticated") {
    for (std::size_t i = 64; i < skin.size(); ++i) {
      auto bad = skin;
      bad[i] ^= 0x04;
      auto r = ntor_v3_server_receive(server, bad, kVer);
      INFO(i);
      REQUIRE(!r.has_value());
      // Flipping X may, rarely, land on a point with no DH; never acceptance.
      CHECK((r.error() == HandshakeError::BadMac || r.error() == HandshakeError::DegenerateDh));
    }
  }
  SECTION("a different verification string fails the MAC") {
    CHECK(ntor_v3_server_receive(server, skin, bytes_of("circuit extenD")).error() == HandshakeError::BadMac);
    CHECK(ntor_v3_server_receive(server, skin, {}).error() == HandshakeError::BadMac);
  }
  SECTION("small-order X") {
    for (const char* p : kSmallOrderPoints) {
      auto pt = unhex(p);
      std::copy(pt.begin(), pt.end(), skin.begin() + 64);
      INFO(p);
      CHECK(ntor_v3_server_receive(server, skin, kVer).error() == HandshakeError::DegenerateDh);
    }
  }
  SECTION("the policy can refuse") {
    auto r = ntor_v3_server_handshake(
        server, skin, kVer, [](std::span<const std::uint8_t>) { return std::optional<std::vector<std::uint8_t>>{}; },
        72);
    CHECK(r.error() == HandshakeError::Rejected);
  }
}

TEST_CASE("ntor-v3 client rejects bad replies", "[crypto][ntor_v3]") {
  auto server = random_server();
  auto start = NtorV3Client::start(server.node_id, server.onion_key.public_key(), bytes_of("cm"), kVer);
  REQUIRE(start.has_value());
  auto pending = ntor_v3_server_receive(server, start->onionskin, kVer);
  REQUIRE(pending.has_value());
  auto reply = pending->reply(bytes_of("server message"), 72);
  REQUIRE(reply.has_value());
  const auto good = reply->reply;

  SECTION("every byte of Y, AUTH and MSG is authenticated") {
    for (std::size_t i = 0; i < good.size(); ++i) {
      auto bad = good;
      bad[i] ^= 0x20;
      auto r = start->state.finish(bad, 72);
      INFO(i);
      REQUIRE(!r.has_value());
      CHECK((r.error() == HandshakeError::BadAuth || r.error() == HandshakeError::DegenerateDh));
    }
  }
  SECTION("truncated or extended SM fails AUTH") {
    CHECK(start->state.finish(std::span(good).first(good.size() - 1), 72).error() == HandshakeError::BadAuth);
    auto longer = good;
    longer.push_back(0);
    CHECK(start->state.finish(longer, 72).error() == HandshakeError::BadAuth);
  }
  SECTION("too short") {
    CHECK(start->state.finish(std::span(good).first(63), 72).error() == HandshakeError::BadLength);
  }
  SECTION("small-order Y") {
    for (const char* p : kSmallOrderPoints) {
      auto bad = good;
      auto pt = unhex(p);
      std::copy(pt.begin(), pt.end(), bad.begin());
      INFO(p);
      CHECK(start->state.finish(bad, 72).error() == HandshakeError::DegenerateDh);
    }
  }
  SECTION("a server with another verification string") {
    auto other = ntor_v3_server_receive(server, start->onionskin, bytes_of("other"));
    CHECK(other.error() == HandshakeError::BadMac);
  }
  // The state survives rejected replies.
  auto ok = start->state.finish(good, 72);
  REQUIRE(ok.has_value());
  CHECK(ok->server_message == bytes_of("server message"));
  CHECK(hex(ok->keys.view()) == hex(reply->keys.view()));
}

TEST_CASE("ntor-v3 client refuses a small-order onion key", "[crypto][ntor_v3]") {
  for (const char* p : kSmallOrderPoints) {
    INFO(p);
    auto r = NtorV3Client::start(NtorV3NodeId{}, arr<32>(p), {}, kVer);
    CHECK(r.error() == HandshakeError::DegenerateDh);
  }
}

// ---- extension lists ------------------------------------------------------

TEST_CASE("ntor-v3 extensions: CC request and response bytes", "[crypto][ntor_v3][ext]") {
  auto cm = decode_ntor_v3_extensions(unhex("01 01 00"));
  REQUIRE(cm.has_value());
  REQUIRE(cm->size() == 1);
  CHECK((*cm)[0] == make_cc_request());
  CHECK(parse_cc_request((*cm)[0]).has_value());
  CHECK(hex(*encode_ntor_v3_extensions(*cm)) == "010100");

  auto sm = decode_ntor_v3_extensions(unhex("01 02 01 1f"));
  REQUIRE(sm.has_value());
  REQUIRE(sm->size() == 1);
  CHECK((*sm)[0] == make_cc_response(31));
  CHECK(*parse_cc_response((*sm)[0]) == 31);
  CHECK(hex(*encode_ntor_v3_extensions(std::vector{make_cc_response(0x1f)})) == "0102011f");

  auto empty = decode_ntor_v3_extensions(unhex("00"));
  REQUIRE(empty.has_value());
  CHECK(empty->empty());
  CHECK(hex(*encode_ntor_v3_extensions({})) == "00");
}

TEST_CASE("ntor-v3 extensions: subprotocol request", "[crypto][ntor_v3][ext]") {
  const std::vector<NtorV3SubprotoRequest> reqs = {{0x02, 0x05}, {0x0a, 0x01}};
  auto ext = make_subproto_request(reqs);
  REQUIRE(ext.has_value());
  auto enc = encode_ntor_v3_extensions(std::vector{make_cc_request(), *ext});
  REQUIRE(enc.has_value());
  CHECK(hex(*enc) == "02" "0100" "0304" "0205" "0a01");

  auto dec = decode_ntor_v3_extensions(unhex("02 01 00 03 04 02 05 0a 01"));
  REQUIRE(dec.has_value());
  REQUIRE(dec->size() == 2);
  const NtorV3Extension* sub = find_ntor_v3_extension(*dec, NtorV3ExtType::SubprotoRequest);
  REQUIRE(sub != nullptr);
  auto parsed = parse_subproto_request(*sub);
  REQUIRE(parsed.has_value());
  CHECK(*parsed == reqs);

  CHECK(parse_subproto_request({0x03, {0x02}}).error() == NtorV3ExtError::BadBody);
  CHECK(parse_subproto_request({0x03, {}}).has_value());
  std::vector<NtorV3SubprotoRequest> many(127, {1, 2});
  CHECK(make_subproto_request(many).has_value());
  many.push_back({1, 2});
  CHECK(make_subproto_request(many).error() == NtorV3ExtError::TooLong);
}

TEST_CASE("ntor-v3 extensions: unknown types kept, first occurrence wins", "[crypto][ntor_v3][ext]") {
  const std::string wire = "03" "2a03616263" "0201" "07" "020120";
  auto dec = decode_ntor_v3_extensions(unhex(wire));
  REQUIRE(dec.has_value());
  REQUIRE(dec->size() == 3);
  CHECK((*dec)[0].type == 0x2a);
  CHECK((*dec)[0].body == bytes_of("abc"));
  const NtorV3Extension* resp = find_ntor_v3_extension(*dec, NtorV3ExtType::CcResponse);
  REQUIRE(resp != nullptr);
  CHECK(*parse_cc_response(*resp) == 7);
  CHECK(find_ntor_v3_extension(*dec, NtorV3ExtType::CcRequest) == nullptr);
  CHECK(hex(*encode_ntor_v3_extensions(*dec)) == wire);
}

TEST_CASE("ntor-v3 extensions: malformed lists rejected", "[crypto][ntor_v3][ext]") {
  using E = NtorV3ExtError;
  CHECK(decode_ntor_v3_extensions({}).error() == E::Truncated);
  CHECK(decode_ntor_v3_extensions(unhex("01")).error() == E::Truncated);
  CHECK(decode_ntor_v3_extensions(unhex("01 01")).error() == E::Truncated);
  CHECK(decode_ntor_v3_extensions(unhex("01 02 02 1f")).error() == E::Truncated);
  CHECK(decode_ntor_v3_extensions(unhex("02 01 00")).error() == E::Truncated);
  CHECK(decode_ntor_v3_extensions(unhex("01 01 00 00")).error() == E::TrailingBytes);
  CHECK(decode_ntor_v3_extensions(unhex("00 00")).error() == E::TrailingBytes);
  CHECK(decode_ntor_v3_extensions(unhex("01 02 01 1f ff")).error() == E::TrailingBytes);
  CHECK(lower(std::string(to_string(E::TrailingBytes))).find("trailing") != std::string::npos);
}

TEST_CASE("ntor-v3 extensions: typed bodies checked", "[crypto][ntor_v3][ext]") {
  using E = NtorV3ExtError;
  CHECK(parse_cc_request({0x01, {0x00}}).error() == E::BadBody);
  CHECK(parse_cc_request({0x02, {}}).error() == E::BadBody);
  CHECK(parse_cc_response({0x02, {}}).error() == E::BadBody);
  CHECK(parse_cc_response({0x02, {0x1f, 0x00}}).error() == E::BadBody);
  CHECK(parse_cc_response({0x01, {0x1f}}).error() == E::BadBody);
}

TEST_CASE("ntor-v3 extensions: encoder limits", "[crypto][ntor_v3][ext]") {
  using E = NtorV3ExtError;
  std::vector<NtorV3Extension> big{{0x10, std::vector<std::uint8_t>(255, 0xaa)}};
  auto ok = encode_ntor_v3_extensions(big);
  REQUIRE(ok.has_value());
  CHECK(ok->size() == 1 + 2 + 255);
  CHECK((*ok)[2] == 0xff);
  auto back = decode_ntor_v3_extensions(*ok);
  REQUIRE(back.has_value());
  CHECK(*back == big);
  big[0].body.push_back(0);
  CHECK(encode_ntor_v3_extensions(big).error() == E::TooLong);

  std::vector<NtorV3Extension> many(255, make_cc_request());
  auto enc = encode_ntor_v3_extensions(many);
  REQUIRE(enc.has_value());
  CHECK(enc->size() == 1 + 255 * 2);
  CHECK((*enc)[0] == 0xff);
  many.push_back(make_cc_request());
  CHECK(encode_ntor_v3_extensions(many).error() == E::TooLong);
}
