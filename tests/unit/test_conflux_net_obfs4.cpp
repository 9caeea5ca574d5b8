// conflux-net with obfs4 bridges: the spec field, the transport's port, the
// bridge's ServerTransportPlugin lines, the proxy's Bridge obfs4 lines (the
// bridge's own, from its DataDirectory/bridgelines) and ClientTransportPlugin,
// each torrc accepted by the program that reads it.
#include <catch2/catch.hpp>

#include "conflux/config/proxy_options.hpp"
#include "conflux/config/relay_options.hpp"
#include "conflux/config/torrc_parser.hpp"
#include "conflux/netspec/torrc.hpp"

using namespace conflux::netspec;

namespace {

const std::string kBridgeFp = "E8DABF3B0AEDDB386DD7B66B59A02AAFE1F48731";
const std::string kPlainBridgeFp = "4352E58420E68F5E40BF7C74FADDCCD9D1349413";
const std::string kObfsLine = "Bridge obfs4 127.0.0.1:20009 " + kBridgeFp +
                              " cert=ssH+9rP8dG2NLDN2XuFw63hIO/9MNNinLmxQDpVa+7kTOa9/m+tGWT1SmSYpQ9uTBGa6Hw iat-mode=0";

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("spec: a bridge's transport is obfs4 or none, obfs4proxy is a path", "[conflux_net][spec][pt]") {
  auto r = parse_spec(R"({"bridges": [{"name": "o1", "transport": "obfs4"}, {"name": "p1"}], "obfs4proxy": "/opt/obfs4proxy"})");
  REQUIRE(r);
  CHECK(r->bridges[0].transport == "obfs4");
  CHECK(r->bridges[1].transport.empty());
  CHECK(r->obfs4proxy == "/opt/obfs4proxy");
  auto again = parse_spec(encode_spec(*r));
  REQUIRE(again);
  CHECK(*again == *r);
  CHECK(default_spec().obfs4proxy == "/usr/bin/obfs4proxy");
  auto bad = parse_spec(R"({"bridges": [{"name": "o1", "transport": "meek"}]})");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().pointer == "/bridges/0/transport");
  auto rel = parse_spec(R"({"bridges": [{"name": "o1", "transport": "obfs4"}], "obfs4proxy": "obfs4proxy"})");
  REQUIRE_FALSE(rel);
  CHECK(rel.error().pointer == "/obfs4proxy");
}

TEST_CASE("plan: an obfs4 bridge has a third port, its transport's", "[conflux_net][plan][pt]") {
  NetSpec s = default_spec();
  s.bridges = {{"o1", "", "obfs4"}, {"p1", "", ""}};
  auto plan = plan_processes(s);
  const auto plain = ports_needed(plan_processes(default_spec()));
  CHECK(ports_needed(plan) == plain + 1);
  std::vector<std::uint16_t> ports;
  for (std::size_t i = 0; i < ports_needed(plan); ++i) ports.push_back(static_cast<std::uint16_t>(20000 + i));
  assign_ports(plan, ports);
  REQUIRE(plan[8].name == "o1");
  CHECK(plan[8].transport == "obfs4");
  CHECK(plan[8].ports.or_port == 20009);
  CHECK(plan[8].ports.dir_port == 20010);
  CHECK(plan[8].ports.pt_port == 20011);
  CHECK(plan[9].ports.or_port == 20012);
  CHECK(plan[9].ports.pt_port == 0);
}

TEST_CASE("the bridge line conflux-relay wrote, found in its bridgelines file", "[conflux_net][pt]") {
  CHECK_FALSE(transport_bridge_line("", "obfs4", kBridgeFp));
  CHECK_FALSE(transport_bridge_line(kObfsLine, "obfs4", kBridgeFp));  // no newline yet: still being written
  CHECK(transport_bridge_line(kObfsLine + "\n", "obfs4", kBridgeFp) == kObfsLine);
  CHECK(transport_bridge_line("Bridge meek 1.2.3.4:5 X\n" + kObfsLine + "\n", "obfs4", kBridgeFp) == kObfsLine);
  CHECK_FALSE(transport_bridge_line(kObfsLine + "\n", "obfs", kBridgeFp));
  // Only the line that names the bridge by `id` is taken (one line per transport).
  const std::string other = "Bridge obfs4 127.0.0.1:20010 " + kPlainBridgeFp + " cert=abc iat-mode=0";
  const std::string two = other + "\n" + kObfsLine + "\n";
  CHECK(transport_bridge_line(two, "obfs4", kBridgeFp) == kObfsLine);
  CHECK(transport_bridge_line(two, "obfs4", kPlainBridgeFp) == other);
  CHECK_FALSE(transport_bridge_line(two, "obfs4", kBridgeFp.substr(0, 39)));
}

TEST_CASE("torrcs with an obfs4 bridge: the bridge runs obfs4proxy, the proxy uses its line", "[conflux_net][torrc][pt]") {
  TorrcInputs in;
  in.net_dir = "/n";
  in.authorities = {{"auth1", 5001, 5002, std::string(40, 'A'), std::string(40, 'B')}};
  in.bridges = {{6001, kObfsLine, kBridgeFp}, {6004, "", kPlainBridgeFp}};
  in.file_port = 8080;
  in.obfs4proxy = "/usr/bin/obfs4proxy";
  ProcessPlan bridge{"o1", Role::Bridge, true, "", false, true, {6001, 6002, 0, 0, 0, 20009}, "obfs4"};
  const auto b = render_torrc(bridge, in);
  CHECK(has_line(b, "ServerTransportPlugin obfs4 exec /usr/bin/obfs4proxy"));
  CHECK(has_line(b, "ServerTransportListenAddr obfs4 127.0.0.1:20009"));
  CHECK(has_line(b, "BridgeRelay 1"));
  ProcessPlan plain{"p1", Role::Bridge, true, "", false, true, {6004, 6005, 0, 0, 0, 0}};
  CHECK(render_torrc(plain, in).find("Transport") == std::string::npos);

  ProcessPlan proxy{"proxy-bridges", Role::Proxy, false, "", true, true, {0, 0, 9052, 9053, 0, 0}};
  const auto x = render_torrc(proxy, in);
  CHECK(has_line(x, kObfsLine));
  CHECK(has_line(x, "Bridge 127.0.0.1:6004 " + kPlainBridgeFp));
  CHECK(has_line(x, "ClientTransportPlugin obfs4 exec /usr/bin/obfs4proxy"));

  for (const auto& [name, text, relay] : {std::tuple{"o1", b, true}, std::tuple{"proxy-bridges", x, false}}) {
    INFO(name << ":\n" << text);
    auto entries = conflux::config::parse_torrc_text(text, name);
    REQUIRE(entries.has_value());
    if (relay) {
      auto o = conflux::config::relay_options_from_entries(*entries, name);
      INFO((o ? std::string() : o.error().front().to_string()));
      REQUIRE(o.has_value());
      CHECK(o->server_transport_plugins.size() == 1);
      CHECK(o->warnings.empty());
    } else {
      auto o = conflux::config::proxy_options_from_entries(*entries, name);
      INFO((o ? std::string() : o.error().front().to_string()));
      REQUIRE(o.has_value());
      REQUIRE(o->bridges.size() == 2);
      CHECK(o->bridges[0].transport == "obfs4");
      CHECK(o->bridges[0].args.size() == 2);
      CHECK(o->warnings.empty());
    }
  }
}
