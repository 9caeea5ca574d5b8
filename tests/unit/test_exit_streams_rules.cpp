// The exit's pure decisions: BEGIN flags, address choice, reverse names,
// errno -> END reason, RESOLVED bodies (checked against the wire format).
#include <catch2/catch.hpp>
#include <cerrno>

#include "conflux/cell/relay_msg.hpp"
#include "conflux/exit/exit_rules.hpp"
#include "test_support.hpp"

using namespace conflux;
using namespace conflux::exit;

namespace {
const cell::Ipv4Bytes kA{192, 0, 2, 1};
const cell::Ipv4Bytes kB{192, 0, 2, 2};
cell::Ipv6Bytes v6(std::uint8_t last) {
  cell::Ipv6Bytes b{0x20, 0x01, 0x0d, 0xb8};
  b[15] = last;
  return b;
}
}  // namespace

TEST_CASE("BEGIN flags and IPv6Exit decide the families", "[exit][rules]") {
  auto c = family_choice(0, true);
  CHECK(c.ipv4_ok);
  CHECK_FALSE(c.ipv6_ok);  // IPv6 only when the client says so (bit 1)
  CHECK(c.only_family() == proto::AddrFamily::Ipv4);

  c = family_choice(cell::kBeginFlagIpv6Ok | cell::kBeginFlagIpv6Preferred, true);
  CHECK(c.ipv4_ok);
  CHECK(c.ipv6_ok);
  CHECK(c.ipv6_preferred);
  CHECK_FALSE(c.only_family().has_value());

  c = family_choice(cell::kBeginFlagIpv6Ok | cell::kBeginFlagIpv4NotOk, true);
  CHECK(c.only_family() == proto::AddrFamily::Ipv6);

  // Without IPv6Exit, IPv6 is neither OK nor preferred.
  c = family_choice(cell::kBeginFlagIpv6Ok | cell::kBeginFlagIpv6Preferred, false);
  CHECK_FALSE(c.ipv6_ok);
  CHECK_FALSE(c.ipv6_preferred);
  c = family_choice(cell::kBeginFlagIpv4NotOk, false);
  CHECK_FALSE(c.any());
  // Reserved bits are ignored (tor-spec 6.2: servers MUST ignore them).
  CHECK(family_choice(0xfffffff8u, true).ipv4_ok);
}

TEST_CASE("the resolved address follows the flags", "[exit][rules]") {
  const std::vector<cell::Ipv4Bytes> four{kA, kB};
  const std::vector<cell::Ipv6Bytes> six{v6(1), v6(2)};
  const std::vector<cell::Ipv4Bytes> none4;
  const std::vector<cell::Ipv6Bytes> none6;

  CHECK(choose_address(four, six, family_choice(0, true)) == cell::RelayIpAddr{kA});
  CHECK(choose_address(four, six, family_choice(cell::kBeginFlagIpv6Ok, true)) == cell::RelayIpAddr{kA});
  CHECK(choose_address(four, six, family_choice(cell::kBeginFlagIpv6Ok | cell::kBeginFlagIpv6Preferred, true)) ==
        cell::RelayIpAddr{v6(1)});
  // IPv6 preferred but the name has none: IPv4 is still fine.
  CHECK(choose_address(four, none6, family_choice(cell::kBeginFlagIpv6Ok | cell::kBeginFlagIpv6Preferred, true)) ==
        cell::RelayIpAddr{kA});
  // IPv4 not OK: IPv6 or nothing.
  CHECK(choose_address(four, six, family_choice(cell::kBeginFlagIpv6Ok | cell::kBeginFlagIpv4NotOk, true)) ==
        cell::RelayIpAddr{v6(1)});
  CHECK_FALSE(choose_address(four, none6, family_choice(cell::kBeginFlagIpv6Ok | cell::kBeginFlagIpv4NotOk, true)));
  // Only IPv6 addresses and the client did not say IPv6 is OK.
  CHECK_FALSE(choose_address(none4, six, family_choice(0, true)));
}

TEST_CASE("IP literals parse strictly", "[exit][rules]") {
  CHECK(parse_ip_literal("192.0.2.1") == cell::RelayIpAddr{kA});
  CHECK(parse_ip_literal("2001:db8::1") == cell::RelayIpAddr{v6(1)});
  CHECK_FALSE(parse_ip_literal("192.0.2"));
  CHECK_FALSE(parse_ip_literal("192.0.2.256"));
  CHECK_FALSE(parse_ip_literal("[2001:db8::1]"));
  CHECK_FALSE(parse_ip_literal("example.com"));
  CHECK_FALSE(parse_ip_literal(""));
}

TEST_CASE("reverse-lookup names", "[exit][rules]") {
  CHECK(parse_reverse_name("1.2.0.192.in-addr.arpa") == cell::RelayIpAddr{kA});
  CHECK(parse_reverse_name("1.2.0.192.IN-ADDR.ARPA.") == cell::RelayIpAddr{kA});
  // RFC 3596 section 2.5's example.
  const auto rfc = parse_reverse_name("b.a.9.8.7.6.5.0.4.0.0.0.3.0.0.0.2.0.0.0.1.0.0.0.0.0.0.0.1.2.3.4.ip6.arpa");
  const cell::Ipv6Bytes expected{0x43, 0x21, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02,
                                 0x00, 0x03, 0x00, 0x04, 0x05, 0x67, 0x89, 0xab};
  CHECK(rfc == cell::RelayIpAddr{expected});
  CHECK_FALSE(parse_reverse_name("2.0.192.in-addr.arpa"));       // three labels
  CHECK_FALSE(parse_reverse_name("1.1.2.0.192.in-addr.arpa"));   // five
  CHECK_FALSE(parse_reverse_name("256.2.0.192.in-addr.arpa"));
  CHECK_FALSE(parse_reverse_name("01.2.0.192.in-addr.arpa"));    // leading zero
  CHECK_FALSE(parse_reverse_name("x.2.0.192.in-addr.arpa"));
  CHECK_FALSE(parse_reverse_name("b.a.9.8.ip6.arpa"));           // too few nibbles
  CHECK_FALSE(parse_reverse_name("example.com"));

  CHECK(reverse_name(cell::RelayIpAddr{kA}) == "1.2.0.192.in-addr.arpa");
  CHECK(reverse_name(cell::RelayIpAddr{expected}) ==
        "b.a.9.8.7.6.5.0.4.0.0.0.3.0.0.0.2.0.0.0.1.0.0.0.0.0.0.0.1.2.3.4.ip6.arpa");
}

