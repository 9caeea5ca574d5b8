// conflux-net's emulated networks as far as they are decided without a
// namespace: the spec's "emulation" fields, the addresses the plan gives, and
// the router's configuration file (conflux/netspec/emulation.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "conflux/netspec/emulation.hpp"
#include "conflux/netspec/network_file.hpp"
#include "conflux/netspec/plan.hpp"
#include "conflux/netspec/spec.hpp"
#include "conflux/netspec/torrc.hpp"

using namespace conflux::netspec;
using namespace std::chrono_literals;

namespace {

const char* kSpec = R"({"relays": 3, "exits": 1, "bridges": [], "proxies": [{"name": "proxy"}],
  "emulation": {"subnet": "10.77.3.0/24", "seed": 9,
                "default": {"latency_ms": 5, "rate": "1 MByte"},
                "hosts": {"exit1": {"latency_ms": 40, "loss": 0.02}}}})";

NetSpec parsed(const std::string& text) {
  auto s = parse_spec(text);
  INFO((s ? std::string() : s.error().to_string("spec")));
  REQUIRE(s.has_value());
  return *s;
}

std::string error_of(const std::string& text) {
  auto s = parse_spec(text);
  REQUIRE_FALSE(s.has_value());
  return s.error().pointer + ": " + s.error().message;
}

}  // namespace

TEST_CASE("emulation: a host's fields replace the default's, the rest keep it", "[emulation]") {
  const auto s = parsed(kSpec);
  REQUIRE(s.emulation.has_value());
  CHECK(s.emulation->subnet == "10.77.3.0/24");
  CHECK(s.emulation->seed == 9);
  const auto& exit1 = s.emulation->hosts.at("exit1");
  CHECK(exit1.latency_ms == 40);
  CHECK(exit1.loss == 0.02);
  CHECK(exit1.rate == "1 MByte");
  CHECK(parse_spec(encode_spec(s)).value() == s);
}

TEST_CASE("emulation: without it every process listens on 127.0.0.1 and there is no router", "[emulation]") {
  const auto plan = plan_processes(default_spec());
  CHECK_FALSE(default_spec().emulation.has_value());
  for (const auto& p : plan) {
    CHECK(p.role != Role::Router);
    CHECK(p.address == "127.0.0.1");
  }
  CHECK(encode_spec(default_spec()).find("emulation") == std::string::npos);
}

TEST_CASE("emulation: the router comes first, the processes get .1, .2, ... in start order", "[emulation]") {
  const auto plan = plan_processes(parsed(kSpec));
  REQUIRE(plan.size() == 7);
  CHECK(plan[0].role == Role::Router);
  CHECK(plan[0].address.empty());
  CHECK(plan[1].name == "fileserver");
  CHECK(plan[1].address == "10.77.3.1");
  CHECK(plan[6].name == "proxy");
  CHECK(plan[6].address == "10.77.3.6");
  CHECK(ports_needed(plan) == 1 + 2 + 1 + 1 + 1 + 2);
}

TEST_CASE("emulation: torrcs name each process's own address", "[emulation]") {
  auto plan = plan_processes(parsed(kSpec));
  std::vector<std::uint16_t> ports;
  for (std::uint16_t p = 5000; p < 5010; ++p) ports.push_back(p);
  assign_ports(plan, ports);
  TorrcInputs in;
  in.net_dir = "/n";
  in.authorities.push_back({"auth1", plan[2].ports.or_port, plan[2].ports.dir_port, std::string(40, 'A'),
                            std::string(40, 'B'), plan[2].address});
  const auto relay = render_torrc(plan[3], in);
  CHECK(relay.find("ORPort 10.77.3.3:5003\n") != std::string::npos);
  CHECK(relay.find("DirAuthority auth1 orport=5001 v3ident=" + std::string(40, 'A') + " 10.77.3.2:5002 " +
                   std::string(40, 'B') + "\n") != std::string::npos);
  CHECK(render_torrc(plan[0], in).empty());
}

