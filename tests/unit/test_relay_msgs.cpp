// Relay message bodies, byte for byte against hex written out from tor-spec
// 5.1.2, 6.2-6.4, 7.3.1, prop 324 section 4 and prop 329 (tor-reference.md
// 1.2, 2.2, 2.6). The relay header is in test_relay_header.cpp.
#include <catch2/catch.hpp>

#include "conflux/cell/relay_msg.hpp"
#include "relay_msg_test_support.hpp"

using namespace conflux;
using namespace conflux::cell;
using namespace conflux::test::relay;
using conflux::test::hex;
using conflux::test::unhex;

// ---------------------------------------------------------------------------
TEST_CASE("BEGIN bodies", "[relay][stream]") {
  roundtrip("6578616d706c652e636f6d3a34343300",  // "example.com:443\0"
            BeginMsg{"example.com", BeginAddrKind::Hostname, 443, 0});
  roundtrip("6578616d706c652e636f6d3a34343300" "00000007",
            BeginMsg{"example.com", BeginAddrKind::Hostname, 443,
                     kBeginFlagIpv6Ok | kBeginFlagIpv4NotOk | kBeginFlagIpv6Preferred});
  roundtrip("3139322e302e322e313a383000",  // "192.0.2.1:80\0"
            BeginMsg{"192.0.2.1", BeginAddrKind::Ipv4, 80, 0});
  roundtrip("5b323030313a6462383a3a315d3a3830383000",  // "[2001:db8::1]:8080\0"
            BeginMsg{"2001:db8::1", BeginAddrKind::Ipv6, 8080, 0});
  roundtrip("5b3a3a315d3a363535333500",  // "[::1]:65535\0"
            BeginMsg{"::1", BeginAddrKind::Ipv6, 65535, 0});
  roundtrip("3a383000",  // ":80\0", what tor sends on onion-service circuits
            BeginMsg{"", BeginAddrKind::Hostname, 80, 0});
  // Any case is accepted and preserved.
  roundtrip("4578416d706c452e434f4d3a3100",  // "ExAmplE.COM:1\0"
            BeginMsg{"ExAmplE.COM", BeginAddrKind::Hostname, 1, 0});
  // A numeric-looking name that is not a dotted quad is a hostname.
  roundtrip("3235362e312e312e313a383000",  // "256.1.1.1:80\0"
            BeginMsg{"256.1.1.1", BeginAddrKind::Hostname, 80, 0});

  // Non-canonical but accepted: explicit zero FLAGS, stray bytes after NUL,
  // bytes after FLAGS.
  const BeginMsg ex{"example.com", BeginAddrKind::Hostname, 443, 0};
  decodes_to("6578616d706c652e636f6d3a34343300" "00000000", ex, "6578616d706c652e636f6d3a34343300");
  decodes_to("6578616d706c652e636f6d3a34343300" "0001", ex, "6578616d706c652e636f6d3a34343300");
  decodes_to("6578616d706c652e636f6d3a34343300" "00000001" "ffff",
             BeginMsg{"example.com", BeginAddrKind::Hostname, 443, 1},
             "6578616d706c652e636f6d3a34343300" "00000001");

  const auto B = RelayCommand::Begin;
  rejects(B, "", DecodeError::Truncated);
  rejects(B, "6578616d706c652e636f6d3a343433", DecodeError::Truncated);  // no NUL
  rejects(B, "6578616d706c652e636f6d3a3000", DecodeError::BadValue);      // port 0
  rejects(B, "6578616d706c652e636f6d3a363535333600", DecodeError::BadValue);  // 65536
  rejects(B, "6578616d706c652e636f6d3a393939393900", DecodeError::BadValue);  // 99999
  rejects(B, "6578616d706c652e636f6d3a00", DecodeError::BadValue);        // "host:"
  rejects(B, "6578616d706c652e636f6d00", DecodeError::BadValue);          // no port
  rejects(B, "6578616d706c652e636f6d3a30383000", DecodeError::BadValue);  // "080"
  rejects(B, "6578616d706c652e636f6d3a2b383000", DecodeError::BadValue);  // "+80"
  rejects(B, "6578616d706c652e636f6d3a3830783000", DecodeError::BadValue);  // "80x0"
  rejects(B, "613a623a383000", DecodeError::BadValue);                    // "a:b:80" (bare IPv6-ish)
  rejects(B, "6578612070652e636f6d3a383000", DecodeError::BadValue);      // space in host
  rejects(B, "5b3a3a315d383000", DecodeError::BadValue);                  // "[::1]80"
  rejects(B, "5b3a3a313a383000", DecodeError::BadValue);                  // "[::1:80" no ']'
  rejects(B, "5b3a3a315d3a00", DecodeError::BadValue);                    // "[::1]:"
  rejects(B, "5b7a7a3a3a315d3a383000", DecodeError::BadValue);            // "[zz::1]:80"
  rejects(B, "5b312e322e332e345d3a383000", DecodeError::BadValue);        // "[1.2.3.4]:80"
  rejects(B, "615d3a383000", DecodeError::BadValue);                      // "a]:80"
}

