// Channel cells (tor-spec 3, 4, 5.1, 5.4; padding-spec 2.2): framing and every
// body, round-tripped byte for byte against hex written out from the spec's
// field layouts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "conflux/bytes/writer.hpp"
#include "conflux/cell/auth_challenge_cell.hpp"
#include "conflux/cell/authenticate_cell.hpp"
#include "conflux/cell/cell_command.hpp"
#include "conflux/cell/certs_cell.hpp"
#include "conflux/cell/channel_cell.hpp"
#include "conflux/cell/create_cells.hpp"
#include "conflux/cell/destroy_cell.hpp"
#include "conflux/cell/netinfo_cell.hpp"
#include "conflux/cell/opaque_relay_cell.hpp"
#include "conflux/cell/padding_cells.hpp"
#include "conflux/cell/versions_cell.hpp"
#include "test_support.hpp"

using namespace conflux;
using namespace conflux::cell;
using conflux::test::hex;
using conflux::test::unhex;

namespace {

// `n` copies of a one-byte hex pattern such as "00".
std::string rep(const char* byte_hex, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += byte_hex;
  return s;
}

std::vector<std::uint8_t> body_of(std::vector<std::uint8_t> v) { return v; }
std::vector<std::uint8_t> body_of(CellEncoded<std::vector<std::uint8_t>> r) {
  REQUIRE(r.has_value());
  return std::move(r).value();
}

const Framed& expect_framed(const FrameResult& r) {
  const auto* f = std::get_if<Framed>(&r);
  REQUIRE(f != nullptr);
  return *f;
}

std::size_t expect_need_more(const FrameResult& r) {
  const auto* n = std::get_if<NeedMore>(&r);
  REQUIRE(n != nullptr);
  return n->total_needed;
}

FrameError expect_frame_error(const FrameResult& r) {
  const auto* e = std::get_if<FrameError>(&r);
  REQUIRE(e != nullptr);
  return *e;
}

// Frames `wire` (which must be exactly one cell), decodes the body, compares
// it with `expected`, then encodes `expected` and compares with `wire`.
template <class T, class Dec, class Enc>
void round_trip(LinkVersion link, const std::vector<std::uint8_t>& wire, std::uint32_t circ,
                CellCommand cmd, const T& expected, Dec decode, Enc encode) {
  const FrameResult fr = frame_cell(wire, link);
  const Framed& f = expect_framed(fr);
  CHECK(f.consumed == wire.size());
  CHECK(f.cell.circ_id.value() == circ);
  CHECK(f.cell.command == cmd);
  auto body = decode(f.cell.payload);
  REQUIRE(body.has_value());
  CHECK(*body == expected);

  auto enc = encode_cell(link, CircId{circ}, cmd, body_of(encode(expected)));
  REQUIRE(enc.has_value());
  CHECK(hex(*enc) == hex(wire));
}

}  // namespace

TEST_CASE("commands: values and variable-length rule", "[chan]") {
  CHECK(static_cast<int>(CellCommand::PaddingNegotiate) == 12);
  CHECK(static_cast<int>(CellCommand::Authorize) == 132);
  CHECK(cell_command_from_u8(13) == std::nullopt);
  CHECK(cell_command_from_u8(127) == std::nullopt);
  CHECK(cell_command_from_u8(133) == std::nullopt);
  CHECK(cell_command_from_u8(129) == CellCommand::Certs);
  CHECK(to_string(CellCommand::RelayEarly) == "RELAY_EARLY");

  for (LinkVersion v : {LinkVersion{0}, LinkVersion{3}, LinkVersion{4}, LinkVersion{5}}) {
    CHECK(is_variable_length(CellCommand::Versions, v));
    CHECK(is_variable_length(CellCommand::VPadding, v));
    CHECK(is_variable_length(CellCommand::Authorize, v));
    CHECK(is_variable_length_raw(200, v));
    CHECK_FALSE(is_variable_length(CellCommand::Relay, v));
    CHECK_FALSE(is_variable_length(CellCommand::PaddingNegotiate, v));
    CHECK_FALSE(is_variable_length_raw(127, v));
  }
  CHECK(is_variable_length(CellCommand::Versions, 2));
  CHECK_FALSE(is_variable_length(CellCommand::Certs, 2));
  CHECK_FALSE(is_variable_length(CellCommand::Versions, 1));

  CHECK(circ_id_len(kLinkNotNegotiated) == 2);
  CHECK(circ_id_len(3) == 2);
  CHECK(circ_id_len(4) == 4);
  CHECK(fixed_cell_len(5) == 514);
  CHECK(fixed_cell_len(3) == 512);
}