TEST_CASE("emulation: the router's hosts, devices and namespaces", "[emulation]") {
  const auto s = parsed(kSpec);
  const auto c = router_config(*s.emulation, plan_processes(s), 123456);
  REQUIRE(c.hosts.size() == 7);  // six processes and the machine
  CHECK(c.subnet == 0x0a4d0300u);
  CHECK(c.hosts[0].name == "fileserver");
  CHECK(c.hosts[0].device == "cfx23456-1");
  CHECK(c.hosts[0].netns == "cfx-123456-fileserver");
  CHECK(c.hosts[0].address == 0x0a4d0301u);
  CHECK(c.hosts[0].link.latency == 5ms);
  CHECK(c.hosts[0].link.rate == 1u << 20);
  // A rate-limited link's buffer: 100 ms of its rate plus what is on the way.
  CHECK(c.hosts[0].link.queue_bytes == static_cast<std::size_t>((1u << 20) * 0.105));
  CHECK(c.hosts[4].name == "exit1");
  CHECK(c.hosts[4].link.latency == 40ms);
  CHECK(c.hosts[4].link.loss == 0.02);
  CHECK(c.hosts[6].name == "machine");
  CHECK(c.hosts[6].netns.empty());
  CHECK(c.hosts[6].address == 0x0a4d03feu);
  CHECK(c.hosts[6].link.latency == 0ms);
  auto again = decode_router_config(encode_router_config(c));
  REQUIRE(again.has_value());
  CHECK(*again == c);
}

TEST_CASE("emulation: every device takes the spec's MTU, 1500 unless given", "[emulation]") {
  const auto s = parsed(kSpec);
  CHECK(s.emulation->mtu == 1500);
  CHECK(router_config(*s.emulation, plan_processes(s), 7).mtu == 1500);
  const auto jumbo = parsed(R"({"relays": 3, "exits": 1, "emulation": {"mtu": 9000}})");
  CHECK(jumbo.emulation->mtu == 9000);
  CHECK(parse_spec(encode_spec(jumbo)).value() == jumbo);
  const auto c = router_config(*jumbo.emulation, plan_processes(jumbo), 7);
  CHECK(c.mtu == 9000);
  CHECK(decode_router_config(encode_router_config(c)).value().mtu == 9000);
  CHECK(error_of(R"({"emulation": {"mtu": 575}})") == "/emulation/mtu: bytes, 576 to 65535");
  CHECK(error_of(R"({"emulation": {"mtu": 65536}})") == "/emulation/mtu: at most 65535");
  // A router file from before the field: 1500.
  auto text = encode_router_config(c);
  text.erase(text.find("  \"mtu\": 9000,\n"), std::string("  \"mtu\": 9000,\n").size());
  CHECK(decode_router_config(text).value().mtu == 1500);
  auto small = encode_router_config(c);
  small.replace(small.find("9000"), 4, "100");
  CHECK_FALSE(decode_router_config(small).has_value());
}

TEST_CASE("emulation: relay_bandwidth_rate \"link\" gives each relay its own link's rate", "[emulation]") {
  const auto s = parsed(R"({"relays": 3, "exits": 1, "relay_bandwidth_rate": "link", "proxies": [{"name": "proxy"}],
    "emulation": {"default": {"rate": "2 MBytes"}, "hosts": {"relay1": {"rate": "1 MByte"}, "exit1": {"rate": ""}}}})");
  CHECK(parse_spec(encode_spec(s)).value() == s);
  for (const auto& p : plan_processes(s)) {
    INFO(p.name);
    if (p.name == "relay1") CHECK(p.bandwidth_rate == "1 MByte");
    if (p.name == "relay2" || p.name == "auth1") CHECK(p.bandwidth_rate == "2 MBytes");
    if (p.name == "exit1" || p.role == Role::Proxy || p.role == Role::FileServer) CHECK(p.bandwidth_rate.empty());
  }
  TorrcInputs in;
  in.net_dir = "/tmp/n";
  for (const auto& p : plan_processes(s))
    if (p.name == "relay1") CHECK(render_torrc(p, in).find("BandwidthRate 1 MByte\nBandwidthBurst 1 MByte\n") != std::string::npos);
  CHECK(error_of(R"({"relay_bandwidth_rate": "link"})") ==
        "/relay_bandwidth_rate: \"link\" needs an emulated network (\"emulation\")");
}