TEST_CASE("BEGIN_DIR, TRUNCATE, LINKED_ACK: empty bodies, contents ignored", "[relay][stream]") {
  roundtrip("", BeginDirMsg{});
  roundtrip("", TruncateMsg{});
  roundtrip("", ConfluxLinkedAckMsg{});
  decodes_to("000000", BeginDirMsg{}, "");
  decodes_to("01", TruncateMsg{}, "");
  decodes_to("ff", ConfluxLinkedAckMsg{}, "");
}

TEST_CASE("CONNECTED bodies", "[relay][stream]") {
  roundtrip("", ConnectedMsg{});
  roundtrip("c0000201" "00000e10", ConnectedMsg{RelayAddrTtl{kV4, 3600}});
  roundtrip("00000000" "06" + kV6Hex + "0000012c", ConnectedMsg{RelayAddrTtl{kV6, 300}});
  decodes_to("c0000201" "00000e10" "abcd", ConnectedMsg{RelayAddrTtl{kV4, 3600}}, "c0000201" "00000e10");

  const auto C = RelayCommand::Connected;
  rejects(C, "c00002", DecodeError::Truncated);
  rejects(C, "c0000201", DecodeError::Truncated);  // IPv4 without TTL
  rejects(C, "c0000201000e10", DecodeError::Truncated);
  rejects(C, "00000000" "00000e10", DecodeError::Truncated);  // 0.0.0.0 is the IPv6 marker
  rejects(C, "00000000" "06" + kV6Hex, DecodeError::Truncated);
  rejects(C, "00000000" "04" + kV6Hex + "0000012c", DecodeError::BadValue);  // type must be 6
}

TEST_CASE("DATA bodies", "[relay][stream]") {
  roundtrip("68656c6c6f", DataMsg{str_bytes("hello")});
  roundtrip("00", DataMsg{{0}});
  roundtrip(rep("5a", 498), DataMsg{std::vector<std::uint8_t>(498, 0x5a)});
  rejects(RelayCommand::Data, "", DecodeError::BadLength);
  rejects(RelayCommand::Data, rep("5a", 499), DecodeError::BadLength);
}

TEST_CASE("END bodies", "[relay][stream]") {
  CHECK(static_cast<int>(EndReason::Misc) == 1);
  CHECK(static_cast<int>(EndReason::ResolveFailed) == 2);
  CHECK(static_cast<int>(EndReason::ConnectRefused) == 3);
  CHECK(static_cast<int>(EndReason::ExitPolicy) == 4);
  CHECK(static_cast<int>(EndReason::Destroy) == 5);
  CHECK(static_cast<int>(EndReason::Done) == 6);
  CHECK(static_cast<int>(EndReason::Timeout) == 7);
  CHECK(static_cast<int>(EndReason::NoRoute) == 8);
  CHECK(static_cast<int>(EndReason::Hibernating) == 9);
  CHECK(static_cast<int>(EndReason::Internal) == 10);
  CHECK(static_cast<int>(EndReason::ResourceLimit) == 11);
  CHECK(static_cast<int>(EndReason::ConnReset) == 12);
  CHECK(static_cast<int>(EndReason::TorProtocol) == 13);
  CHECK(static_cast<int>(EndReason::NotDirectory) == 14);

  roundtrip("06", EndMsg{EndReason::Done, std::nullopt});
  roundtrip("0e", EndMsg{EndReason::NotDirectory, std::nullopt});
  roundtrip("63", EndMsg{static_cast<EndReason>(99), std::nullopt});  // unknown reasons accepted
  roundtrip("04", EndMsg{EndReason::ExitPolicy, std::nullopt});
  roundtrip("04" "c0000201" "00000e10", EndMsg{EndReason::ExitPolicy, RelayAddrTtl{kV4, 3600}});
  roundtrip("04" + kV6Hex + "0000012c", EndMsg{EndReason::ExitPolicy, RelayAddrTtl{kV6, 300}});
  // Empty END means MISC.
  decodes_to("", EndMsg{EndReason::Misc, std::nullopt}, "01");
  // EXITPOLICY without TTL: TTL reads as 0xffffffff.
  decodes_to("04" "c0000201", EndMsg{EndReason::ExitPolicy, RelayAddrTtl{kV4, 0xffffffff}},
             "04" "c0000201" "ffffffff");
  decodes_to("04" + kV6Hex, EndMsg{EndReason::ExitPolicy, RelayAddrTtl{kV6, 0xffffffff}},
             "04" + kV6Hex + "ffffffff");
  // An address of another length is ignored; the END still counts.
  decodes_to("04" "c00002", EndMsg{EndReason::ExitPolicy, std::nullopt}, "04");
  decodes_to("04" "c0000201" "00000e10" "00", EndMsg{EndReason::ExitPolicy, std::nullopt}, "04");
  // Other reasons ignore what follows.
  decodes_to("06" "c0000201" "00000e10", EndMsg{EndReason::Done, std::nullopt}, "06");
}