TEST_CASE("VERSIONS: 2-byte circuit ID before negotiation", "[chan][versions]") {
  const auto wire = unhex("0000 07 0006 0003 0004 0005");
  round_trip(kLinkNotNegotiated, wire, 0, CellCommand::Versions, VersionsCell{{3, 4, 5}},
             decode_versions_cell, encode_versions_cell);
}

TEST_CASE("VERSIONS: 4-byte circuit ID on v4, empty list", "[chan][versions]") {
  round_trip(4, unhex("00000000 07 0004 0004 0005"), 0, CellCommand::Versions,
             VersionsCell{{4, 5}}, decode_versions_cell, encode_versions_cell);
  round_trip(4, unhex("00000000 07 0000"), 0, CellCommand::Versions, VersionsCell{},
             decode_versions_cell, encode_versions_cell);
}

TEST_CASE("VERSIONS: odd length rejected", "[chan][versions][reject]") {
  const auto wire = unhex("0000 07 0003 000300");
  const FrameResult fr = frame_cell(wire, kLinkNotNegotiated);
  const Framed& f = expect_framed(fr);
  CHECK(f.consumed == 8);
  auto v = decode_versions_cell(f.cell.payload);
  REQUIRE_FALSE(v.has_value());
  CHECK(v.error() == DecodeError::BadLength);
  CHECK(decode_versions_cell(unhex("00")).error() == DecodeError::BadLength);
}

TEST_CASE("CERTS: container with opaque bodies", "[chan][certs]") {
  const auto wire = unhex("00000000 81 000c  02  04 0003 aabbcc  07 0002 0102");
  CertsCell expected{{{certs_type::kEdIdSigning, {0xaa, 0xbb, 0xcc}},
                      {certs_type::kRsaEdCrossCert, {0x01, 0x02}}}};
  round_trip(4, wire, 0, CellCommand::Certs, expected, decode_certs_cell, encode_certs_cell);
  round_trip(4, unhex("00000000 81 0001 00"), 0, CellCommand::Certs, CertsCell{},
             decode_certs_cell, encode_certs_cell);
}

TEST_CASE("CERTS: trailing bytes ignored, truncation and duplicates rejected",
          "[chan][certs][reject]") {
  auto ok = decode_certs_cell(unhex("01 05 0001 ee ffff00"));
  REQUIRE(ok.has_value());
  CHECK(*ok == CertsCell{{{5, {0xee}}}});

  CHECK(decode_certs_cell({}).error() == DecodeError::Truncated);
  CHECK(decode_certs_cell(unhex("02 04 0003 aabbcc")).error() == DecodeError::Truncated);
  CHECK(decode_certs_cell(unhex("01 04 0005 aabb")).error() == DecodeError::Truncated);
  CHECK(decode_certs_cell(unhex("01 04 00")).error() == DecodeError::Truncated);
  // Two type-4 certs: the spec allows at most one per type.
  CHECK(decode_certs_cell(unhex("02 04 0001 aa 04 0001 bb")).error() == DecodeError::BadValue);
  // Types the spec does not define are kept opaque, repeated or not.
  auto unk = decode_certs_cell(unhex("02 09 0000 09 0001 cc"));
  REQUIRE(unk.has_value());
  CHECK(unk->certs.size() == 2);

  CHECK(encode_certs_cell(CertsCell{{{2, {1}}, {2, {2}}}}).error() == CellEncodeError::BadValue);
  CertsCell many;
  many.certs.resize(256, CertsCellEntry{9, {}});
  CHECK(encode_certs_cell(many).error() == CellEncodeError::TooManyItems);
  CertsCell big{{{1, std::vector<std::uint8_t>(65533, 0)}}};  // 1 + 3 + 65533 > 65535
  CHECK(encode_certs_cell(big).error() == CellEncodeError::PayloadTooLong);
}