TEST_CASE("emulation: bad fields are refused with their pointer", "[emulation]") {
  CHECK(error_of(R"({"emulation": {"subnet": "8.8.8.0/24"}})").starts_with("/emulation/subnet: a private /24"));
  CHECK(error_of(R"({"emulation": {"subnet": "10.1.2.0/16"}})").starts_with("/emulation/subnet:"));
  CHECK(error_of(R"({"emulation": {"subnet": "10.1.2.3/24"}})").starts_with("/emulation/subnet:"));
  CHECK(error_of(R"({"emulation": {"subnet": "010.1.2.0/24"}})").starts_with("/emulation/subnet:"));
  CHECK(error_of(R"({"emulation": {"hosts": {"exit9": {}}}})") == "/emulation/hosts/exit9: no process is named 'exit9'");
  CHECK(error_of(R"({"emulation": {"hosts": {"router": {}}}})").starts_with("/emulation/hosts/router: no process"));
  CHECK(error_of(R"({"emulation": {"default": {"loss": 0.7}}})") == "/emulation/default/loss: a probability, 0 to 0.5");
  CHECK(error_of(R"({"emulation": {"default": {"latency_ms": -1}}})").starts_with("/emulation/default/latency_ms:"));
  CHECK(error_of(R"({"emulation": {"default": {"rate": "fast"}}})").starts_with("/emulation/default/rate:"));
  CHECK(error_of(R"({"emulation": {"default": {"delay": 1}}})").starts_with("/emulation/default/delay: unknown field"));
  CHECK(error_of(R"({"file_origins": 2, "emulation": {}})").starts_with("/file_origins: 1 in an emulated network"));
  CHECK(error_of(R"({"proxies": [{"name": "router"}], "emulation": {}})").starts_with("/proxies/0/name:"));
}

TEST_CASE("emulation: the router's file is read strictly", "[emulation]") {
  const auto s = parsed(kSpec);
  const auto good = encode_router_config(router_config(*s.emulation, plan_processes(s), 7));
  REQUIRE(decode_router_config(good).has_value());
  auto with = [&](const std::string& from, const std::string& to) {
    auto text = good;
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return decode_router_config(text.replace(at, from.size(), to));
  };
  CHECK_FALSE(with("\"10.77.3.1\"", "\"10.77.4.1\"").has_value());   // outside the subnet
  CHECK_FALSE(with("\"10.77.3.1\"", "\"10.77.3.2\"").has_value());   // two hosts, one address
  CHECK_FALSE(with("\"cfx-7-fileserver\"", "\"../x\"").has_value());  // not a plain name
  CHECK_FALSE(with("\"cfx7-1\"", "\"a-device-name-too-long\"").has_value());
  CHECK_FALSE(with("\"loss\": 0.0", "\"loss\": 2").has_value());
  CHECK_FALSE(decode_router_config("{").has_value());
}

TEST_CASE("emulation: network.json keeps the router, addresses and namespaces, and older files read", "[emulation]") {
  NetworkInfo info;
  info.dir = "/n";
  ProcessRecord router;
  router.name = "router";
  router.role = Role::Router;
  router.started = true;
  router.pid = 100;
  ProcessRecord relay;
  relay.name = "relay1";
  relay.started = true;
  relay.pid = 101;
  relay.address = "10.77.3.3";
  relay.netns = "cfx-7-relay1";
  info.processes = {router, relay};
  info.namespaces = {"cfx-7-relay1"};
  const auto text = encode_network(info);
  auto again = decode_network(text);
  REQUIRE(again.has_value());
  CHECK(*again == info);
  CHECK(role_from_string("router") == Role::Router);
  // A loopback network's file has none of the three.
  NetworkInfo plain;
  plain.dir = "/n";
  const auto plain_text = encode_network(plain);
  CHECK(plain_text.find("namespaces") == std::string::npos);
  CHECK(decode_network(plain_text).value().namespaces.empty());
}

