// Exit policies: tor's entry syntax, first-match semantics, private ranges,
// the default policy, the port summary and the hostname ("port only") check.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "conflux/proto/exit_policy.hpp"
#include "conflux/proto/exit_policy_builder.hpp"

using namespace conflux;
using namespace conflux::proto;

namespace {

cell::RelayIpAddr v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  return cell::Ipv4Bytes{a, b, c, d};
}

cell::RelayIpAddr v6(std::initializer_list<std::uint8_t> prefix, std::uint8_t last = 0) {
  cell::Ipv6Bytes b{};
  std::size_t i = 0;
  for (auto x : prefix) b[i++] = x;
  b[15] = static_cast<std::uint8_t>(b[15] | last);
  return b;
}

PolicyEntry parse_ok(std::string_view s) {
  auto e = parse_policy_entry(s);
  INFO(s);
  REQUIRE(e.has_value());
  return *e;
}

PolicyParseError parse_err(std::string_view s) {
  auto e = parse_policy_entry(s);
  INFO(s);
  REQUIRE_FALSE(e.has_value());
  return e.error();
}

ExitPolicy policy_of(std::vector<std::string> values, ExitPolicyOptions opt = {}) {
  opt.exit_relay = true;
  auto b = build_exit_policy(values, opt);
  REQUIRE(b.has_value());
  return b->policy;
}

ExitPolicy plain(std::string_view value) {
  std::vector<PolicyEntry> entries;
  for (auto item : split_policy_value(value)) entries.push_back(parse_ok(item));
  return ExitPolicy::from_entries(entries);
}

}  // namespace

TEST_CASE("policy entries: every syntax form and its canonical print", "[exit_policy]") {
  struct Case {
    const char* in;
    const char* out;
    PolicyTarget target;
  };
  const Case cases[] = {
      {"accept *:*", "accept *:*", PolicyTarget::Any},
      {"reject *", "reject *:*", PolicyTarget::Any},
      {"reject *4:80", "reject *4:80", PolicyTarget::Any4},
      {"accept *6:1-1024", "accept *6:1-1024", PolicyTarget::Any6},
      {"accept6 *:443", "accept *6:443", PolicyTarget::Any6},
      {"reject 1.2.3.4", "reject 1.2.3.4:*", PolicyTarget::Ipv4},
      {"reject 1.2.3.4/32:1-65535", "reject 1.2.3.4:*", PolicyTarget::Ipv4},
      {"reject 10.1.2.3/8:*", "reject 10.0.0.0/8:*", PolicyTarget::Ipv4},
      {"accept 192.168.7.9/255.255.0.0:80-88", "accept 192.168.0.0/16:80-88", PolicyTarget::Ipv4},
      {"accept 0.0.0.0/0:22", "accept 0.0.0.0/0:22", PolicyTarget::Ipv4},
      {"accept [::1]:22", "accept [::1]:22", PolicyTarget::Ipv6},
      {"accept [::1]", "accept [::1]:*", PolicyTarget::Ipv6},
      {"reject [2001:db8::]/32:*", "reject [2001:db8::]/32:*", PolicyTarget::Ipv6},
      {"accept6 [2001:DB8::1]/64:80", "accept [2001:db8::]/64:80", PolicyTarget::Ipv6},
      {"reject private:*", "reject private:*", PolicyTarget::Private},
      {"accept6 private:80", "accept private:80", PolicyTarget::Private},
      {"  accept \t 1.2.3.4:80  ", "accept 1.2.3.4:80", PolicyTarget::Ipv4},
  };
  for (const auto& c : cases) {
    const PolicyEntry e = parse_ok(c.in);
    CHECK(e.target == c.target);
    CHECK(e.to_string() == c.out);
    CHECK(parse_ok(e.to_string()) == e);
  }

  const PolicyEntry e = parse_ok("accept 192.168.7.9/255.255.0.0:80-88");
  CHECK(e.action == PolicyAction::Accept);
  CHECK(e.prefix_len == 16);
  CHECK(e.ports == PortRange{80, 88});
  CHECK(e.addr[0] == 192);
  CHECK(e.addr[1] == 168);
  CHECK(e.addr[2] == 0);
  CHECK(parse_ok("reject 1.2.3.4:443").ports == PortRange{443, 443});
  CHECK(parse_ok("reject 1.2.3.4").ports.covers_all());
}

