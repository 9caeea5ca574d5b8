// Relay command numbers and the v0 relay header (framing, padding, limits),
// byte for byte against hex written out from tor-spec 6.1 (tor-reference.md
// 1.2, 5.2). Message bodies are in test_relay_msgs.cpp.
#include <catch2/catch.hpp>

#include "conflux/cell/relay_msg.hpp"
#include "relay_msg_test_support.hpp"

using namespace conflux;
using namespace conflux::cell;
using namespace conflux::test::relay;
using conflux::test::hex;
using conflux::test::unhex;

// ---------------------------------------------------------------------------
TEST_CASE("relay command numbers follow tor's or.h", "[relay][command]") {
  CHECK(static_cast<int>(RelayCommand::Begin) == 1);
  CHECK(static_cast<int>(RelayCommand::Extended2) == 15);
  CHECK(static_cast<int>(RelayCommand::ConfluxLink) == 19);
  CHECK(static_cast<int>(RelayCommand::ConfluxSwitch) == 22);
  CHECK(static_cast<int>(RelayCommand::EstablishIntro) == 32);
  CHECK(static_cast<int>(RelayCommand::PaddingNegotiated) == 42);
  // The 2023 tor-spec swaps these; tor and Arti use XOFF = 43, XON = 44.
  CHECK(static_cast<int>(RelayCommand::Xoff) == 43);
  CHECK(static_cast<int>(RelayCommand::Xon) == 44);

  int known = 0;
  int multiplexed = 0;
  for (int v = 0; v < 256; ++v) {
    const auto c = static_cast<RelayCommand>(v);
    if (is_known(c)) ++known;
    if (is_conflux_multiplexed(c)) ++multiplexed;
  }
  CHECK(known == 15 + 4 + 13);
  CHECK(multiplexed == 8);
  for (int v : {0, 16, 17, 18, 23, 31, 45, 255}) CHECK_FALSE(is_known(static_cast<RelayCommand>(v)));
  for (auto c : {RelayCommand::Begin, RelayCommand::Data, RelayCommand::End, RelayCommand::Connected,
                 RelayCommand::Resolve, RelayCommand::Resolved, RelayCommand::Xoff, RelayCommand::Xon})
    CHECK(is_conflux_multiplexed(c));
  for (auto c : {RelayCommand::Sendme, RelayCommand::BeginDir, RelayCommand::ConfluxSwitch,
                 RelayCommand::ConfluxLink, RelayCommand::Drop, RelayCommand::Extend2})
    CHECK_FALSE(is_conflux_multiplexed(c));
  CHECK(to_string(RelayCommand::ConfluxLinkedAck) == "CONFLUX_LINKED_ACK");
  CHECK(to_string(static_cast<RelayCommand>(200)) == "UNKNOWN");
}

// ---------------------------------------------------------------------------
TEST_CASE("relay payload: whole 509-byte DATA cell", "[relay][header]") {
  // cmd 02 | recognized 0000 | stream 1234 | digest 00000000 | len 0005 |
  // "hello" | 4 zero bytes | 509-11-5-4 = 489 padding bytes.
  const std::string want = "02" "0000" "1234" "00000000" "0005" "68656c6c6f" "00000000" + rep("ee", 489);
  REQUIRE(want.size() == 2 * 509);

  auto p = encode_relay_msg_payload(StreamId(0x1234), DataMsg{str_bytes("hello")}, &pad_ee);
  REQUIRE(p.has_value());
  CHECK(hex(*p) == want);

  const auto bytes = unhex(want);  // the view borrows from it
  auto v = decode_relay_payload(bytes);
  REQUIRE(v.has_value());
  CHECK(v->command == RelayCommand::Data);
  CHECK(v->recognized == 0);
  CHECK(v->stream == StreamId(0x1234));
  CHECK(v->digest == std::array<std::uint8_t, 4>{});
  CHECK(hex(v->body) == "68656c6c6f");
  auto m = decode_relay_msg(*v);
  REQUIRE(m.has_value());
  CHECK(std::get<DataMsg>(*m).data == str_bytes("hello"));
}

TEST_CASE("relay payload: whole BEGIN cell", "[relay][header]") {
  // "example.com:443\0" + FLAGS 00000001 (IPv6 okay) = 20 bytes, stream 0001.
  const std::string body = "6578616d706c652e636f6d3a34343300" "00000001";
  const std::string want = "01" "0000" "0001" "00000000" "0014" + body + "00000000" + rep("ee", 474);
  REQUIRE(want.size() == 2 * 509);
  BeginMsg b{"example.com", BeginAddrKind::Hostname, 443, kBeginFlagIpv6Ok};
  auto p = encode_relay_msg_payload(StreamId(1), b, &pad_ee);
  REQUIRE(p.has_value());
  CHECK(hex(*p) == want);

  const auto bytes = unhex(want);
  auto v = decode_relay_payload(bytes);
  REQUIRE(v.has_value());
  CHECK(v->command == RelayCommand::Begin);
  CHECK(v->stream == StreamId(1));
  auto m = decode_relay_msg(*v);
  REQUIRE(m.has_value());
  CHECK(std::get<BeginMsg>(*m) == b);
}