TEST_CASE("emulation: the largest spec fits the /24, each host its own address, device and namespace",
          "[emulation]") {
  // 5 authorities, 128 relays (a quarter exits), 16 bridges and 8 proxies: with the file server 158
  // hosts, .1 to .158; the machine is .254.
  std::string text = R"({"authorities": 5, "relays": 128, "exits": 32, "bridges": [)";
  for (int i = 1; i <= 16; ++i) text += (i > 1 ? "," : "") + std::string(R"({"name": "br)") + std::to_string(i) + "\"}";
  text += R"(], "proxies": [)";
  for (int i = 1; i <= 8; ++i) text += (i > 1 ? "," : "") + std::string(R"({"name": "client-)") + std::to_string(i) + "\"}";
  text += R"(], "emulation": {"subnet": "10.121.0.0/24", "hosts": {"relay96": {"latency_ms": 80}}}})";
  const auto s = parsed(text);
  CHECK(s.relays == kMaxRelays);
  const auto plan = plan_processes(s);
  REQUIRE(plan.size() == 159);  // the router and 158 hosts
  const auto c = router_config(*s.emulation, plan, 4194303);  // the largest pid on Linux
  REQUIRE(c.hosts.size() == 159);  // 158 processes and the machine
  std::set<std::uint32_t> addresses;
  std::set<std::string> devices, namespaces;
  for (const auto& h : c.hosts) {
    addresses.insert(h.address);
    devices.insert(h.device);
    if (!h.netns.empty()) namespaces.insert(h.netns);
    CHECK(h.device.size() <= 15);  // IFNAMSIZ - 1
  }
  CHECK(addresses.size() == 159);
  CHECK(devices.size() == 159);
  CHECK(namespaces.size() == 158);
  CHECK(c.hosts[157].name == "client-8");
  CHECK(c.hosts[157].address == 0x0a79009eu);  // 10.121.0.158
  CHECK(c.hosts[158].address == 0x0a7900feu);  // the machine, 10.121.0.254
  const auto relay96 = std::find_if(c.hosts.begin(), c.hosts.end(), [](const auto& h) { return h.name == "relay96"; });
  REQUIRE(relay96 != c.hosts.end());
  CHECK(relay96->link.latency == 80ms);
  auto again = decode_router_config(encode_router_config(c));
  REQUIRE(again.has_value());
  CHECK(*again == c);
}

TEST_CASE("emulation: one relay more than the limit is refused", "[emulation]") {
  CHECK(error_of(R"({"relays": 129, "exits": 32})") == "/relays: at most 128");
}

TEST_CASE("spec: log_detail gives every process a second, more detailed log", "[emulation]") {
  const auto s = parsed(R"({"relays": 3, "exits": 1, "log_detail": "debug", "proxies": [{"name": "proxy"}]})");
  CHECK(parse_spec(encode_spec(s)).value() == s);
  TorrcInputs in;
  in.net_dir = "/tmp/n";
  in.log_detail = s.log_detail;
  for (const auto& p : plan_processes(s)) {
    if (p.role == Role::FileServer) continue;
    INFO(p.name);
    CHECK(render_torrc(p, in).find("Log debug file /tmp/n/" + p.name + "/debug.log\n") != std::string::npos);
  }
  in.log_detail.clear();
  CHECK(render_torrc(plan_processes(s)[2], in).find("Log debug") == std::string::npos);
  CHECK(error_of(R"({"log_detail": "notice"})") == "/log_detail: \"info\", \"debug\" or \"\"");
}

TEST_CASE("emulation: tcp_congestion_control names every namespace's algorithm, or is left to the machine",
          "[emulation]") {
  CHECK(parsed(kSpec).emulation->tcp_congestion_control.empty());
  const auto s = parsed(R"({"relays": 3, "exits": 1, "emulation": {"tcp_congestion_control": "reno"}})");
  CHECK(s.emulation->tcp_congestion_control == "reno");
  CHECK(parse_spec(encode_spec(s)).value() == s);
  const auto c = router_config(*s.emulation, plan_processes(s), 7);
  CHECK(c.tcp_congestion_control == "reno");
  CHECK(decode_router_config(encode_router_config(c)).value() == c);
  // Written into a shell command in each namespace: nothing but a name.
  CHECK(error_of(R"({"emulation": {"tcp_congestion_control": "reno; reboot"}})")
            .starts_with("/emulation/tcp_congestion_control: an algorithm's name"));
  CHECK(error_of(R"({"emulation": {"tcp_congestion_control": "a_very_long_name"}})")
            .starts_with("/emulation/tcp_congestion_control:"));
  auto text = encode_router_config(c);
  text.replace(text.find("\"reno\""), 6, "\"re no\"");
  CHECK_FALSE(decode_router_config(text).has_value());
}