TEST_CASE("policy entries: malformed input is refused with a typed error", "[exit_policy]") {
  using E = PolicyParseError;
  CHECK(parse_err("accept 1.2.3.4/33:80") == E::BadMask);
  CHECK(parse_err("accept *:70000") == E::BadPort);
  CHECK(parse_err("accept ::1") == E::BadAddress);
  CHECK(parse_err("accept ::1:80") == E::BadAddress);
  CHECK(parse_err("accept 2001:db8::1") == E::BadAddress);
  CHECK(parse_err("accept [::1") == E::UnclosedBracket);
  CHECK(parse_err("accept [::1]x:80") == E::BadAddress);
  CHECK(parse_err("accept [1.2.3.4]:80") == E::BadAddress);
  CHECK(parse_err("accept *:0") == E::BadPort);
  CHECK(parse_err("accept *:0-80") == E::BadPort);
  CHECK(parse_err("accept *:") == E::BadPort);
  CHECK(parse_err("accept *:+80") == E::BadPort);
  CHECK(parse_err("accept *:80x") == E::BadPort);
  CHECK(parse_err("accept *:80-") == E::BadPort);
  CHECK(parse_err("accept *:80-22") == E::BadPortRange);
  CHECK(parse_err("accept */8:80") == E::MaskOnWildcard);
  CHECK(parse_err("accept *4/0") == E::MaskOnWildcard);
  CHECK(parse_err("accept 1.2.3.4/255.0.255.0") == E::NonPrefixMask);
  CHECK(parse_err("accept 1.2.3.4/") == E::BadMask);
  CHECK(parse_err("accept 1.2.3.4/x") == E::BadMask);
  CHECK(parse_err("accept [::1]/129") == E::BadMask);
  CHECK(parse_err("accept [::1]/255.255.0.0") == E::BadMask);
  CHECK(parse_err("allow *:*") == E::UnknownAction);
  CHECK(parse_err("Accept *:*") == E::UnknownAction);
  CHECK(parse_err("accept*:*") == E::UnknownAction);
  CHECK(parse_err("accept") == E::MissingAddress);
  CHECK(parse_err("reject6   ") == E::MissingAddress);
  CHECK(parse_err("accept 1.2.3.4:80 extra") == E::TrailingGarbage);
  CHECK(parse_err("accept 1.2.3:80") == E::BadAddress);
  CHECK(parse_err("accept 1.2.3.4.5") == E::BadAddress);
  CHECK(parse_err("accept 256.1.1.1") == E::BadAddress);
  CHECK(parse_err("accept example.com:80") == E::BadAddress);
  CHECK(parse_err("accept private") == E::BadAddress);
  CHECK(parse_err("accept privately:80") == E::BadAddress);
  CHECK(parse_err("accept6 1.2.3.4:80") == E::Ipv4WithAccept6);
  CHECK(parse_err("reject6 *4:*") == E::Ipv4WithAccept6);
  CHECK(parse_err("") == E::Empty);
  CHECK(parse_err(" \t ") == E::Empty);
  CHECK(parse_err("accept " + std::string(300, '1')) == E::TooLong);

  CHECK(is_fatal(E::BadMask));
  CHECK_FALSE(is_fatal(E::Ipv4WithAccept6));
}

TEST_CASE("config values split at commas, blanks dropped", "[exit_policy]") {
  const auto items = split_policy_value(" accept *:80 ,reject *:*,, ,");
  REQUIRE(items.size() == 2);
  CHECK(items[0] == "accept *:80");
  CHECK(items[1] == "reject *:*");
  CHECK(split_policy_value("").empty());
}

