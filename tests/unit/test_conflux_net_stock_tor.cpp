// conflux-net networks that mix implementations: the spec's "implementation"
// field, the plan and ports of a stock tor relay, its torrc, our
// authorities' ConsensusParams when one joins, and the two files of tor's
// DataDirectory that `up` reads back.
#include <catch2/catch.hpp>

#include "conflux/netspec/network_file.hpp"
#include "conflux/netspec/plan.hpp"
#include "conflux/netspec/spec.hpp"
#include "conflux/netspec/tor_key_files.hpp"
#include "conflux/netspec/torrc.hpp"

using namespace conflux::netspec;

namespace {

constexpr const char* kMixed = R"({"relays": 3, "exits": 1, "bridges": [], "proxies": [{"name": "p1"}, {"name": "p2"}],
  "implementation": {"relay2": "tor", "exit1": "tor", "relay1": "conflux"}})";

SpecError error_of(std::string_view text) {
  auto r = parse_spec(text);
  REQUIRE_FALSE(r.has_value());
  return r.error();
}

bool has_line(const std::string& torrc, const std::string& line) {
  return torrc.find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("implementation: names relays and exits, ours unless \"tor\"", "[conflux_net][stock_tor]") {
  auto s = parse_spec(kMixed);
  REQUIRE(s.has_value());
  CHECK(s->implementation.size() == 3);
  CHECK(s->tor == "/usr/sbin/tor");
  CHECK_FALSE(runs_stock_tor(*s, "relay1"));  // "conflux" is ours
  CHECK(runs_stock_tor(*s, "relay2"));
  CHECK(runs_stock_tor(*s, "exit1"));
  CHECK_FALSE(runs_stock_tor(*s, "auth1"));
  // Written out in full and read back the same.
  auto again = parse_spec(encode_spec(*s));
  REQUIRE(again.has_value());
  CHECK(*again == *s);
  CHECK(default_spec().implementation.empty());
}

TEST_CASE("implementation: what a spec may not ask", "[conflux_net][stock_tor]") {
  CHECK(error_of(R"({"implementation": {"relay7": "tor"}})").pointer == "/implementation/relay7");
  CHECK(error_of(R"({"implementation": {"auth1": "tor"}})").pointer == "/implementation/auth1");
  CHECK(error_of(R"({"implementation": {"bridge1m": "tor"}})").pointer == "/implementation/bridge1m");
  CHECK(error_of(R"({"implementation": {"relay1": "arti"}})").pointer == "/implementation/relay1");
  CHECK(error_of(R"({"implementation": {"relay1": 1}})").pointer == "/implementation/relay1");
  CHECK(error_of(R"({"implementation": ["relay1"]})").pointer == "/implementation");
  CHECK(error_of(R"({"tor": "tor", "implementation": {"relay1": "tor"}})").pointer == "/tor");
  // Ours everywhere needs no tor program.
  CHECK(parse_spec(R"({"tor": "tor", "implementation": {"relay1": "conflux"}})").has_value());
}

TEST_CASE("a stock tor relay's plan: an ORPort and a ControlPort", "[conflux_net][stock_tor]") {
  auto s = parse_spec(kMixed);
  REQUIRE(s.has_value());
  auto plan = plan_processes(*s);
  std::vector<std::string> stock;
  for (const auto& p : plan)
    if (p.stock_tor) stock.push_back(p.name);
  CHECK(stock == std::vector<std::string>{"relay2", "exit1"});
  // file server 1, auth1 2, relay1 1, relay2 2, exit1 2, two proxies 2 each
  const auto n = ports_needed(plan);
  REQUIRE(n == 1 + 2 + 1 + 2 + 2 + 4);
  std::vector<std::uint16_t> ports;
  for (std::size_t i = 0; i < n; ++i) ports.push_back(static_cast<std::uint16_t>(20000 + i));
  assign_ports(plan, ports);
  CHECK(plan[2].name == "relay1");
  CHECK(plan[2].ports.or_port == 20003);
  CHECK(plan[2].ports.control_port == 0);
  CHECK(plan[3].name == "relay2");
  CHECK(plan[3].ports.or_port == 20004);
  CHECK(plan[3].ports.control_port == 20005);
  CHECK(plan[4].name == "exit1");
  CHECK(plan[4].ports.or_port == 20006);
  CHECK(plan[4].ports.control_port == 20007);
}

TEST_CASE("a stock tor exit's torrc joins our authorities", "[conflux_net][stock_tor]") {
  ProcessPlan exit{"exit1", Role::Exit, true, {}, false, true, {}};
  exit.stock_tor = true;
  exit.ports.or_port = 5001;
  exit.ports.control_port = 5002;
  TorrcInputs in;
  in.net_dir = "/n";
  in.stock_relays = true;
  in.file_port = 8080;
  in.exit_policy = {"accept *:443"};
  in.relay_options = {"Schedulers Vanilla"};
  in.authorities = {{"auth1", 4001, 4002, std::string(40, 'A'), std::string(40, 'B')}};
  const auto t = render_torrc(exit, in);
  INFO(t);
  CHECK(has_line(t, "DirAuthority auth1 orport=4001 v3ident=" + std::string(40, 'A') + " 127.0.0.1:4002 " +
                        std::string(40, 'B')));
  CHECK(has_line(t, "ORPort 127.0.0.1:5001"));
  CHECK(has_line(t, "ControlPort 127.0.0.1:5002"));
  CHECK(has_line(t, "CookieAuthentication 1"));
  CHECK(has_line(t, "AssumeReachable 1"));
  CHECK(has_line(t, "OutboundBindAddress 127.0.0.1"));
  CHECK(has_line(t, "ExitRelay 1"));
  CHECK(has_line(t, "ExitPolicyRejectPrivate 0"));
  CHECK(t.ends_with("ExitPolicy accept *:8080\nExitPolicy accept *:443\nExitPolicy reject *:*\n"));
  CHECK(t.find("Schedulers") == std::string::npos);  // relay_options are conflux-relay's
  CHECK(t.find("DataDirectory /n/exit1/data\n") != std::string::npos);

  exit.role = Role::Relay;
  const auto middle = render_torrc(exit, in);
  CHECK(middle.ends_with("ExitRelay 0\nExitPolicy reject *:*\n"));
}

TEST_CASE("our authorities make a new stock relay Fast", "[conflux_net][stock_tor]") {
  auto none = authority_params_for_stock_relays({"Schedulers Vanilla"});
  CHECK(none.consensus_params_line == "ConsensusParams FastFlagMaxThreshold=0");
  CHECK(none.other_options == std::vector<std::string>{"Schedulers Vanilla"});
  // The spec's own parameters are kept, on the one line tor reads.
  auto merged = authority_params_for_stock_relays({"consensusparams cc_alg=2", "ConsensusParams circwindow=1000"});
  CHECK(merged.consensus_params_line == "ConsensusParams circwindow=1000 FastFlagMaxThreshold=0");
  CHECK(merged.other_options.empty());
  auto own = authority_params_for_stock_relays({"ConsensusParams FastFlagMaxThreshold=5"});
  CHECK(own.consensus_params_line == "ConsensusParams FastFlagMaxThreshold=5");

  ProcessPlan auth{"auth1", Role::Authority, true, {}, false, true, {}};
  TorrcInputs in;
  in.net_dir = "/n";
  in.relay_options = {"Schedulers Vanilla"};
  CHECK(render_torrc(auth, in).find("ConsensusParams") == std::string::npos);
  in.stock_relays = true;
  const auto t = render_torrc(auth, in);
  CHECK(has_line(t, "ConsensusParams FastFlagMaxThreshold=0"));
  CHECK(has_line(t, "Schedulers Vanilla"));
}

TEST_CASE("the identities tor wrote in its DataDirectory", "[conflux_net][stock_tor]") {
  const std::string hex = "9978D2382255158EAC9AE1451714B817B83B9358";
  auto fp = parse_tor_fingerprint_file("relay2 " + hex + "\n");
  REQUIRE(fp.has_value());
  CHECK((*fp)[0] == 0x99);
  CHECK((*fp)[19] == 0x58);
  CHECK_FALSE(parse_tor_fingerprint_file(hex + "\n").has_value());
  CHECK_FALSE(parse_tor_fingerprint_file("relay2 " + hex.substr(1) + "\n").has_value());
  CHECK_FALSE(parse_tor_fingerprint_file("relay2 " + hex + "00\n").has_value());
  CHECK_FALSE(parse_tor_fingerprint_file("").has_value());

  std::vector<std::uint8_t> file(64, 0);
  const std::string tag = "== ed25519v1-public: type0 ==";
  std::copy(tag.begin(), tag.end(), file.begin());
  for (std::size_t i = 0; i < 32; ++i) file[32 + i] = static_cast<std::uint8_t>(i + 1);
  auto ed = parse_tor_ed25519_public_key_file(file);
  REQUIRE(ed.has_value());
  CHECK((*ed)[0] == 1);
  CHECK((*ed)[31] == 32);
  auto secret = file;
  secret[14] = 's';  // "== ed25519v1-secret..." is not the public key
  CHECK_FALSE(parse_tor_ed25519_public_key_file(secret).has_value());
  file.pop_back();
  CHECK_FALSE(parse_tor_ed25519_public_key_file(file).has_value());
}

TEST_CASE("network.json records a stock relay's implementation and ControlPort", "[conflux_net][stock_tor]") {
  NetworkInfo info;
  info.state = "ready";
  ProcessRecord r;
  r.name = "exit1";
  r.role = Role::Exit;
  r.started = true;
  r.pid = 1234;
  r.ports.or_port = 5001;
  r.ports.control_port = 5002;
  r.implementation = "tor";
  info.processes.push_back(r);
  const auto text = encode_network(info);
  CHECK(text.find("\"control\": 5002") != std::string::npos);
  CHECK(text.find("\"implementation\": \"tor\"") != std::string::npos);
  auto back = decode_network(text);
  REQUIRE(back.has_value());
  CHECK(*back == info);
}

TEST_CASE("a stock tor proxy: a tor client with a SocksPort and a ControlPort", "[conflux_net][stock_tor]") {
  auto s = parse_spec(R"({"relays": 3, "exits": 1, "bridges": [],
    "proxies": [{"name": "ours"}, {"name": "torc", "conflux": true, "options": ["Log info file /n/torc/info.log"]}],
    "implementation": {"torc": "tor"}})");
  REQUIRE(s.has_value());
  CHECK(runs_stock_tor(*s, "torc"));
  CHECK_FALSE(runs_stock_tor(*s, "ours"));
  auto plan = plan_processes(*s);
  // file server 1, auth1 2, three relays 1 each, two proxies 2 each
  const auto n = ports_needed(plan);
  REQUIRE(n == 1 + 2 + 3 + 4);
  std::vector<std::uint16_t> ports;
  for (std::size_t i = 0; i < n; ++i) ports.push_back(static_cast<std::uint16_t>(20000 + i));
  assign_ports(plan, ports);
  const auto& ours = plan[plan.size() - 2];
  const auto& torc = plan.back();
  REQUIRE(torc.name == "torc");
  CHECK(torc.stock_tor);
  CHECK(ours.ports.metrics_port == 20007);
  CHECK(torc.ports.socks_port == 20008);
  CHECK(torc.ports.control_port == 20009);
  CHECK(torc.ports.metrics_port == 0);  // tor has no MetricsPort for a client

  TorrcInputs in;
  in.net_dir = "/n";
  in.authorities = {{"auth1", 4001, 4002, std::string(40, 'A'), std::string(40, 'B')}};
  const auto t = render_torrc(torc, in);
  INFO(t);
  CHECK(has_line(t, "SocksPort 127.0.0.1:20008"));
  CHECK(has_line(t, "ControlPort 127.0.0.1:20009"));
  CHECK(has_line(t, "CookieAuthentication 1"));
  CHECK(has_line(t, "ConfluxEnabled 1"));
  CHECK(has_line(t, "EnforceDistinctSubnets 0"));
  CHECK(has_line(t, "TestingTorNetwork 1"));
  CHECK(has_line(t, "DirAuthority auth1 orport=4001 v3ident=" + std::string(40, 'A') + " 127.0.0.1:4002 " +
                        std::string(40, 'B')));
  CHECK(t.ends_with("\nLog info file /n/torc/info.log\n"));
  CHECK(t.find("MetricsPort") == std::string::npos);  // conflux-proxy's option; tor would refuse it for a client
  CHECK(t.find("UseBridges") == std::string::npos);
}