TEST_CASE("AUTH_CHALLENGE round trip and rejects", "[chan][auth]") {
  const std::string challenge =
      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
  const auto wire = unhex("00000000 82 0026" + challenge + "0002 0001 0003");
  AuthChallengeCell expected;
  for (std::size_t i = 0; i < 32; ++i) expected.challenge[i] = static_cast<std::uint8_t>(i);
  expected.methods = {auth_method::kRsaSha256TlsSecret, auth_method::kEd25519Sha256Rfc5705};
  round_trip(4, wire, 0, CellCommand::AuthChallenge, expected, decode_auth_challenge_cell,
             encode_auth_challenge_cell);

  // Initiators MUST ignore unexpected bytes at the end.
  auto trailing = decode_auth_challenge_cell(unhex(challenge + "0001 0003 ffff"));
  REQUIRE(trailing.has_value());
  CHECK(trailing->methods == std::vector<std::uint16_t>{3});

  CHECK(decode_auth_challenge_cell(unhex(challenge + "0003 0001 0003")).error() ==
        DecodeError::Truncated);
  CHECK(decode_auth_challenge_cell(unhex(challenge + "00")).error() == DecodeError::Truncated);
  CHECK(decode_auth_challenge_cell(unhex("0001")).error() == DecodeError::Truncated);
  CHECK(decode_auth_challenge_cell(unhex(challenge + "ffff")).error() == DecodeError::Truncated);
}

TEST_CASE("AUTHENTICATE round trip and rejects", "[chan][auth]") {
  const auto wire = unhex("00000000 83 0009 0003 0005 0102030405");
  round_trip(4, wire, 0, CellCommand::Authenticate,
             AuthenticateCell{3, {1, 2, 3, 4, 5}}, decode_authenticate_cell,
             encode_authenticate_cell);

  auto trailing = decode_authenticate_cell(unhex("0001 0001 aa bbcc"));
  REQUIRE(trailing.has_value());
  CHECK(*trailing == AuthenticateCell{1, {0xaa}});
  CHECK(decode_authenticate_cell(unhex("0003 0006 0102030405")).error() == DecodeError::Truncated);
  CHECK(decode_authenticate_cell(unhex("0003 00")).error() == DecodeError::Truncated);
  AuthenticateCell big{3, std::vector<std::uint8_t>(65532, 0)};
  CHECK(encode_authenticate_cell(big).error() == CellEncodeError::PayloadTooLong);
  big.authentication.pop_back();
  CHECK(encode_authenticate_cell(big).has_value());
}