TEST_CASE("first match wins", "[exit_policy]") {
  const ExitPolicy p = plain("accept 1.2.3.0/24:80, reject 1.2.3.4:*, reject *:80, accept *:*");
  // "*" becomes *4 and *6.
  CHECK(p.rules().size() == 6);
  CHECK(p.check(v4(1, 2, 3, 4), 80) == PolicyAction::Accept);
  CHECK(p.check(v4(1, 2, 3, 4), 81) == PolicyAction::Reject);
  CHECK(p.check(v4(1, 2, 3, 5), 81) == PolicyAction::Accept);
  CHECK(p.check(v4(5, 6, 7, 8), 80) == PolicyAction::Reject);
  CHECK(p.check(v4(5, 6, 7, 8), 443) == PolicyAction::Accept);
  CHECK(p.check(v6({0x20, 0x01, 0x0d, 0xb8}, 1), 80) == PolicyAction::Reject);
  CHECK(p.check(v6({0x20, 0x01, 0x0d, 0xb8}, 1), 443) == PolicyAction::Accept);
  CHECK(p.check(v4(5, 6, 7, 8), 0) == PolicyAction::Reject);
  CHECK(p.to_string() ==
        "accept 1.2.3.0/24:80,reject 1.2.3.4:*,reject *4:80,reject *6:80,accept *4:*,accept *6:*");

  // Prefix boundaries, IPv4 and IPv6.
  const ExitPolicy q = plain("reject 172.16.0.0/12:*, reject [2001:db8::]/33:*, accept *:*");
  CHECK(q.check(v4(172, 31, 255, 255), 1) == PolicyAction::Reject);
  CHECK(q.check(v4(172, 32, 0, 0), 1) == PolicyAction::Accept);
  CHECK(q.check(v4(172, 15, 255, 255), 1) == PolicyAction::Accept);
  CHECK(q.check(v6({0x20, 0x01, 0x0d, 0xb8, 0x7f}), 1) == PolicyAction::Reject);
  CHECK(q.check(v6({0x20, 0x01, 0x0d, 0xb8, 0x80}), 1) == PolicyAction::Accept);

  // No rule matches: accept, as tor's compare_tor_addr_to_addr_policy.
  CHECK(ExitPolicy{}.check(v4(1, 1, 1, 1), 80) == PolicyAction::Accept);
}

TEST_CASE("private ranges are tor's", "[exit_policy]") {
  REQUIRE(private_nets().size() == 12);
  ExitPolicyOptions opt;
  opt.ipv6_exit = true;
  const ExitPolicy p = policy_of({}, opt);
  for (const auto& a : {v4(0, 1, 2, 3), v4(169, 254, 9, 9), v4(127, 0, 0, 1), v4(192, 168, 1, 1),
                        v4(10, 200, 0, 1), v4(172, 16, 0, 1), v4(172, 31, 0, 1)}) {
    CHECK(p.check(a, 443) == PolicyAction::Reject);
    CHECK(is_private_address(a));
  }
  for (const auto& a : {v6({0xfc}, 1), v6({0xfd, 0x12}, 1), v6({0xfe, 0x80}, 1), v6({0xfe, 0xbf}, 1),
                        v6({0xfe, 0xc0}, 1), v6({0xff, 0x02}, 1), v6({}, 1), v6({}, 0), v6({0x00, 0xff}, 7)}) {
    CHECK(p.check(a, 443) == PolicyAction::Reject);
    CHECK(is_private_address(a));
  }
  for (const auto& a : {v4(172, 32, 0, 1), v4(8, 8, 8, 8), v4(100, 64, 0, 1), v6({0x20, 0x01, 0x0d, 0xb8}, 1),
                        v6({0xfe, 0x00}, 1), v6({0x01}, 1)}) {
    CHECK(p.check(a, 443) == PolicyAction::Accept);
    CHECK_FALSE(is_private_address(a));
  }

  // ExitPolicyRejectPrivate 0: private destinations fall through to the rest.
  opt.reject_private = false;
  CHECK(policy_of({}, opt).check(v4(10, 0, 0, 1), 443) == PolicyAction::Accept);
}