TEST_CASE("a stock tor proxy takes no bridges", "[conflux_net][stock_tor]") {
  CHECK(error_of(R"({"proxies": [{"name": "torb", "use_bridges": true}], "implementation": {"torb": "tor"}})")
            .pointer == "/implementation/torb");
  CHECK(error_of(R"({"proxies": [{"name": "p"}], "implementation": {"q": "tor"}})").pointer == "/implementation/q");
}

TEST_CASE("stock tor in an emulated network listens and leaves on its own address", "[conflux_net][stock_tor]") {
  auto s = parse_spec(R"({"relays": 3, "exits": 1, "bridges": [], "proxies": [{"name": "torc"}],
    "implementation": {"relay1": "tor", "relay2": "tor", "exit1": "tor", "torc": "tor"},
    "emulation": {"subnet": "10.90.0.0/24"}})");
  REQUIRE(s.has_value());
  auto plan = plan_processes(*s);
  std::vector<std::uint16_t> ports;
  for (std::size_t i = 0; i < ports_needed(plan); ++i) ports.push_back(static_cast<std::uint16_t>(30000 + i));
  assign_ports(plan, ports);
  TorrcInputs in;
  in.net_dir = "/n";
  in.stock_relays = true;
  in.file_port = 8080;
  for (const auto& p : plan) {
    if (!p.stock_tor) continue;
    const auto t = render_torrc(p, in);
    INFO(p.name << "\n" << t);
    CHECK(p.address.starts_with("10.90.0."));
    CHECK(has_line(t, "ControlPort " + p.address + ":" + std::to_string(p.ports.control_port)));
    CHECK(t.find("127.0.0.1") == std::string::npos);
    if (p.role == Role::Proxy) {
      CHECK(has_line(t, "SocksPort " + p.address + ":" + std::to_string(p.ports.socks_port)));
      continue;
    }
    CHECK(has_line(t, "Address " + p.address));
    CHECK(has_line(t, "OutboundBindAddress " + p.address));
    CHECK(has_line(t, "ORPort " + p.address + ":" + std::to_string(p.ports.or_port)));
    if (p.role == Role::Exit) CHECK(has_line(t, "OutboundBindAddressExit " + p.address));
  }
}