TEST_CASE("names an exit never looks up", "[exit][rules]") {
  CHECK(is_unresolvable_name(""));
  CHECK(is_unresolvable_name("abc.onion"));
  CHECK(is_unresolvable_name("abc.ONION."));
  CHECK(is_unresolvable_name("onion"));
  CHECK_FALSE(is_unresolvable_name("onion.example"));
  CHECK_FALSE(is_unresolvable_name("example.com"));
}

TEST_CASE("socket errors map to tor's END reasons", "[exit][rules]") {
  using R = cell::EndReason;
  CHECK(end_reason_for_errno(ECONNREFUSED) == R::ConnectRefused);
  CHECK(end_reason_for_errno(ECONNRESET) == R::ConnReset);
  CHECK(end_reason_for_errno(ETIMEDOUT) == R::Timeout);
  CHECK(end_reason_for_errno(ENETUNREACH) == R::NoRoute);
  CHECK(end_reason_for_errno(EHOSTUNREACH) == R::NoRoute);
  CHECK(end_reason_for_errno(EMFILE) == R::ResourceLimit);
  CHECK(end_reason_for_errno(ENOBUFS) == R::ResourceLimit);
  CHECK(end_reason_for_errno(EPIPE) == R::Done);
  CHECK(end_reason_for_errno(EADDRNOTAVAIL) == R::Internal);
  CHECK(end_reason_for_errno(EIO) == R::Misc);
}

TEST_CASE("RESOLVED bodies: IPv4 first, deduplicated, bounded, on the wire as tor-spec 6.4", "[exit][rules]") {
  const std::vector<cell::Ipv4Bytes> four{kA, kA, kB};
  const std::vector<cell::Ipv6Bytes> six{v6(1)};
  const auto msg = resolved_addresses(four, six, 300);
  REQUIRE(msg.answers.size() == 3);
  CHECK(msg.answers[0].type == cell::ResolvedType::Ipv4);
  CHECK(msg.answers[1].type == cell::ResolvedType::Ipv4);
  CHECK(msg.answers[2].type == cell::ResolvedType::Ipv6);
  // type 04, len 04, 192.0.2.1, TTL 300 (0x12c) ...
  const auto body = cell::encode_relay_msg(msg);
  CHECK(conflux::test::unhex("0404c00002010000012c") ==
        std::vector<std::uint8_t>(body.begin(), body.begin() + 10));
  auto decoded = cell::decode_relay_msg(cell::RelayCommand::Resolved, body);
  REQUIRE(decoded);
  CHECK(std::get<cell::ResolvedMsg>(*decoded) == msg);

  // Many addresses still fit one cell.
  std::vector<cell::Ipv4Bytes> many4(40, kA);
  std::vector<cell::Ipv6Bytes> many6;
  for (std::uint8_t i = 0; i < 40; ++i) {
    many4[i][3] = i;
    many6.push_back(v6(i));
  }
  const auto big = resolved_addresses(many4, many6, 300);
  CHECK(big.answers.size() == 2 * kMaxAnswersPerFamily);
  CHECK(cell::encode_relay_msg(big).size() <= cell::kRelayBodyMaxLen);

  // Nothing found: an error, not an empty RESOLVED.
  const auto empty = resolved_addresses({}, {}, 300);
  REQUIRE(empty.answers.size() == 1);
  CHECK(empty.answers[0].type == cell::ResolvedType::ErrorNontransient);
  CHECK(resolved_error(LookupFailure::Transient, 300).answers.at(0).type == cell::ResolvedType::ErrorTransient);

  const auto ptr = resolved_hostname("localhost", 300);
  CHECK(ptr.answers.at(0).type == cell::ResolvedType::Hostname);
  CHECK(std::string(ptr.answers[0].value.begin(), ptr.answers[0].value.end()) == "localhost");
  CHECK(resolved_hostname(std::string(256, 'a'), 300).answers.at(0).type == cell::ResolvedType::ErrorNontransient);
}

TEST_CASE("RFC 953 names as tor's server check: letters, digits, '-', '.', '_', or an IP literal", "[exit][rules]") {
  CHECK(is_rfc953_name("www.example.com"));
  CHECK(is_rfc953_name("under_score-dash.example."));
  CHECK(is_rfc953_name("2001:db8::1"));
  CHECK(is_rfc953_name("192.0.2.1"));
  CHECK(is_rfc953_name(""));  // empty names are refused elsewhere (is_unresolvable_name)
  CHECK_FALSE(is_rfc953_name("bad name.example"));
  CHECK_FALSE(is_rfc953_name("a$b.example"));
  CHECK_FALSE(is_rfc953_name("[2001:db8::1]"));
  CHECK_FALSE(is_rfc953_name("caf\xc3\xa9.example"));
}