TEST_CASE("the relay's own public addresses are rejected with ExitPolicyRejectPrivate", "[exit_policy]") {
  ExitPolicyOptions opt;
  opt.own_addresses = {v4(203, 0, 113, 5), v4(10, 0, 0, 1), v6({0x20, 0x01, 0x0d, 0xb8}, 5)};
  const ExitPolicy p = policy_of({"accept *:*"}, opt);
  CHECK(p.check(v4(203, 0, 113, 5), 443) == PolicyAction::Reject);
  CHECK(p.check(v4(203, 0, 113, 6), 443) == PolicyAction::Accept);
  // reject *6:*, 6 IPv4 private nets, 203.0.113.5 (10.0.0.1 is already
  // private; the IPv6 one is skipped without IPv6Exit), accept *4:*.
  CHECK(p.to_string() ==
        "reject *6:*,reject 0.0.0.0/8:*,reject 169.254.0.0/16:*,reject 127.0.0.0/8:*,"
        "reject 192.168.0.0/16:*,reject 10.0.0.0/8:*,reject 172.16.0.0/12:*,reject 203.0.113.5:*,"
        "accept *4:*");

  opt.ipv6_exit = true;
  const ExitPolicy q = policy_of({"accept *:*"}, opt);
  CHECK(q.check(v6({0x20, 0x01, 0x0d, 0xb8}, 5), 443) == PolicyAction::Reject);
  CHECK(q.check(v6({0x20, 0x01, 0x0d, 0xb8}, 6), 443) == PolicyAction::Accept);
}

TEST_CASE("tor's default exit policy and when it applies", "[exit_policy]") {
  // The port list of tor's DEFAULT_EXIT_POLICY, entry by entry.
  const std::vector<PortRange> rejected = {{25, 25},     {119, 119},   {135, 139},   {445, 445},
                                           {563, 563},   {1214, 1214}, {4661, 4666}, {6346, 6429},
                                           {6699, 6699}, {6881, 6999}};
  const auto items = split_policy_value(kDefaultExitPolicy);
  REQUIRE(items.size() == rejected.size() + 1);
  for (std::size_t i = 0; i < rejected.size(); ++i) {
    const PolicyEntry e = parse_ok(items[i]);
    CHECK(e.action == PolicyAction::Reject);
    CHECK(e.target == PolicyTarget::Any);
    CHECK(e.ports == rejected[i]);
  }
  CHECK(parse_ok(items.back()).to_string() == "accept *:*");

  // An exit with no ExitPolicy lines: reject *6:*, private, default.
  const ExitPolicy p = policy_of({});
  CHECK(p.to_string() ==
        "reject *6:*,reject 0.0.0.0/8:*,reject 169.254.0.0/16:*,reject 127.0.0.0/8:*,"
        "reject 192.168.0.0/16:*,reject 10.0.0.0/8:*,reject 172.16.0.0/12:*,"
        "reject *4:25,reject *4:119,reject *4:135-139,reject *4:445,reject *4:563,reject *4:1214,"
        "reject *4:4661-4666,reject *4:6346-6429,reject *4:6699,reject *4:6881-6999,accept *4:*");
  const auto pub = v4(8, 8, 8, 8);
  for (int port : {24, 26, 118, 120, 134, 140, 444, 446, 562, 564, 1213, 1215, 4660, 4667, 6345,
                             6430, 6698, 6700, 6880, 7000, 80, 443, 65535}) {
    CHECK(p.check(pub, static_cast<std::uint16_t>(port)) == PolicyAction::Accept);
  }
  for (int port : {25, 119, 135, 137, 139, 445, 563, 1214, 4661, 4666, 6346, 6429, 6699, 6881, 6999}) {
    CHECK(p.check(pub, static_cast<std::uint16_t>(port)) == PolicyAction::Reject);
  }

  // Operator entries come before the default ...
  const ExitPolicy q = policy_of({"accept *:25", "reject *:443"});
  CHECK(q.check(pub, 25) == PolicyAction::Accept);
  CHECK(q.check(pub, 443) == PolicyAction::Reject);
  CHECK(q.check(pub, 119) == PolicyAction::Reject);
  CHECK(q.check(pub, 80) == PolicyAction::Accept);

  // ... and a final catch-all replaces it.
  const ExitPolicy r = policy_of({"accept *:*"});
  CHECK(r.check(pub, 25) == PolicyAction::Accept);
  CHECK(r.rules().size() == 8);
  CHECK(policy_of({"reject *:*"}).check(pub, 80) == PolicyAction::Reject);

  // A catch-all for one family leaves the default in force for the other.
  ExitPolicyOptions opt;
  opt.ipv6_exit = true;
  const ExitPolicy s = policy_of({"accept *4:*"}, opt);
  const auto pub6 = v6({0x20, 0x01, 0x0d, 0xb8}, 1);
  CHECK(s.check(pub, 25) == PolicyAction::Accept);
  CHECK(s.check(pub6, 25) == PolicyAction::Reject);
  CHECK(s.check(pub6, 443) == PolicyAction::Accept);
}

