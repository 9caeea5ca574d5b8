// GETINFO ns/* and NEWCONSENSUS entries (docs/CONTROL.md): a router status as
// tor 0.4.9's control port writes it for a microdesc consensus client
// (routerstatus_format_entry with NS_CONTROL_PORT). stem and nyx parse these.
#include <catch2/catch.hpp>

#include "conflux/dir/control_router_status.hpp"

using namespace conflux;

namespace {

dir::RouterEntry relay(std::string nickname, std::uint8_t first) {
  dir::RouterEntry r;
  r.nickname = std::move(nickname);
  r.ipv4 = {127, 0, 0, 1};
  r.or_port = 9001;
  r.flags.exit = r.flags.fast = r.flags.running = r.flags.valid = true;
  r.bandwidth = 1234;
  crypto::RsaFingerprint fp{};
  for (std::size_t i = 0; i < fp.size(); ++i) fp[i] = static_cast<std::uint8_t>(first + i);
  r.rsa_identity = fp;
  return r;
}

}  // namespace

TEST_CASE("a router status for the control port is tor's r, s and w lines", "[dir][control]") {
  // The identity is base64 without padding; a microdesc consensus has no
  // descriptor digest (tor writes zeros) and no descriptor time.
  CHECK(dir::control_router_status(relay("exit1", 0)) ==
        "r exit1 AAECAwQFBgcICQoLDA0ODxAREhM AAAAAAAAAAAAAAAAAAAAAAAAAAA 2038-01-01 00:00:00 127.0.0.1 9001 0\n"
        "s Exit Fast Running Valid\n"
        "w Bandwidth=1234\n");
}

TEST_CASE("a router status: an IPv6 address is an a line, flags in tor's order", "[dir][control]") {
  auto r = relay("guard1", 0);
  r.ipv6 = dir::Ipv6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  r.flags = dir::Flags{};
  r.flags.valid = r.flags.stable = r.flags.guard = r.flags.running = r.flags.v2dir = true;
  CHECK(dir::control_router_status(r).find("\na [2001:db8::1]:9001\ns Guard Running Stable V2Dir Valid\n") !=
        std::string::npos);
}

TEST_CASE("router statuses by fingerprint and by nickname, none for a relay without an RSA identity",
          "[dir][control]") {
  dir::ConsensusBody body;
  body.routers = {relay("a", 0), relay("b", 0x40)};
  auto anonymous = relay("c", 0x80);
  anonymous.rsa_identity.reset();
  body.routers.push_back(anonymous);
  CHECK(dir::control_router_status(anonymous).empty());
  CHECK(dir::control_router_statuses(body) ==
        dir::control_router_status(body.routers[0]) + dir::control_router_status(body.routers[1]));
  const std::string b_hex = "404142434445464748494A4B4C4D4E4F50515253";
  CHECK(dir::control_router_status_by_id(body, "$" + b_hex) == dir::control_router_status(body.routers[1]));
  CHECK(dir::control_router_status_by_id(body, b_hex) == dir::control_router_status(body.routers[1]));
  CHECK_FALSE(dir::control_router_status_by_id(body, "$" + std::string(40, '0')));
  CHECK_FALSE(dir::control_router_status_by_id(body, "nothex"));
  CHECK(dir::control_router_status_by_name(body, "a") == dir::control_router_status(body.routers[0]));
  CHECK_FALSE(dir::control_router_status_by_name(body, "c"));
}
