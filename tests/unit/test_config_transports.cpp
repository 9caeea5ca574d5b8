// Pluggable-transport lines: Bridge lines with a transport and k=v
// arguments split as tor's parse_bridge_line does, ClientTransportPlugin for
// the proxy, and ServerTransportPlugin / ServerTransportListenAddr /
// ServerTransportOptions for the relay, with errors at their file and line.
#include <catch2/catch.hpp>

#include "config_proxy_test_support.hpp"
#include "conflux/config/relay_options.hpp"
#include "conflux/config/transport_lines.hpp"

using namespace conflux::config;
using namespace conflux::config::test;

namespace {

const std::string kPlugin = "ClientTransportPlugin obfs4 exec /usr/bin/obfs4proxy\n";
const std::string kCert = "cert=ssH+9rP8dG2NLDN2XuFw63hIO/9MNNinLmxQDpVa+7kTOa9/m+tGWT1SmSYpQ9uTBGa6Hw";

conflux::Result<RelayOptions, ConfigErrors> relay(const std::string& extra) {
  auto entries = parse_torrc_text("DataDirectory /var/lib/r\nORPort 9001\nBridgeRelay 1\n" + extra, "torrc");
  if (!entries) FAIL("parse error: " << entries.error().to_string());
  return relay_options_from_entries(*entries, "torrc");
}

}  // namespace

TEST_CASE("Bridge obfs4 lines: transport, identity and the k=v arguments in order", "[config][proxy][pt]") {
  auto b = parse_bridge_line("obfs4 192.0.2.7:443 " + std::string(kBridgeId) + " " + kCert + " iat-mode=0");
  REQUIRE(b);
  CHECK(b->transport == "obfs4");
  CHECK(b->address.to_string() == "192.0.2.7:443");
  CHECK(b->rsa_fingerprint.front() == 0xff);
  REQUIRE(b->args.size() == 2);
  CHECK(b->args[0] == std::pair<std::string, std::string>{"cert", kCert.substr(5)});
  CHECK(b->args[1] == std::pair<std::string, std::string>{"iat-mode", "0"});
  // A value may hold '=' (split at the first) and be empty (tor's "k=").
  auto eq = parse_bridge_line("obfs4 192.0.2.7:443 " + std::string(kAuthId) + " a=b=c d=");
  REQUIRE(eq);
  CHECK(eq->args == TransportArgs{{"a", "b=c"}, {"d", ""}});
  // A plain bridge keeps no transport.
  auto plain = parse_bridge_line("192.0.2.7:443 " + std::string(kBridgeId));
  REQUIRE(plain);
  CHECK(plain->transport.empty());
  CHECK(plain->args.empty());
}

TEST_CASE("Bridge obfs4 lines: bad ones say why, at their line", "[config][proxy][pt]") {
  struct Case {
    std::string line;
    const char* fragment;
  };
  const Case cases[] = {
      {"obfs4", "Too few items to Bridge line"},
      {"obfs4 192.0.2.7:443 " + kCert, "identity is missing"},  // tor: k=v there means no fingerprint
      {"obfs4 192.0.2.7:443 " + std::string(kBridgeId) + " cert", "'cert' is not a k=v item"},
      {"obfs4 192.0.2.7:443 " + std::string(kBridgeId) + " =x", "'=x' is not a k=v item"},
      {"obfs4 192.0.2.7:443 " + std::string(kBridgeId) + " cert=" + std::string(600, 'A'),
       "SOCKS arguments can't be more than 510 bytes (605)"},
      {"obfs-4 192.0.2.7:443 " + std::string(kBridgeId), "expected ADDRESS:PORT"},  // not a C identifier: the address
  };
  for (const auto& c : cases) {
    INFO(c.line);
    auto r = parse_bridge_line(c.line);
    REQUIRE_FALSE(r);
    CHECK(r.error().find(c.fragment) != std::string::npos);
    auto e = proxy_bad(kPlugin + "UseBridges 1\nBridge " + c.line + "\n");
    CHECK(e.line == 5);
    CHECK(e.message.rfind("Bridge: ", 0) == 0);
  }
}

TEST_CASE("the SOCKS argument size counts escapes as tor's pt_stringify_socks_args", "[config][pt]") {
  CHECK(transport_args_bytes({}) == 0);
  CHECK(transport_args_bytes({{"a", "b"}}) == 3);
  CHECK(transport_args_bytes({{"a", "b"}, {"c", "d"}}) == 7);            // a=b;c=d
  CHECK(transport_args_bytes({{"k", "x;y=z\\"}}) == 2 + 6 + 3);           // k=x\;y\=z\\ (6 bytes, 3 escaped)
}