TEST_CASE("ExitRelay 0, bridges and IPv6Exit", "[exit_policy]") {
  ExitPolicyOptions off;
  auto b = build_exit_policy(std::vector<std::string>{"accept *:*"}, off);
  REQUIRE(b.has_value());
  CHECK(b->policy.to_string() == "reject *4:*,reject *6:*");
  CHECK(b->policy.check(v4(8, 8, 8, 8), 80) == PolicyAction::Reject);
  CHECK(b->policy.is_reject_star(AddrFamily::Ipv4));
  CHECK(b->policy.is_reject_star(AddrFamily::Ipv6));
  // Entries are still validated.
  auto bad = build_exit_policy(std::vector<std::string>{"accept *:99999"}, off);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().error == PolicyParseError::BadPort);

  ExitPolicyOptions bridge;
  bridge.add_default_policy = false;
  const ExitPolicy p = policy_of({"accept *:443"}, bridge);
  CHECK(p.check(v4(8, 8, 8, 8), 443) == PolicyAction::Accept);
  CHECK(p.check(v4(8, 8, 8, 8), 80) == PolicyAction::Reject);

  const ExitPolicy four_only = policy_of({"accept *:*"});
  CHECK(four_only.check(v6({0x20, 0x01, 0x0d, 0xb8}, 1), 443) == PolicyAction::Reject);
  CHECK_FALSE(four_only.is_reject_star(AddrFamily::Ipv4));
  CHECK(four_only.is_reject_star(AddrFamily::Ipv6));
}

TEST_CASE("config errors carry the value and entry index", "[exit_policy]") {
  ExitPolicyOptions opt;
  opt.exit_relay = true;
  auto r = build_exit_policy(std::vector<std::string>{"accept *:80, reject *:25", "reject *:1, accept 1.2.3.4/33:80"},
                             opt);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == ExitPolicyConfigError{1, 1, PolicyParseError::BadMask});

  auto ok = build_exit_policy(std::vector<std::string>{"reject *:25, accept6 1.2.3.4:80, accept *:*"}, opt);
  REQUIRE(ok.has_value());
  REQUIRE(ok->ignored.size() == 1);
  CHECK(ok->ignored[0] == ExitPolicyConfigError{0, 1, PolicyParseError::Ipv4WithAccept6});
  CHECK(ok->policy.check(v4(1, 2, 3, 4), 80) == PolicyAction::Accept);
  CHECK(ok->policy.check(v4(1, 2, 3, 4), 25) == PolicyAction::Reject);
}