TEST_CASE("RESOLVE bodies", "[relay][stream]") {
  roundtrip("7777772e6578616d706c652e636f6d00", ResolveMsg{"www.example.com"});
  roundtrip("312e322e302e3139322e696e2d616464722e6172706100", ResolveMsg{"1.2.0.192.in-addr.arpa"});
  decodes_to("7777772e6578616d706c652e636f6d00" "ffff", ResolveMsg{"www.example.com"},
             "7777772e6578616d706c652e636f6d00");
  CHECK(is_reverse_lookup_name("1.2.0.192.in-addr.arpa"));
  CHECK(is_reverse_lookup_name("1.0.0.0.IP6.ARPA"));
  CHECK_FALSE(is_reverse_lookup_name("www.example.com"));
  CHECK_FALSE(is_reverse_lookup_name("arpa"));
  rejects(RelayCommand::Resolve, "7777772e6578616d706c652e636f6d", DecodeError::Truncated);
  rejects(RelayCommand::Resolve, "", DecodeError::Truncated);
  rejects(RelayCommand::Resolve, "00", DecodeError::BadValue);
  rejects(RelayCommand::Resolve, "61096200", DecodeError::BadValue);  // control byte
}

TEST_CASE("RESOLVED bodies", "[relay][stream]") {
  ResolvedMsg three{{
      {ResolvedType::Ipv4, {kV4.begin(), kV4.end()}, 3600},
      {ResolvedType::Ipv6, {kV6.begin(), kV6.end()}, 300},
      {ResolvedType::Hostname, str_bytes("example.com"), 60},
  }};
  roundtrip("04" "04" "c0000201" "00000e10"
            "06" "10" + kV6Hex + "0000012c"
            "00" "0b" "6578616d706c652e636f6d" "0000003c",
            three);
  roundtrip("f0" "18" "4572726f72207265736f6c76696e6720686f73746e616d65" "00000000",
            ResolvedMsg{{{ResolvedType::ErrorTransient, str_bytes("Error resolving hostname"), 0}}});
  roundtrip("f1" "00" "00000000", ResolvedMsg{{{ResolvedType::ErrorNontransient, {}, 0}}});
  roundtrip("07" "02" "abcd" "00000001",  // unknown type kept opaque
            ResolvedMsg{{{static_cast<ResolvedType>(7), {0xab, 0xcd}, 1}}});
  roundtrip("", ResolvedMsg{});

  const auto R = RelayCommand::Resolved;
  rejects(R, "04" "05" "c000020100" "00000e10", DecodeError::BadLength);  // IPv4 of length 5
  rejects(R, "04" "03" "c00002" "00000e10", DecodeError::BadLength);
  rejects(R, "06" "04" "c0000201" "00000e10", DecodeError::BadLength);    // IPv6 of length 4
  rejects(R, "00" "00" "00000e10", DecodeError::BadLength);               // empty hostname
  rejects(R, "04" "04" "c0000201" "0000", DecodeError::Truncated);        // short TTL
  rejects(R, "04" "04" "c0000201" "00000e10" "04", DecodeError::Truncated);  // partial 2nd answer
  rejects(R, "00" "0b" "6578616d706c65", DecodeError::Truncated);
}