TEST_CASE("NETINFO: whole 514-byte cell", "[chan][netinfo]") {
  // TIME 0x65a1b2c3; OTHERADDR 192.0.2.1; two of mine: 198.51.100.7, 2001:db8::1.
  const auto wire = unhex("00000000 08 65a1b2c3 04 04 c0000201 02 04 04 c6336407"
                          "06 10 20010db8000000000000000000000001" +
                          rep("00", 474));
  REQUIRE(wire.size() == 514);
  NetinfoCell expected;
  expected.timestamp = 0x65a1b2c3;
  expected.other_address = NetinfoIpv4{{192, 0, 2, 1}};
  expected.my_addresses = {NetinfoIpv4{{198, 51, 100, 7}},
                           NetinfoIpv6{{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}};
  round_trip(4, wire, 0, CellCommand::Netinfo, expected, decode_netinfo_cell, encode_netinfo_cell);
}

TEST_CASE("NETINFO: unknown address types are skipped", "[chan][netinfo]") {
  // As in tor's test_netinfo_unsupported_addr: type 3, length 5, "addr!".
  auto a = decode_netinfo_cell(unhex("00000001 04 04 08080808 01 03 05 6164647221"));
  REQUIRE(a.has_value());
  CHECK(a->timestamp == 1);
  CHECK(a->other_address == NetinfoAddress{NetinfoIpv4{{8, 8, 8, 8}}});
  CHECK(a->my_addresses.empty());

  auto b = decode_netinfo_cell(unhex("00000000 03 02 abcd 02 07 00 04 04 01020304 ffff"));
  REQUIRE(b.has_value());
  CHECK_FALSE(b->other_address.has_value());
  REQUIRE(b->my_addresses.size() == 1);
  CHECK(b->my_addresses[0] == NetinfoAddress{NetinfoIpv4{{1, 2, 3, 4}}});

  // An unknown peer address is written as ATYPE 0, ALEN 0.
  NetinfoCell client;  // clients send timestamp 0
  CHECK(hex(body_of(encode_netinfo_cell(client))) == "0000000000" "0000");
  // The tail of a fixed payload reads as type-0 empty addresses: still fine.
  std::vector<std::uint8_t> payload(kCellPayloadLen, 0);
  payload[9] = 3;  // NMYADDR = 3, all three type 0 / length 0
  auto c = decode_netinfo_cell(payload);
  REQUIRE(c.has_value());
  CHECK(*c == client);
}

TEST_CASE("NETINFO: bad lengths and truncation rejected", "[chan][netinfo][reject]") {
  // IPv4 address of length 5.
  CHECK(decode_netinfo_cell(unhex("00000000 04 05 0102030405 00")).error() == DecodeError::BadLength);
  // IPv6 address of length 4, in the "my addresses" list.
  CHECK(decode_netinfo_cell(unhex("00000000 04 04 01020304 01 06 04 01020304")).error() ==
        DecodeError::BadLength);
  CHECK(decode_netinfo_cell(unhex("00000000 06 10 0102")).error() == DecodeError::Truncated);
  CHECK(decode_netinfo_cell(unhex("00000000 04 04 01020304")).error() == DecodeError::Truncated);
  CHECK(decode_netinfo_cell(unhex("00000000 04 04 01020304 02 04 04 01020304")).error() ==
        DecodeError::Truncated);
  CHECK(decode_netinfo_cell(unhex("000000")).error() == DecodeError::Truncated);

  NetinfoCell too_many;
  too_many.my_addresses.resize(256, NetinfoIpv4{});
  CHECK(encode_netinfo_cell(too_many).error() == CellEncodeError::TooManyItems);
  NetinfoCell too_big;  // 4 + 2 + 1 + 28 * 18 = 511 > 509
  too_big.my_addresses.resize(28, NetinfoIpv6{});
  CHECK(encode_netinfo_cell(too_big).error() == CellEncodeError::PayloadTooLong);
  too_big.my_addresses.pop_back();  // 493
  CHECK(encode_netinfo_cell(too_big).has_value());
}

TEST_CASE("CREATE2: whole 514-byte cell (ntor)", "[chan][create]") {
  const std::string hdata = rep("aa", 20) + rep("bb", 32) + rep("cc", 32);  // ID | B | X
  const auto wire = unhex("80000001 0a 0002 0054" + hdata + rep("00", 421));
  REQUIRE(wire.size() == 514);
  round_trip(4, wire, 0x80000001, CellCommand::Create2, Create2Cell{htype::kNtor, unhex(hdata)},
             decode_create2_cell, encode_create2_cell);
}

TEST_CASE("CREATE2: HLEN limits", "[chan][create][reject]") {
  // HLEN 506 cannot fit after the 4-byte header of a 509-byte payload.
  std::vector<std::uint8_t> p = unhex("0003 01fa" + rep("11", 505));
  REQUIRE(p.size() == kCellPayloadLen);
  CHECK(decode_create2_cell(p).error() == DecodeError::BadLength);
  // Even when the span handed in is longer than a payload.
  p.resize(600, 0);
  CHECK(decode_create2_cell(p).error() == DecodeError::BadLength);
  // 505 is the largest that fits.
  auto max = decode_create2_cell(unhex("0003 01f9" + rep("11", 505)));
  REQUIRE(max.has_value());
  CHECK(max->hdata.size() == 505);
  CHECK(decode_create2_cell(unhex("0002 0054 aabb")).error() == DecodeError::Truncated);
  CHECK(decode_create2_cell(unhex("0002 00")).error() == DecodeError::Truncated);

  CHECK(encode_create2_cell(Create2Cell{3, std::vector<std::uint8_t>(506, 0)}).error() ==
        CellEncodeError::PayloadTooLong);
  auto enc = encode_create2_cell(Create2Cell{3, std::vector<std::uint8_t>(505, 0)});
  REQUIRE(enc.has_value());
  CHECK(enc->size() == kCellPayloadLen);
}

TEST_CASE("CREATED2 round trip and HLEN limit", "[chan][create]") {
  const auto wire = unhex("80000001 0b 0040" + rep("dd", 64) + rep("00", 443));
  REQUIRE(wire.size() == 514);
  round_trip(4, wire, 0x80000001, CellCommand::Created2,
             Created2Cell{std::vector<std::uint8_t>(64, 0xdd)}, decode_created2_cell,
             encode_created2_cell);
  CHECK(decode_created2_cell(unhex("01fc" + rep("00", 507))).error() == DecodeError::BadLength);
  CHECK(decode_created2_cell(unhex("01fb" + rep("00", 507))).has_value());
  CHECK(decode_created2_cell(unhex("0040 dddd")).error() == DecodeError::Truncated);
  CHECK(encode_created2_cell(Created2Cell{std::vector<std::uint8_t>(508, 0)}).error() ==
        CellEncodeError::PayloadTooLong);
}

TEST_CASE("CREATE_FAST / CREATED_FAST round trip", "[chan][create]") {
  const std::string x = "0102030405060708090a0b0c0d0e0f1011121314";
  CreateFastCell cf;
  for (std::size_t i = 0; i < 20; ++i) cf.x[i] = static_cast<std::uint8_t>(i + 1);
  round_trip(4, unhex("80000002 05" + x + rep("00", 489)), 0x80000002, CellCommand::CreateFast,
             cf, decode_create_fast_cell, encode_create_fast_cell);

  CreatedFastCell cd;
  cd.y.fill(0x11);
  cd.kh.fill(0x22);
  round_trip(4, unhex("80000002 06" + rep("11", 20) + rep("22", 20) + rep("00", 469)), 0x80000002,
             CellCommand::CreatedFast, cd, decode_created_fast_cell, encode_created_fast_cell);

  CHECK(decode_create_fast_cell(unhex(rep("01", 19))).error() == DecodeError::Truncated);
  CHECK(decode_created_fast_cell(unhex(rep("01", 39))).error() == DecodeError::Truncated);
}

TEST_CASE("DESTROY: whole 514-byte cell and reasons", "[chan][destroy]") {
  const auto wire = unhex("80000005 04 08" + rep("00", 508));
  REQUIRE(wire.size() == 514);
  round_trip(4, wire, 0x80000005, CellCommand::Destroy, DestroyCell{DestroyReason::ChannelClosed},
             decode_destroy_cell, encode_destroy_cell);
  // Link v3: 2-byte circuit ID, 512 bytes.
  const auto v3 = unhex("0005 04 01" + rep("00", 508));
  REQUIRE(v3.size() == 512);
  round_trip(3, v3, 5, CellCommand::Destroy, DestroyCell{DestroyReason::Protocol},
             decode_destroy_cell, encode_destroy_cell);

  // Unknown reasons are kept, not rejected.
  auto unk = decode_destroy_cell(unhex("c8"));
  REQUIRE(unk.has_value());
  CHECK(static_cast<int>(unk->reason) == 200);
  CHECK_FALSE(is_known_destroy_reason(unk->reason));
  CHECK(to_string(unk->reason) == "UNKNOWN");
  CHECK(encode_destroy_cell(*unk) == std::vector<std::uint8_t>{0xc8});
  CHECK(decode_destroy_cell({}).error() == DecodeError::Truncated);

  const char* names[] = {"NONE",          "PROTOCOL",   "INTERNAL",       "REQUESTED",
                         "HIBERNATING",   "RESOURCELIMIT", "CONNECTFAILED", "OR_IDENTITY",
                         "CHANNEL_CLOSED", "FINISHED",  "TIMEOUT",        "DESTROYED",
                         "NOSUCHSERVICE"};
  for (std::uint8_t i = 0; i <= 12; ++i) {
    CHECK(is_known_destroy_reason(static_cast<DestroyReason>(i)));
    CHECK(to_string(static_cast<DestroyReason>(i)) == names[i]);
  }
  CHECK_FALSE(is_known_destroy_reason(static_cast<DestroyReason>(13)));
}

TEST_CASE("fixed cells: padding bytes are ignored, re-encoded as NUL", "[chan]") {
  const auto wire = unhex("80000005 04 03" + rep("ee", 508));
  const FrameResult fr = frame_cell(wire, 4);
  const Framed& f = expect_framed(fr);
  auto d = decode_destroy_cell(f.cell.payload);
  REQUIRE(d.has_value());
  CHECK(d->reason == DestroyReason::Requested);
  auto enc = encode_cell(4, CircId{0x80000005}, CellCommand::Destroy, encode_destroy_cell(*d));
  REQUIRE(enc.has_value());
  CHECK(hex(*enc) == "800000050403" + rep("00", 508));
}

TEST_CASE("PADDING, VPADDING and PADDING_NEGOTIATE", "[chan][padding]") {
  round_trip(4, unhex("00000000 00" + rep("00", 509)), 0, CellCommand::Padding, PaddingCell{},
             decode_padding_cell, encode_padding_cell);
  // Before negotiation fixed cells also have 2-byte IDs.
  round_trip(kLinkNotNegotiated, unhex("0000 00" + rep("00", 509)), 0, CellCommand::Padding,
             PaddingCell{}, decode_padding_cell, encode_padding_cell);
  round_trip(4, unhex("00000000 80 0003 000000"), 0, CellCommand::VPadding, VPaddingCell{3},
             decode_vpadding_cell, encode_vpadding_cell);
  round_trip(4, unhex("00000000 80 0000"), 0, CellCommand::VPadding, VPaddingCell{0},
             decode_vpadding_cell, encode_vpadding_cell);
  // VPADDING contents are ignored.
  CHECK(*decode_vpadding_cell(unhex("abcdef")) == VPaddingCell{3});

  // START, ito_low 1500 ms, ito_high 9500 ms.
  round_trip(5, unhex("00000000 0c 00 02 05dc 251c" + rep("00", 503)), 0,
             CellCommand::PaddingNegotiate,
             PaddingNegotiateCell{PaddingNegotiateCommand::Start, 1500, 9500},
             decode_padding_negotiate_cell, encode_padding_negotiate_cell);
  CHECK(hex(encode_padding_negotiate_cell(PaddingNegotiateCell{})) == "000100000000");
}

TEST_CASE("PADDING_NEGOTIATE rejects", "[chan][padding][reject]") {
  CHECK(decode_padding_negotiate_cell(unhex("01 02 05dc 251c")).error() == DecodeError::BadVersion);
  CHECK(decode_padding_negotiate_cell(unhex("00 03 05dc 251c")).error() == DecodeError::BadValue);
  CHECK(decode_padding_negotiate_cell(unhex("00 00 05dc 251c")).error() == DecodeError::BadValue);
  CHECK(decode_padding_negotiate_cell(unhex("00 02 05dc 25")).error() == DecodeError::Truncated);
  auto stop = decode_padding_negotiate_cell(unhex("00 01 0000 0000 ffff"));
  REQUIRE(stop.has_value());
  CHECK(stop->command == PaddingNegotiateCommand::Stop);
}

TEST_CASE("RELAY / RELAY_EARLY keep the whole payload", "[chan][relay]") {
  // A plausible relay header (DATA, stream 1, length 5, "hello"), then
  // non-zero bytes standing in for random padding.
  const std::string payload = "02 0000 0001 deadbeef 0005 68656c6c6f 00000000" + rep("a5", 489);
  const auto pbytes = unhex(payload);
  REQUIRE(pbytes.size() == 509);
  OpaqueRelayCell expected;
  for (std::size_t i = 0; i < 509; ++i) expected.payload[i] = pbytes[i];
  round_trip(4, unhex("80000007 03" + payload), 0x80000007, CellCommand::Relay, expected,
             decode_opaque_relay_cell, encode_opaque_relay_cell);
  round_trip(4, unhex("80000007 09" + payload), 0x80000007, CellCommand::RelayEarly, expected,
             decode_opaque_relay_cell, encode_opaque_relay_cell);
  round_trip(3, unhex("0007 03" + payload), 7, CellCommand::Relay, expected,
             decode_opaque_relay_cell, encode_opaque_relay_cell);
  CHECK(decode_opaque_relay_cell(unhex(rep("00", 508))).error() == DecodeError::BadLength);
  CHECK(decode_opaque_relay_cell(unhex(rep("00", 510))).error() == DecodeError::BadLength);
}

TEST_CASE("framer: partial input", "[chan][framer]") {
  const auto fixed = unhex("80000005 04 08" + rep("00", 508));
  const auto var = unhex("00000000 81 000c 02 04 0003 aabbcc 07 0002 0102");

  CHECK(expect_need_more(frame_cell({}, 4)) == 5);
  CHECK(expect_need_more(frame_cell(bytes::ByteSpan(fixed).first(1), 4)) == 5);
  CHECK(expect_need_more(frame_cell(bytes::ByteSpan(fixed).first(1), kLinkNotNegotiated)) == 3);
  // Header only.
  CHECK(expect_need_more(frame_cell(bytes::ByteSpan(fixed).first(5), 4)) == 514);
  CHECK(expect_need_more(frame_cell(bytes::ByteSpan(var).first(5), 4)) == 7);
  CHECK(expect_need_more(frame_cell(bytes::ByteSpan(var).first(6), 4)) == 7);
  CHECK(expect_need_more(frame_cell(bytes::ByteSpan(var).first(7), 4)) == 19);
  // Payload minus one.
  CHECK(expect_need_more(frame_cell(bytes::ByteSpan(fixed).first(513), 4)) == 514);
  CHECK(expect_need_more(frame_cell(bytes::ByteSpan(var).first(18), 4)) == 19);

  // Every strict prefix asks for more; the whole cell frames.
  for (std::size_t n = 0; n < var.size(); ++n)
    CHECK(std::holds_alternative<NeedMore>(frame_cell(bytes::ByteSpan(var).first(n), 4)));
  for (std::size_t n = 0; n < fixed.size(); ++n)
    REQUIRE(std::holds_alternative<NeedMore>(frame_cell(bytes::ByteSpan(fixed).first(n), 4)));
  CHECK(expect_framed(frame_cell(var, 4)).consumed == 19);
  CHECK(expect_framed(frame_cell(fixed, 4)).consumed == 514);
}

TEST_CASE("framer: back-to-back cells in one buffer", "[chan][framer]") {
  const std::string certs = "00000000 81 000c 02 04 0003 aabbcc 07 0002 0102";
  const std::string challenge = "00000000 82 0026" + rep("42", 32) + "0002 0001 0003";
  const std::string netinfo = "00000000 08 00000000 04 04 c0000201 01 04 04 c6336407" + rep("00", 492);
  REQUIRE(unhex(netinfo).size() == 514);
  const std::string vpad = "00000000 80 0000";
  const auto buf = unhex(certs + challenge + netinfo + vpad + "800000");

  std::vector<CellCommand> seen;
  std::size_t off = 0;
  for (;;) {
    const FrameResult r = frame_cell(bytes::ByteSpan(buf).subspan(off), 4);
    if (const auto* f = std::get_if<Framed>(&r)) {
      seen.push_back(f->cell.command);
      switch (f->cell.command) {
        case CellCommand::Certs: CHECK(decode_certs_cell(f->cell.payload)->certs.size() == 2); break;
        case CellCommand::AuthChallenge:
          CHECK(decode_auth_challenge_cell(f->cell.payload)->challenge[31] == 0x42);
          break;
        case CellCommand::Netinfo:
          CHECK(decode_netinfo_cell(f->cell.payload)->my_addresses.size() == 1);
          break;
        default: break;
      }
      off += f->consumed;
      continue;
    }
    CHECK(expect_need_more(r) == 5);
    break;
  }
  CHECK(seen == std::vector<CellCommand>{CellCommand::Certs, CellCommand::AuthChallenge,
                                         CellCommand::Netinfo, CellCommand::VPadding});
  CHECK(off == 19 + 45 + 514 + 7);
  CHECK(buf.size() - off == 3);
}

TEST_CASE("framer: VERSIONS then a v4 cell, link version switched between", "[chan][framer]") {
  const auto buf = unhex("0000 07 0004 0004 0005  00000000 80 0001 00");
  const FrameResult first = frame_cell(buf, kLinkNotNegotiated);
  const Framed& f = expect_framed(first);
  CHECK(f.consumed == 9);
  CHECK(*decode_versions_cell(f.cell.payload) == VersionsCell{{4, 5}});
  const FrameResult second = frame_cell(bytes::ByteSpan(buf).subspan(9), 4);
  const Framed& g = expect_framed(second);
  CHECK(g.cell.command == CellCommand::VPadding);
  CHECK(g.consumed == 8);
}

TEST_CASE("framer: rejects", "[chan][framer][reject]") {
  // Unknown fixed command 13: reported once complete, droppable.
  auto fixed13 = unhex("00000000 0d" + rep("00", 509));
  CHECK(std::holds_alternative<NeedMore>(frame_cell(bytes::ByteSpan(fixed13).first(100), 4)));
  FrameError e = expect_frame_error(frame_cell(fixed13, 4));
  CHECK(e.error == DecodeError::UnknownCommand);
  CHECK(e.skip == 514);
  e = expect_frame_error(frame_cell(unhex("0000 7f" + rep("00", 509)), 3));
  CHECK(e.error == DecodeError::UnknownCommand);
  CHECK(e.skip == 512);
  // Unknown variable command 133.
  e = expect_frame_error(frame_cell(unhex("00000000 85 0002 abcd 00"), 4));
  CHECK(e.error == DecodeError::UnknownCommand);
  CHECK(e.skip == 9);
  // CERTS on a v2 link would be a fixed cell: not a usable command there.
  e = expect_frame_error(frame_cell(unhex("0000 81" + rep("00", 509)), 2));
  CHECK(e.error == DecodeError::UnknownCommand);
  CHECK(e.skip == 512);

  // Variable cell over the configured limit: refused from the header alone.
  const FramerLimits small{100};
  e = expect_frame_error(frame_cell(unhex("00000000 80 0065"), 4, small));
  CHECK(e.error == DecodeError::BadLength);
  CHECK(e.skip == 0);
  CHECK(expect_need_more(frame_cell(unhex("00000000 80 0064"), 4, small)) == 107);
  // The default accepts every length tor accepts.
  CHECK(expect_need_more(frame_cell(unhex("00000000 80 ffff"), 4)) == 7 + 65535);
}

TEST_CASE("encoders: header and size checks", "[chan][encode]") {
  bytes::Writer w;
  const std::vector<std::uint8_t> none;
  CHECK(append_fixed_cell(w, 3, CircId{0x10000}, CellCommand::Destroy, none).error() ==
        CellEncodeError::CircIdTooWide);
  CHECK(append_var_cell(w, kLinkNotNegotiated, CircId{0x10000}, CellCommand::Versions, none).error() ==
        CellEncodeError::CircIdTooWide);
  CHECK(append_fixed_cell(w, 4, CircId{1}, CellCommand::Versions, none).error() ==
        CellEncodeError::WrongCellKind);
  CHECK(append_var_cell(w, 4, CircId{1}, CellCommand::Destroy, none).error() ==
        CellEncodeError::WrongCellKind);
  CHECK(encode_cell(2, CircId{0}, CellCommand::Certs, none).error() == CellEncodeError::WrongCellKind);
  CHECK(append_fixed_cell(w, 4, CircId{1}, CellCommand::Relay, std::vector<std::uint8_t>(510, 0))
            .error() == CellEncodeError::PayloadTooLong);
  CHECK(append_var_cell(w, 4, CircId{0}, CellCommand::VPadding,
                        std::vector<std::uint8_t>(65536, 0))
            .error() == CellEncodeError::PayloadTooLong);
  CHECK(w.size() == 0);  // nothing written on error

  // Appending builds an output buffer cell after cell.
  REQUIRE(append_cell(w, kLinkNotNegotiated, CircId{0}, CellCommand::Versions, unhex("0004")).has_value());
  REQUIRE(*append_cell(w, 4, CircId{0xffffffff}, CellCommand::Padding, none) == 514);
  CHECK(hex(w.bytes()) == "0000070002" "0004" "ffffffff00" + rep("00", 509));

  VersionsCell huge;
  huge.versions.resize(32768, 4);
  CHECK(encode_versions_cell(huge).error() == CellEncodeError::TooManyItems);
  huge.versions.pop_back();
  CHECK(encode_versions_cell(huge)->size() == 65534);
  AuthChallengeCell ac;
  ac.methods.resize(32751, 1);  // 32 + 2 + 2*32751 = 65536
  CHECK(encode_auth_challenge_cell(ac).error() == CellEncodeError::TooManyItems);
  ac.methods.pop_back();
  CHECK(encode_auth_challenge_cell(ac)->size() == 65534);
}

TEST_CASE("write_fixed_cell writes in place what encode_cell returns", "[chan][fixed]") {
  const std::vector<std::uint8_t> body{0x02, 0x00, 0x00, 0x00, 0x05, 0xaa};
  for (LinkVersion link : {LinkVersion{3}, LinkVersion{4}}) {
    auto expected = encode_cell(link, CircId{0x1234}, CellCommand::Relay, body);
    REQUIRE(expected.has_value());
    std::vector<std::uint8_t> out(expected->size() + 3, 0xee);
    auto n = write_fixed_cell(out, link, CircId{0x1234}, CellCommand::Relay, body);
    REQUIRE(n.has_value());
    CHECK(*n == expected->size());
    CHECK(hex({out.data(), *n}) == hex(*expected));
    CHECK(out.back() == 0xee);  // nothing past the cell
  }
}

TEST_CASE("write_fixed_cell refuses what no fixed cell can carry, and leaves the buffer", "[chan][fixed][reject]") {
  std::vector<std::uint8_t> out(514, 0xee);
  const std::vector<std::uint8_t> too_long(kCellPayloadLen + 1, 1);
  auto n = write_fixed_cell(out, 4, CircId{1}, CellCommand::Relay, too_long);
  REQUIRE(!n.has_value());
  CHECK(n.error() == CellEncodeError::PayloadTooLong);
  n = write_fixed_cell(out, 4, CircId{1}, CellCommand::Versions, {});
  REQUIRE(!n.has_value());
  CHECK(n.error() == CellEncodeError::WrongCellKind);
  std::vector<std::uint8_t> small(513, 0xee);
  n = write_fixed_cell(small, 4, CircId{1}, CellCommand::Relay, {});
  REQUIRE(!n.has_value());
  CHECK(std::all_of(out.begin(), out.end(), [](std::uint8_t b) { return b == 0xee; }));
  CHECK(std::all_of(small.begin(), small.end(), [](std::uint8_t b) { return b == 0xee; }));
}