TEST_CASE("port summaries match tor's policy_summarize", "[exit_policy]") {
  const ExitPolicy def = policy_of({});
  CHECK(def.summary() == "reject 25,119,135-139,445,563,1214,4661-4666,6346-6429,6699,6881-6999");
  CHECK(def.summary(AddrFamily::Ipv6) == "reject 1-65535");
  ExitPolicyOptions v6opt;
  v6opt.ipv6_exit = true;
  CHECK(policy_of({}, v6opt).summary(AddrFamily::Ipv6) ==
        "reject 25,119,135-139,445,563,1214,4661-4666,6346-6429,6699,6881-6999");

  CHECK(policy_of({"accept *:80,accept *:443,reject *:*"}).summary() == "accept 80,443");
  CHECK(policy_of({"accept *:20-23, accept *:80, accept *:81, reject *:*"}).summary() == "accept 20-23,80-81");
  CHECK(policy_of({"accept *:*"}).summary() == "accept 1-65535");
  CHECK(policy_of({"reject *:*"}).summary() == "reject 1-65535");
  // Accepting only some addresses does not count.
  CHECK(policy_of({"accept 1.0.0.0/8:80, reject *:*"}).summary() == "reject 1-65535");
  // One host rejected: the port is still an exit port.
  CHECK(plain("reject 1.2.3.4:80, accept *:*").summary() == "accept 1-65535");
  // Two /8s are the limit; three cross it.
  CHECK(plain("reject 1.0.0.0/8:80, reject 2.0.0.0/8:80, accept *:*").summary() == "accept 1-65535");
  CHECK(plain("reject 11.0.0.0/8:80, reject 12.0.0.0/8:80, reject 13.0.0.0/8:80, accept *:*").summary() ==
        "reject 80");
  CHECK(plain("reject 0.0.0.0/1:80-81, accept *:*").summary() == "reject 80-81");
  // Exactly-private networks are ignored, however many.
  CHECK(plain("reject 10.0.0.0/8:80, reject 127.0.0.0/8:80, reject 0.0.0.0/8:80, accept *:*").summary() ==
        "accept 1-65535");
  // IPv6 counts /64s, ignores anything narrower, cutoff one /16.
  CHECK(plain("reject [2001::]/16:80, accept *:*").summary(AddrFamily::Ipv6) == "accept 1-65535");
  CHECK(plain("reject [2001::]/15:80, accept *:*").summary(AddrFamily::Ipv6) == "reject 80");
  CHECK(plain("reject [2001::]/15:80, accept *:*").summary(AddrFamily::Ipv4) == "accept 1-65535");
  CHECK(plain("reject [2001:db8::1]:80, accept *:*").summary(AddrFamily::Ipv6) == "accept 1-65535");
  // Shorter form wins.
  CHECK(plain("accept *:1-1000, reject *:*").summary() == "accept 1-1000");
  CHECK(plain("reject *:1-1000, accept *:*").summary() == "reject 1-1000");

  // Both lists over 993 characters: tor keeps the accept list, cut at the
  // last comma at or before offset 993 of the list. Odd ports 1..1999: the
  // list is "1,3,...,99" (144 chars) then ",101" ... each 4 more; the cut
  // falls after the 212th three-digit port, 523, at offset 992.
  std::string odd;
  for (int p = 1; p < 2000; p += 2) odd += "accept *:" + std::to_string(p) + ",";
  odd += "reject *:*";
  const std::string s = plain(odd).summary();
  CHECK(s.size() == 999);
  CHECK(s.rfind("accept 1,3,5,7,9,11,", 0) == 0);
  CHECK(s.substr(s.size() - 8) == ",521,523");
}

TEST_CASE("hostname check: could the port be accepted for some address", "[exit_policy]") {
  const ExitPolicy def = policy_of({});
  CHECK_FALSE(def.may_accept_port(25));
  CHECK(def.check_port(25) == PortVerdict::Rejected);
  // Private rejects come first, so 443 is only "probably" accepted.
  CHECK(def.may_accept_port(443));
  CHECK(def.check_port(443) == PortVerdict::ProbablyAccepted);
  CHECK(def.check_port(443, AddrFamily::Ipv6) == PortVerdict::Rejected);
  CHECK(def.check_port(0) == PortVerdict::Rejected);

  const ExitPolicy one_host = plain("accept 1.2.3.4:22, reject *:*");
  CHECK(one_host.check_port(22) == PortVerdict::ProbablyRejected);
  CHECK(one_host.may_accept_port(22));
  CHECK_FALSE(one_host.may_accept_port(23));

  const ExitPolicy open = plain("accept *:*");
  CHECK(open.check_port(80) == PortVerdict::Accepted);
  CHECK(plain("reject *:80").check_port(80) == PortVerdict::Rejected);
  CHECK(plain("reject 1.2.3.4:80").check_port(80, AddrFamily::Ipv4) == PortVerdict::ProbablyAccepted);
  // No IPv6 rule at all: some IPv6 address is certainly accepted.
  CHECK(plain("reject 1.2.3.4:80").check_port(80) == PortVerdict::Accepted);

  ExitPolicyOptions off;
  auto b = build_exit_policy({}, off);
  REQUIRE(b.has_value());
  for (int port : {1, 80, 443, 65535}) CHECK_FALSE(b->policy.may_accept_port(static_cast<std::uint16_t>(port)));

  CHECK_FALSE(def.is_reject_star(AddrFamily::Ipv4));
  CHECK(def.is_reject_star(AddrFamily::Ipv6));
  CHECK_FALSE(plain("accept 1.2.3.4:22, reject *:*").is_reject_star(AddrFamily::Ipv4));
  CHECK(plain("reject 1.2.3.4:22, reject *:*").is_reject_star(AddrFamily::Ipv4));
  CHECK_FALSE(ExitPolicy{}.is_reject_star(AddrFamily::Ipv4));
}