// ---------------------------------------------------------------------------
TEST_CASE("SENDME bodies", "[relay][circuit]") {
  roundtrip("", SendmeMsg{});
  SendmeTag tor1;
  tor1.bytes = seq_array<20>(0);
  tor1.len = 20;
  roundtrip("01" "0014" "000102030405060708090a0b0c0d0e0f10111213", SendmeMsg{tor1});
  SendmeTag cgo;
  std::copy_n(seq_array<16>(0xa0).begin(), 16, cgo.bytes.begin());
  cgo.len = 16;
  roundtrip("01" "0010" "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf", SendmeMsg{cgo});
  CHECK(hex(cgo.view()) == "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");

  // Version 0 with content: the rest is ignored; canonical v0 is empty.
  decodes_to("00", SendmeMsg{}, "");
  decodes_to("00" "0014" + rep("11", 20), SendmeMsg{}, "");
  // v1 bytes after DATA_LEN bytes are ignored.
  decodes_to("01" "0014" "000102030405060708090a0b0c0d0e0f10111213" "ffff", SendmeMsg{tor1},
             "01" "0014" "000102030405060708090a0b0c0d0e0f10111213");

  const auto S = RelayCommand::Sendme;
  rejects(S, "01" "0013" + rep("11", 19), DecodeError::BadLength);  // DATA_LEN 19
  rejects(S, "01" "0013" + rep("11", 20), DecodeError::BadLength);
  rejects(S, "01" "0015" + rep("11", 21), DecodeError::BadLength);  // 0.4.9 accepts only 16/20
  rejects(S, "01" "0000", DecodeError::BadLength);
  rejects(S, "01" "0014" + rep("11", 19), DecodeError::Truncated);
  rejects(S, "01", DecodeError::Truncated);
  rejects(S, "01" "00", DecodeError::Truncated);
  rejects(S, "02" "0014" + rep("11", 20), DecodeError::BadVersion);
  rejects(S, "ff", DecodeError::BadVersion);
}

TEST_CASE("EXTEND2 bodies", "[relay][circuit]") {
  Extend2Msg m;
  m.link_specs.push_back(LinkSpecIpv4{kV4, 9001});
  m.link_specs.push_back(LinkSpecLegacyId{seq_array<20>(0x10)});
  m.link_specs.push_back(LinkSpecEd25519Id{seq_array<32>(0x40)});
  m.link_specs.push_back(LinkSpecIpv6{kV6, 443});
  m.link_specs.push_back(LinkSpecUnknown{7, {0xaa, 0xbb, 0xcc}});
  m.handshake_type = 3;
  m.handshake_data = {0xde, 0xad, 0xbe, 0xef};
  const std::string body =
      "05"
      "00" "06" "c0000201" "2329"
      "02" "14" "101112131415161718191a1b1c1d1e1f20212223"
      "03" "20" "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
      "01" "12" + kV6Hex + "01bb"
      "07" "03" "aabbcc"
      "0003" "0004" "deadbeef";
  roundtrip(body, m);
  roundtrip("00" "0002" "0000", Extend2Msg{{}, 2, {}});
  decodes_to("00" "0002" "0001" "ff" "eeee", Extend2Msg{{}, 2, {0xff}}, "00" "0002" "0001" "ff");

  const auto E = RelayCommand::Extend2;
  rejects(E, "", DecodeError::Truncated);
  rejects(E, "00" "0002", DecodeError::Truncated);
  rejects(E, "00" "0002" "0004" "deadbe", DecodeError::Truncated);
  rejects(E, "02" "00" "06" "c0000201" "2329", DecodeError::Truncated);  // NSPEC 2, one spec
  rejects(E, "01" "00" "07" "c0000201" "2329" "00" "0002" "0000", DecodeError::BadLength);
  rejects(E, "01" "00" "05" "c0000201" "23" "0002" "0000", DecodeError::BadLength);
  rejects(E, "01" "01" "10" + kV6Hex + "0002" "0000", DecodeError::BadLength);
  rejects(E, "01" "02" "13" + rep("11", 19) + "0002" "0000", DecodeError::BadLength);
  rejects(E, "01" "03" "1f" + rep("11", 31) + "0002" "0000", DecodeError::BadLength);
  rejects(E, "01" "03" "20" + rep("11", 31), DecodeError::Truncated);
  // At most one legacy identity and one Ed25519 identity.
  rejects(E, "02" "02" "14" + rep("11", 20) + "02" "14" + rep("22", 20) + "0002" "0000",
          DecodeError::BadValue);
  rejects(E, "02" "03" "20" + rep("11", 32) + "03" "20" + rep("22", 32) + "0002" "0000",
          DecodeError::BadValue);
  // Several IPv4 specifiers are allowed.
  auto two = decode_relay_msg(E, unhex("02" "00" "06" "c0000201" "2329" "00" "06" "c0000202" "0050"
                                       "0002" "0000"));
  REQUIRE(two.has_value());
  CHECK(std::get<Extend2Msg>(*two).link_specs.size() == 2);
}

