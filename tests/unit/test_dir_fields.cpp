// The text fields of the directory (common/dir, fields.hpp): policy
// summaries, protocol versions, nicknames, addresses, the Exit rule on a
// summary; and base64 as tor writes it (no padding), which the documents use.
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "conflux/bytes/base64.hpp"
#include "conflux/dir/authority.hpp"
#include "conflux/dir/fields.hpp"

using namespace conflux;
using namespace conflux::dir;

TEST_CASE("base64: RFC 4648 vectors without padding, strict decoding", "[dir][base64]") {
  const std::vector<std::pair<std::string, std::string>> v = {
      {"", ""}, {"f", "Zg"}, {"fo", "Zm8"}, {"foo", "Zm9v"},
      {"foob", "Zm9vYg"}, {"fooba", "Zm9vYmE"}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, enc] : v) {
    const std::vector<std::uint8_t> bytes(plain.begin(), plain.end());
    CHECK(bytes::base64_encode(bytes) == enc);
    auto dec = bytes::base64_decode(enc);
    REQUIRE(dec);
    CHECK(*dec == bytes);
  }
  CHECK_FALSE(bytes::base64_decode("Zg=="));   // padding
  CHECK_FALSE(bytes::base64_decode("Zh"));     // non-zero spare bits
  CHECK_FALSE(bytes::base64_decode("Z"));      // impossible length
  CHECK_FALSE(bytes::base64_decode("Zm9v\n")); // whitespace
  CHECK_FALSE(bytes::base64_decode("Zm-v"));   // URL alphabet
  CHECK(*bytes::base64_decode("+/8") == std::vector<std::uint8_t>{0xfb, 0xff});
}

TEST_CASE("fields: policy summaries, protocols, nicknames, addresses", "[dir][fields]") {
  auto p = parse_policy_summary("accept 20-23,80,443");
  REQUIRE(p);
  CHECK(p->accept);
  CHECK(p->allows_port(80));
  CHECK(p->allows_port(21));
  CHECK_FALSE(p->allows_port(24));
  CHECK(format_policy_summary(*p) == "accept 20-23,80,443");
  auto r = parse_policy_summary("reject 25,119");
  REQUIRE(r);
  CHECK(r->allows_port(80));
  CHECK_FALSE(r->allows_port(25));
  for (const char* bad : {"accept", "accept ", "allow 80", "accept 0", "accept 65536", "accept 80,80",
                          "accept 443,80", "accept 90-80", "accept 80-80", "accept 080", "accept 80,",
                          "accept  80", "reject 1-65535 "}) {
    INFO(bad);
    CHECK_FALSE(parse_policy_summary(bad));
  }
  CHECK(exit_flag("accept 80,443"));
  CHECK(exit_flag("reject 25"));
  CHECK_FALSE(exit_flag("accept 80"));
  CHECK_FALSE(exit_flag("reject 443"));
  CHECK_FALSE(exit_flag("reject 1-65535"));

  CHECK(valid_protocols("Link=4-5 Relay=2-4 FlowCtrl=1-2 Conflux=1"));
  CHECK(valid_protocols(""));
  for (const char* bad : {"Link", "Link=", "Link=4-5 Link=3", "Link=5-4", "Link=4,4", "Link=64",
                          "Link=4  Relay=2", "=4", "Li nk=4", "Link=04", "Link=4 "}) {
    INFO(bad);
    CHECK_FALSE(valid_protocols(bad));
  }
  CHECK(protocols_support("Link=4-5 Conflux=1", "Conflux", 1));
  CHECK(protocols_support("Link=1,4-5", "Link", 5));
  CHECK_FALSE(protocols_support("Link=4-5 Conflux=1", "Conflux", 2));
  CHECK_FALSE(protocols_support("Link=4-5", "Conflux", 1));

  CHECK(valid_nickname("relay1"));
  CHECK(valid_nickname("abcdefghijklmnopqrs"));
  CHECK_FALSE(valid_nickname("abcdefghijklmnopqrst"));
  CHECK_FALSE(valid_nickname(""));
  CHECK_FALSE(valid_nickname("re-lay"));

  CHECK(parse_ipv4("10.0.0.1") == Ipv4{10, 0, 0, 1});
  CHECK_FALSE(parse_ipv4("10.0.0.01"));
  CHECK_FALSE(parse_ipv4("10.0.0"));
  CHECK_FALSE(parse_ipv4("10.0.0.256"));
  CHECK(parse_ipv6("2001:db8::1"));
  CHECK_FALSE(parse_ipv6("2001:DB8::1"));            // not the canonical spelling
  CHECK_FALSE(parse_ipv6("2001:db8:0:0:0:0:0:1"));   // not compressed
  CHECK_FALSE(parse_ipv6("[2001:db8::1]"));
}
