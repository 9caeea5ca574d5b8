// ServerDNSResolvConfFile's nameserver lines, with tor's (libevent's) ports.
#include <catch2/catch.hpp>

#include "conflux/config/resolv_conf.hpp"

using namespace conflux::config;

TEST_CASE("resolv.conf: nameserver lines with and without ports, comments, other lines ignored", "[config][dns]") {
  const auto conf = parse_resolv_conf(
      "# local test resolver\n"
      "search example.org\n"
      "nameserver 127.0.0.1:5353 ; the test's\n"
      "nameserver\t10.0.0.1\r\n"
      "nameserver [::1]:53000\n"
      "nameserver ::1\n"
      "options timeout:1\n");
  REQUIRE(conf.nameservers.size() == 4);
  CHECK(conf.nameservers[0].to_string() == "127.0.0.1:5353");
  CHECK(conf.nameservers[1].to_string() == "10.0.0.1:53");
  CHECK(conf.nameservers[2].to_string() == "[::1]:53000");
  CHECK(conf.nameservers[3].to_string() == "[::1]:53");
}

TEST_CASE("resolv.conf: lines that do not parse are skipped, at most 16 kept", "[config][dns]") {
  CHECK(parse_resolv_conf("nameserver\nnameserver host.example\nnameservers 1.2.3.4\nnameserver 1.2.3.4:0\n")
            .nameservers.empty());
  std::string many;
  for (int i = 0; i < 20; ++i) many += "nameserver 127.0.0." + std::to_string(i + 1) + "\n";
  CHECK(parse_resolv_conf(many).nameservers.size() == kMaxNameservers);
  CHECK(parse_resolv_conf("").nameservers.empty());
}