TEST_CASE("EXTENDED2, TRUNCATED and DROP bodies", "[relay][circuit]") {
  roundtrip("0004" "deadbeef", Extended2Msg{{0xde, 0xad, 0xbe, 0xef}});
  roundtrip("0000", Extended2Msg{});
  decodes_to("0001" "aa" "bb", Extended2Msg{{0xaa}}, "0001" "aa");
  rejects(RelayCommand::Extended2, "", DecodeError::Truncated);
  rejects(RelayCommand::Extended2, "00", DecodeError::Truncated);
  rejects(RelayCommand::Extended2, "0005" "deadbeef", DecodeError::Truncated);

  roundtrip("03", TruncatedMsg{DestroyReason::Requested});
  roundtrip("00", TruncatedMsg{DestroyReason::None});
  roundtrip("c8", TruncatedMsg{static_cast<DestroyReason>(200)});  // unlisted reasons kept
  decodes_to("0b" "0000", TruncatedMsg{DestroyReason::Destroyed}, "0b");
  rejects(RelayCommand::Truncated, "", DecodeError::Truncated);

  roundtrip("", DropMsg{});
  roundtrip("000102", DropMsg{{0, 1, 2}});
}

// ---------------------------------------------------------------------------
TEST_CASE("XOFF and XON bodies", "[relay][flow]") {
  roundtrip("00", XoffMsg{});
  decodes_to("00" "ff", XoffMsg{}, "00");
  rejects(RelayCommand::Xoff, "", DecodeError::Truncated);
  rejects(RelayCommand::Xoff, "01", DecodeError::BadVersion);

  roundtrip("00" "00000064", XonMsg{100});
  roundtrip("00" "00000000", XonMsg{0});
  roundtrip("00" "ffffffff", XonMsg{0xffffffff});
  decodes_to("00" "00000064" "ff", XonMsg{100}, "00" "00000064");
  rejects(RelayCommand::Xon, "", DecodeError::Truncated);
  rejects(RelayCommand::Xon, "00" "000064", DecodeError::Truncated);
  rejects(RelayCommand::Xon, "01" "00000064", DecodeError::BadVersion);
}

// ---------------------------------------------------------------------------
TEST_CASE("CONFLUX_LINK and CONFLUX_LINKED bodies", "[relay][conflux]") {
  const std::string body =
      "01"
      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
      "0000000000000010"
      "0000000000000020"
      "03";
  REQUIRE(body.size() == 2 * kConfluxLinkBodyLen);
  ConfluxLinkFields f;
  f.nonce = seq_array<32>(0);
  f.last_seqno_sent = SeqAbs(0x10);
  f.last_seqno_recv = SeqAbs(0x20);
  f.desired_ux = ConfluxUx::HighThroughput;
  roundtrip(body, ConfluxLinkMsg{f});
  roundtrip(body, ConfluxLinkedMsg{f});

  // Large sequence numbers and every UX value.
  const std::string big = "01" + rep("ff", 32) + "8000000000000001" "ffffffffffffffff";
  for (std::uint8_t ux = 0; ux <= 4; ++ux) {
    ConfluxLinkFields g;
    g.nonce.fill(0xff);
    g.last_seqno_sent = SeqAbs(0x8000000000000001ull);
    g.last_seqno_recv = SeqAbs(0xffffffffffffffffull);
    g.desired_ux = static_cast<ConfluxUx>(ux);
    roundtrip(big + hex(std::vector<std::uint8_t>{ux}), ConfluxLinkMsg{g});
  }

  // Trailing bytes after 50 are ignored; the encoder writes exactly 50.
  decodes_to(body + "ffff", ConfluxLinkMsg{f}, body);
  decodes_to(body + rep("00", 448), ConfluxLinkedMsg{f}, body);

  // Except our extension list there (tor ignores it): type 1, resumption.
  ConfluxLinkFields resumes = f;
  resumes.offers_resumption = true;
  roundtrip(body + "010100", ConfluxLinkedMsg{resumes});
  roundtrip(body + "010100", ConfluxLinkMsg{resumes});
  decodes_to(body + "02" "0703aabbcc" "0100", ConfluxLinkedMsg{resumes}, body + "010100");  // beside an unknown type
  decodes_to(body + "01" "0703aabbcc", ConfluxLinkedMsg{f}, body);                          // only unknown types
  decodes_to(body + "0201", ConfluxLinkedMsg{f}, body);  // a list that does not parse is no list
  decodes_to(body + "01" "0105", ConfluxLinkedMsg{f}, body);

  for (auto cmd : {RelayCommand::ConfluxLink, RelayCommand::ConfluxLinked}) {
    rejects(cmd, "", DecodeError::Truncated);
    rejects(cmd, body.substr(0, 98), DecodeError::Truncated);  // 49 bytes
    rejects(cmd, "02" + body.substr(2), DecodeError::BadVersion);
    rejects(cmd, "00" + body.substr(2), DecodeError::BadVersion);
    rejects(cmd, body.substr(0, 98) + "05", DecodeError::BadValue);  // UX 5
    rejects(cmd, body.substr(0, 98) + "ff", DecodeError::BadValue);
  }
}