TEST_CASE("relay payload: whole SWITCH cell, Length 4 and tor 0.4.8's Length 498", "[relay][header]") {
  const std::string want4 = "16" "0000" "0000" "00000000" "0004" "00000102" "00000000" + rep("ee", 490);
  REQUIRE(want4.size() == 2 * 509);
  auto p = encode_relay_msg_payload(StreamId(0), ConfluxSwitchMsg{SeqRel(0x102)}, &pad_ee);
  REQUIRE(p.has_value());
  CHECK(hex(*p) == want4);

  // 0.4.8 sends the seqnum then 494 zero bytes with Length = 498 (0x01f2):
  // no padding at all.
  const std::string want498 = "16" "0000" "0000" "00000000" "01f2" "00000102" + rep("00", 494);
  REQUIRE(want498.size() == 2 * 509);
  for (const auto& h : {want4, want498}) {
    const auto bytes = unhex(h);
    auto v = decode_relay_payload(bytes);
    REQUIRE(v.has_value());
    auto m = decode_relay_msg(*v);
    REQUIRE(m.has_value());
    CHECK(std::get<ConfluxSwitchMsg>(*m).relative_seq == SeqRel(0x102));
  }
}

TEST_CASE("relay payload: padding rule at the edges", "[relay][header]") {
  struct Case {
    std::size_t body_len;
    std::size_t zeros;
    std::size_t random;
  };
  // 4 zero bytes then random; fewer than 4 left: all zero, no random call.
  for (auto c : {Case{0, 4, 494}, Case{493, 4, 1}, Case{494, 4, 0}, Case{495, 3, 0},
                 Case{496, 2, 0}, Case{497, 1, 0}, Case{498, 0, 0}}) {
    INFO("body_len " << c.body_len);
    std::vector<std::uint8_t> body(c.body_len, 0x41);
    g_pad_calls = 0;
    auto p = encode_relay_payload(RelayCommand::Drop, StreamId(0), body, &pad_count);
    REQUIRE(p.has_value());
    CHECK(g_pad_calls == (c.random > 0 ? 1u : 0u));
    const std::size_t at = kRelayHeaderLen + c.body_len;
    CHECK(std::all_of(p->begin() + static_cast<long>(at), p->begin() + static_cast<long>(at + c.zeros),
                      [](std::uint8_t b) { return b == 0; }));
    CHECK(std::all_of(p->begin() + static_cast<long>(at + c.zeros), p->end(),
                      [](std::uint8_t b) { return b == 0xEE; }));
    CHECK(at + c.zeros + c.random == kRelayPayloadLen);
  }
}

TEST_CASE("relay payload: default padding is random after 4 zero bytes", "[relay][header]") {
  auto a = encode_relay_payload(RelayCommand::Data, StreamId(7), unhex("aa"));
  auto b = encode_relay_payload(RelayCommand::Data, StreamId(7), unhex("aa"));
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  CHECK(hex(std::span(*a).first(16)) == "02000000070000000000" "01" "aa" "00000000");
  // 493 random bytes: equal only with probability 2^-3944.
  CHECK(*a != *b);
}

TEST_CASE("relay payload: header fields and length limits", "[relay][header]") {
  // Recognized and digest are reported verbatim (the crypto layer judges them).
  const auto h = unhex("63" "abcd" "ffff" "01020304" "0000" + rep("00", 498));
  auto v = decode_relay_payload(h);
  REQUIRE(v.has_value());
  CHECK(static_cast<int>(v->command) == 0x63);  // unknown command kept
  CHECK(v->recognized == 0xabcd);
  CHECK(v->stream == StreamId(0xffff));
  CHECK(v->digest == std::array<std::uint8_t, 4>{1, 2, 3, 4});
  CHECK(v->body.empty());
  auto m = decode_relay_msg(*v);
  REQUIRE_FALSE(m.has_value());
  CHECK(m.error() == DecodeError::UnknownCommand);

  // Length 498 is the maximum; 499 (0x01f3) and 0xffff are rejected.
  const auto max_bytes = unhex("02" "0000" "0001" "00000000" "01f2" + rep("41", 498));
  auto max = decode_relay_payload(max_bytes);
  REQUIRE(max.has_value());
  CHECK(max->body.size() == 498);
  for (const char* len : {"01f3", "ffff"}) {
    auto bad = decode_relay_payload(unhex(std::string("02" "0000" "0001" "00000000") + len + rep("41", 498)));
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error() == DecodeError::BadLength);
  }
  // The payload must be exactly 509 bytes.
  for (std::size_t n : {0u, 11u, 508u, 510u}) {
    std::vector<std::uint8_t> buf(n, 0);
    auto bad = decode_relay_payload(buf);
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error() == DecodeError::BadLength);
  }
  // Encoders refuse bodies over 498 bytes.
  std::vector<std::uint8_t> big(499, 1);
  auto e = encode_relay_payload(RelayCommand::Data, StreamId(1), big, &pad_ee);
  REQUIRE_FALSE(e.has_value());
  CHECK(e.error() == DecodeError::BadLength);
  auto e2 = encode_relay_msg_payload(StreamId(1), DataMsg{big}, &pad_ee);
  REQUIRE_FALSE(e2.has_value());
  RelayPayload untouched{};
  untouched.fill(0x55);
  CHECK_FALSE(encode_relay_payload_into(untouched, RelayCommand::Data, StreamId(1), big, &pad_ee));
  CHECK(untouched[0] == 0x55);
  rejects(RelayCommand::Drop, rep("00", 499), DecodeError::BadLength);
}