TEST_CASE("ClientTransportPlugin: tor's syntax, managed only, needed by the obfs4 bridges", "[config][proxy][pt]") {
  auto p = parse_client_transport_plugin("obfs4,meek_lite exec /usr/bin/obfs4proxy -enableLogging");
  REQUIRE(p);
  CHECK(p->transports == std::vector<std::string>{"obfs4", "meek_lite"});
  CHECK(p->path == "/usr/bin/obfs4proxy");
  CHECK(p->args == std::vector<std::string>{"-enableLogging"});
  CHECK(parse_client_transport_plugin("obfs4 exec").error().find("Too few arguments") != std::string::npos);
  CHECK(parse_client_transport_plugin("obfs4 socks5 127.0.0.1:1080").error().find("not supported") != std::string::npos);
  CHECK(parse_client_transport_plugin("obfs4 proxy 127.0.0.1:1080").error().find("Strange ClientTransportPlugin type 'proxy'") !=
        std::string::npos);
  CHECK(parse_client_transport_plugin("obfs-4 exec /x").error().find("not a C identifier (obfs-4)") != std::string::npos);

  auto o = proxy_ok(kPlugin + "UseBridges 1\nBridge obfs4 192.0.2.7:443 " + kBridgeId + " " + kCert + " iat-mode=0\n");
  REQUIRE(o.client_transport_plugins.size() == 1);
  REQUIRE(o.bridges.size() == 1);
  CHECK(o.bridges[0].transport == "obfs4");
  auto bad = proxy_bad("ClientTransportPlugin obfs4 exec\n");
  CHECK(bad.to_string().rfind("torrc:3: ClientTransportPlugin: Too few arguments", 0) == 0);
  // A bridge whose transport no plugin provides (tor refuses it too).
  auto missing = proxy_bad("UseBridges 1\nBridge obfs4 192.0.2.7:443 " + std::string(kBridgeId) + " " + kCert + "\n");
  CHECK(missing.line == 4);
  CHECK(missing.message.find("corresponding ClientTransportPlugin line") != std::string::npos);
}

TEST_CASE("ServerTransportPlugin, ServerTransportListenAddr and ServerTransportOptions", "[config][relay][pt]") {
  auto r = relay("ServerTransportPlugin obfs4 exec /usr/bin/obfs4proxy\nServerTransportListenAddr obfs4 0.0.0.0:443\n"
                 "ServerTransportOptions obfs4 iat-mode=1 x=y=z\n");
  REQUIRE(r);
  REQUIRE(r->server_transport_plugins.size() == 1);
  CHECK(r->server_transport_plugins[0].transports == std::vector<std::string>{"obfs4"});
  REQUIRE(r->server_transport_listen_addrs.size() == 1);
  CHECK(r->server_transport_listen_addrs[0].address.to_string() == "0.0.0.0:443");
  REQUIRE(r->server_transport_options.size() == 1);
  CHECK(r->server_transport_options[0].args == TransportArgs{{"iat-mode", "1"}, {"x", "y=z"}});
  CHECK(r->warnings.empty());

  auto err = [](const std::string& extra) {
    auto b = relay(extra);
    REQUIRE_FALSE(b);
    REQUIRE(b.error().size() == 1);
    return b.error().front().to_string();
  };
  CHECK(err("ServerTransportPlugin obfs4 socks5 /x\n") == "torrc:4: ServerTransportPlugin: Strange ServerTransportPlugin type 'socks5'");
  CHECK(err("ServerTransportPlugin obfs4 proxy 127.0.0.1:1\n").find("torrc:4: ServerTransportPlugin: external") == 0);
  CHECK(err("ServerTransportListenAddr obfs4\n").find("torrc:4: ServerTransportListenAddr: ServerTransportListenAddr line has the wrong number") == 0);
  CHECK(err("ServerTransportListenAddr obfs4 127.0.0.1\n").find("torrc:4: ServerTransportListenAddr:") == 0);
  CHECK(err("ServerTransportOptions obfs4 iat-mode\n") == "torrc:4: ServerTransportOptions: 'iat-mode' is not a k=v item");
  CHECK(err("ServerTransportPlugin obfs4 exec /x\nServerTransportListenAddr obfs4 127.0.0.1:1\n"
            "ServerTransportListenAddr obfs4 127.0.0.1:2\n")
            .find("two ServerTransportListenAddr lines for 'obfs4'") != std::string::npos);
  // For a transport nothing launches: ignored, with a warning (as tor).
  auto unused = relay("ServerTransportListenAddr obfs4 127.0.0.1:1\n");
  REQUIRE(unused);
  REQUIRE(unused->warnings.size() == 1);
  CHECK(unused->warnings[0].line == 4);
}