TEST_CASE("CONFLUX_SWITCH bodies", "[relay][conflux]") {
  roundtrip("00000102", ConfluxSwitchMsg{SeqRel(0x102)});
  roundtrip("ffffffff", ConfluxSwitchMsg{SeqRel(0xffffffff)});
  roundtrip("00000000", ConfluxSwitchMsg{SeqRel(0)});
  // tor 0.4.8: Length 498, seqnum then zeros. Any length 4..498 is read.
  decodes_to("00000102" + rep("00", 494), ConfluxSwitchMsg{SeqRel(0x102)}, "00000102");
  decodes_to("00000102" "01", ConfluxSwitchMsg{SeqRel(0x102)}, "00000102");
  rejects(RelayCommand::ConfluxSwitch, "", DecodeError::Truncated);
  rejects(RelayCommand::ConfluxSwitch, "000001", DecodeError::Truncated);
  rejects(RelayCommand::ConfluxSwitch, "00000102" + rep("00", 495), DecodeError::BadLength);
}

// ---------------------------------------------------------------------------
TEST_CASE("unknown and unimplemented commands are typed errors", "[relay][msg]") {
  for (int v : {0, 6, 7, 16, 17, 18, 23, 32, 41, 42, 45, 255}) {
    INFO("command " << v);
    rejects(static_cast<RelayCommand>(v), "", DecodeError::UnknownCommand);
    rejects(static_cast<RelayCommand>(v), "0001", DecodeError::UnknownCommand);
  }
}

TEST_CASE("command_of matches every alternative", "[relay][msg]") {
  CHECK(command_of(BeginMsg{}) == RelayCommand::Begin);
  CHECK(command_of(DataMsg{}) == RelayCommand::Data);
  CHECK(command_of(EndMsg{}) == RelayCommand::End);
  CHECK(command_of(ConnectedMsg{}) == RelayCommand::Connected);
  CHECK(command_of(SendmeMsg{}) == RelayCommand::Sendme);
  CHECK(command_of(TruncateMsg{}) == RelayCommand::Truncate);
  CHECK(command_of(TruncatedMsg{}) == RelayCommand::Truncated);
  CHECK(command_of(DropMsg{}) == RelayCommand::Drop);
  CHECK(command_of(ResolveMsg{}) == RelayCommand::Resolve);
  CHECK(command_of(ResolvedMsg{}) == RelayCommand::Resolved);
  CHECK(command_of(BeginDirMsg{}) == RelayCommand::BeginDir);
  CHECK(command_of(Extend2Msg{}) == RelayCommand::Extend2);
  CHECK(command_of(Extended2Msg{}) == RelayCommand::Extended2);
  CHECK(command_of(ConfluxLinkMsg{}) == RelayCommand::ConfluxLink);
  CHECK(command_of(ConfluxLinkedMsg{}) == RelayCommand::ConfluxLinked);
  CHECK(command_of(ConfluxLinkedAckMsg{}) == RelayCommand::ConfluxLinkedAck);
  CHECK(command_of(ConfluxSwitchMsg{}) == RelayCommand::ConfluxSwitch);
  CHECK(command_of(XoffMsg{}) == RelayCommand::Xoff);
  CHECK(command_of(XonMsg{}) == RelayCommand::Xon);
}
