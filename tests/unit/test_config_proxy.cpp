// The proxy option schema: defaults, each option's values and errors with
// their line, unknown options, required options and cross-option rules.
// SocksPort and Bridge lines, and loading through the layers:
// test_config_proxy_lines.cpp.
#include <catch2/catch.hpp>

#include "conflux/config/default_directories.hpp"
#include "conflux/config/proxy_options.hpp"
#include "config_proxy_test_support.hpp"

using namespace conflux::config;
using namespace conflux::config::test;
using namespace std::chrono_literals;

TEST_CASE("proxy options: defaults are tor's", "[config][proxy]") {
  auto o = proxy_ok("");
  REQUIRE(o.socks_ports.size() == 1);  // tor's SocksPort 9050 on loopback
  CHECK(o.socks_ports[0] == SocksPortConfig{IpAddress::v4(127, 0, 0, 1), 9050, false, true, false, false});
  CHECK(o.data_directory == "/var/lib/conflux-proxy");
  REQUIRE(o.logs.size() == 1);
  CHECK(o.logs[0] == LogSpec{Severity::Notice, Severity::Err, LogSpec::Dest::Stdout, ""});
  REQUIRE(o.dir_authorities.size() == 1);
  CHECK(o.dir_authorities[0].nickname == "auth1");
  CHECK_FALSE(o.use_bridges);
  CHECK(o.bridges.empty());
  CHECK(o.num_entry_guards == 1);
  CHECK(o.max_circuit_dirtiness == 10min);
  CHECK(o.circuit_build_timeout == 60s);
  CHECK(o.learn_circuit_build_timeout);
  CHECK(o.new_circuit_period == 30s);
  CHECK(o.enforce_distinct_subnets);
  CHECK(o.socks_timeout == 2min);
  CHECK(o.metrics_ports.empty());
  CHECK(o.conflux_enabled == AutoBool::Auto);
  CHECK(o.conflux_client_ux == ConfluxUx::Throughput);
  CHECK(o.conflux_num_legs == 2);
  CHECK(o.max_client_circuits_pending == 32);
  CHECK_FALSE(o.testing_tor_network);
  CHECK(o.warnings.empty());
  // A default-constructed struct already holds the defaults the runtime sees.
  CHECK(ProxyOptions{}.socks_ports == o.socks_ports);
}

TEST_CASE("proxy options: every option set", "[config][proxy]") {
  auto o = proxy_ok(std::string("SocksPort 9150 IsolateDestPort\n") +
                    "Log info file /var/log/conflux-proxy.log\nLog warn stderr\n"
                    "DirAuthority auth2 v3ident=" + kOtherId + " 127.0.0.2:9030 " + kOtherId + "\n"
                    "UseBridges 1\nBridge 192.0.2.7:443 " + kBridgeId + "\n"
                    "NumEntryGuards 3\nMaxCircuitDirtiness 1 hour\nCircuitBuildTimeout 30 seconds\n"
                    "LearnCircuitBuildTimeout 0\nNewCircuitPeriod 1 minute\nEnforceDistinctSubnets 0\n"
                    "SocksTimeout 45\nMetricsPort 9036\nConfluxEnabled 1\nConfluxClientUX latency_lowmem\n"
                    "ConfluxNumLegs 3\nMaxClientCircuitsPending 64\nTestingTorNetwork 1\nDisableNetwork 1\n");
  REQUIRE(o.socks_ports.size() == 1);
  CHECK(o.socks_ports[0].port == 9150);
  CHECK(o.socks_ports[0].isolate_dest_port);
  REQUIRE(o.logs.size() == 2);
  CHECK(o.logs[0].dest == LogSpec::Dest::File);
  CHECK(o.logs[1].min == Severity::Warn);
  CHECK(o.dir_authorities.size() == 2);
  CHECK(o.use_bridges);
  REQUIRE(o.bridges.size() == 1);
  CHECK(o.bridges[0].address.port == 443);
  CHECK(o.num_entry_guards == 3);
  CHECK(o.max_circuit_dirtiness == 1h);
  CHECK(o.circuit_build_timeout == 30s);
  CHECK_FALSE(o.learn_circuit_build_timeout);
  CHECK(o.new_circuit_period == 1min);
  CHECK_FALSE(o.enforce_distinct_subnets);
  CHECK(o.socks_timeout == 45s);
  REQUIRE(o.metrics_ports.size() == 1);
  CHECK(o.metrics_ports[0].address == IpAddress::v4(127, 0, 0, 1));
  CHECK(o.conflux_enabled == AutoBool::True);
  CHECK(o.conflux_client_ux == ConfluxUx::LatencyLowMem);
  CHECK(o.conflux_num_legs == 3);
  CHECK(o.max_client_circuits_pending == 64);
  CHECK(o.testing_tor_network);
  CHECK(o.disable_network);
  CHECK(o.warnings.empty());
}

TEST_CASE("proxy options: ConfluxClientUX takes tor's four names", "[config][proxy]") {
  CHECK(proxy_ok("ConfluxClientUX throughput\n").conflux_client_ux == ConfluxUx::Throughput);
  CHECK(proxy_ok("ConfluxClientUX latency\n").conflux_client_ux == ConfluxUx::Latency);
  CHECK(proxy_ok("ConfluxClientUX throughput_lowmem\n").conflux_client_ux == ConfluxUx::ThroughputLowMem);
  CHECK(proxy_ok("ConfluxClientUX latency_lowmem\n").conflux_client_ux == ConfluxUx::LatencyLowMem);
  for (auto ux : {ConfluxUx::Throughput, ConfluxUx::Latency, ConfluxUx::ThroughputLowMem, ConfluxUx::LatencyLowMem})
    CHECK(parse_conflux_ux(to_string(ux)).value() == ux);
}

TEST_CASE("proxy options: each option's errors carry its line", "[config][proxy]") {
  struct Case {
    const char* line;
    const char* fragment;
  };
  const Case cases[] = {
      {"SocksPort 70000", "SocksPort: invalid port"},
      {"SocksPort 9050 IsolateClientAddr", "SocksPort: unknown SocksPort flag 'IsolateClientAddr'"},
      {"Log loud stdout", "Log: unknown log severity"},
      {"DirAuthority auth2 127.0.0.1:9030 nothex", "DirAuthority"},
      {"UseBridges yes", "UseBridges: expected 0 or 1"},
      {"Bridge obfs4 192.0.2.7:443", "Bridge: the bridge's identity is missing"},
      {"ClientTransportPlugin obfs4 socks5 127.0.0.1:1080", "ClientTransportPlugin: external transports"},
      {"NumEntryGuards 0", "NumEntryGuards: integer out of range"},
      {"NumEntryGuards 11", "NumEntryGuards"},
      {"MaxCircuitDirtiness 31 days", "MaxCircuitDirtiness: at most 30 days"},
      {"MaxCircuitDirtiness soon", "MaxCircuitDirtiness"},
      {"CircuitBuildTimeout 0", "CircuitBuildTimeout: must be between 1 and 86400 seconds"},
      {"CircuitBuildTimeout 2 days", "CircuitBuildTimeout"},
      {"LearnCircuitBuildTimeout auto", "LearnCircuitBuildTimeout"},
      {"NewCircuitPeriod 0", "NewCircuitPeriod: must be between"},
      {"EnforceDistinctSubnets 2", "EnforceDistinctSubnets"},
      {"SocksTimeout 0", "SocksTimeout: must be between"},
      {"MetricsPort 9035 json", "MetricsPort"},
      {"ConfluxEnabled sometimes", "ConfluxEnabled: expected 0, 1 or auto"},
      {"ConfluxClientUX fast", "ConfluxClientUX: unknown value 'fast'"},
      {"ConfluxClientUX Throughput", "ConfluxClientUX"},  // tor compares with strcmp
      {"ConfluxNumLegs 1", "ConfluxNumLegs: integer out of range"},
      {"ConfluxNumLegs 9", "ConfluxNumLegs"},
      {"MaxClientCircuitsPending 0", "MaxClientCircuitsPending"},
      {"MaxClientCircuitsPending 1025", "MaxClientCircuitsPending"},
      {"TestingTorNetwork on", "TestingTorNetwork"},
      {"DisableNetwork 2", "DisableNetwork"},
      {"__OwningControllerProcess 0", "__OwningControllerProcess: integer out of range"},
      {"__OwningControllerProcess gui", "__OwningControllerProcess"},
  };
  for (const auto& c : cases) {
    INFO(c.line);
    auto e = proxy_bad(c.line);
    CHECK(e.file == "torrc");
    CHECK(e.line == 3);
    CHECK(e.message.find(c.fragment) != std::string::npos);
  }
}

TEST_CASE("proxy options: unknown options are errors with file:line", "[config][proxy]") {
  auto r = proxy_build(kProxyBase + "SocksPort 9050\nORPort 9001\n\nNotAnOption 1\n");
  REQUIRE_FALSE(r);
  REQUIRE(r.error().size() == 2);
  CHECK(r.error()[0].to_string() == "torrc:4: unknown option 'ORPort'");
  CHECK(r.error()[1].to_string() == "torrc:6: unknown option 'NotAnOption'");
}

TEST_CASE("proxy options: an empty torrc gets tor's defaults: the public network, a DataDirectory", "[config][proxy]") {
  auto r = proxy_build("", UserEnvironment{false, "/home/u"});
  REQUIRE(r);
  CHECK(r->data_directory == "/home/u/.conflux-proxy");
  CHECK(r->default_directories);
  CHECK(r->dir_authorities == default_dir_authorities());
  CHECK(r->fallback_dirs == default_fallback_dirs());
  REQUIRE(r->socks_ports.size() == 1);
  CHECK(r->socks_ports[0].port == 9050);
  CHECK(r->warnings.empty());
  CHECK(proxy_build("", UserEnvironment{true, "/root"})->data_directory == "/var/lib/conflux-proxy");
  // Not root and no HOME: no default, as tor cannot expand ~ either.
  auto none = proxy_build("");
  REQUIRE_FALSE(none);
  REQUIRE(none.error().size() == 1);
  CHECK(none.error()[0].to_string() == "torrc: DataDirectory is required: there is no default without HOME");
}

TEST_CASE("proxy options: DirAuthority lines replace the public network, fallbacks included", "[config][proxy]") {
  auto o = proxy_ok("");
  CHECK_FALSE(o.default_directories);
  CHECK(o.fallback_dirs.empty());
  // FallbackDir lines alone replace tor's fallbacks, not its authorities.
  auto r = proxy_build("DataDirectory /d\nFallbackDir 192.0.2.9 orport=9001 id=1A25C6358DB91342AA51720A5038B72742732498\n");
  REQUIRE(r);
  CHECK(r->dir_authorities == default_dir_authorities());
  REQUIRE(r->fallback_dirs.size() == 1);
  CHECK(r->fallback_dirs[0].or_port == 9001);
}

TEST_CASE("proxy options: DataDirectory defaults as tor's, under our name", "[config][proxy]") {
  CHECK(default_proxy_data_directory({true, "/home/u"}) == "/var/lib/conflux-proxy");
  CHECK(default_proxy_data_directory({false, "/home/u"}) == "/home/u/.conflux-proxy");
  CHECK(default_proxy_data_directory({false, "/home/u/"}) == "/home/u/.conflux-proxy");
  CHECK(default_proxy_data_directory({false, ""}).empty());
  // An empty value restores the default (tor's rule).
  auto reset = proxy_build(kProxyBase + "DataDirectory\n", UserEnvironment{false, "/home/u"});
  REQUIRE(reset);
  CHECK(reset->data_directory == "/home/u/.conflux-proxy");
}

TEST_CASE("proxy options: DirAuthority rules", "[config][proxy]") {
  auto dup = proxy_bad(std::string("DirAuthority auth1 v3ident=") + kOtherId + " 127.0.0.9:1 " + kOtherId + "\n");
  CHECK(dup.message.find("share a nickname") != std::string::npos);
  // Our former form (an Ed25519 identity) is an error at its file and line.
  auto ours = proxy_bad(std::string("DirAuthority auth2 127.0.0.1:1 ") + kOldAuthEd25519 + "\n");
  CHECK(ours.file == "torrc");
  CHECK(ours.line == 3);
  CHECK(ours.message == "DirAuthority: tor's form only (v3ident=HEX40 ADDRESS:DIRPORT RSA_FINGERPRINT); our form "
                        "with an Ed25519 identity retired");
  // A FallbackDir goes with tor-form authorities.
  auto fallback = proxy_ok("FallbackDir 192.0.2.9 orport=9001 id=1A25C6358DB91342AA51720A5038B72742732498\n");
  CHECK(fallback.fallback_dirs.size() == 1);
}

TEST_CASE("proxy options: __OwningControllerProcess names the process the proxy must not outlive", "[config][proxy]") {
  CHECK(proxy_ok("").owning_controller_process == 0);
  CHECK(proxy_ok("__OwningControllerProcess 4242\n").owning_controller_process == 4242);
  CHECK(proxy_ok("__owningcontrollerprocess 7\n").owning_controller_process == 7);
}

TEST_CASE("proxy options: TestingTorNetwork lets hops share a subnet unless the torrc says otherwise", "[config][proxy]") {
  CHECK(proxy_ok("").enforce_distinct_subnets);
  CHECK_FALSE(proxy_ok("TestingTorNetwork 1\n").enforce_distinct_subnets);
  CHECK(proxy_ok("TestingTorNetwork 1\nEnforceDistinctSubnets 1\n").enforce_distinct_subnets);
}

TEST_CASE("proxy options: tor's repetition and empty-value rules", "[config][proxy]") {
  auto o = proxy_ok("NumEntryGuards 2\nNumEntryGuards 3\nSocksTimeout 10\nSocksTimeout\nBridge\n");
  CHECK(o.num_entry_guards == 3);
  CHECK(o.socks_timeout == 2min);  // empty value: back to the default
  REQUIRE(o.warnings.size() == 2);
  CHECK(o.warnings[0].line == 4);  // NumEntryGuards twice
  CHECK(o.warnings[1].line == 7);  // Bridge with no value
}

TEST_CASE("proxy options: timing rules as tor's", "[config][proxy]") {
  auto short_dirty = proxy_ok("MaxCircuitDirtiness 5 seconds\n");
  CHECK(short_dirty.max_circuit_dirtiness == 10s);  // tor raises it, with a warning
  REQUIRE(short_dirty.warnings.size() == 1);
  CHECK(short_dirty.warnings[0].line == 3);
  CHECK(proxy_ok("MaxCircuitDirtiness 30 days\n").max_circuit_dirtiness == 720h);
  CHECK(proxy_ok("CircuitBuildTimeout 5\n").warnings.empty());  // learning will adapt it
  auto fixed = proxy_ok("CircuitBuildTimeout 5\nLearnCircuitBuildTimeout 0\n");
  REQUIRE(fixed.warnings.size() == 1);
  CHECK(fixed.warnings[0].line == 3);
  auto metrics = proxy_ok("MetricsPort 0.0.0.0:9035\n");
  REQUIRE(metrics.warnings.size() == 1);
  CHECK(metrics.warnings[0].message.find("beyond this host") != std::string::npos);
}

TEST_CASE("proxy options: the table", "[config][proxy]") {
  CHECK(find_proxy_option("socksport")->name == "SocksPort");
  CHECK(find_proxy_option("ORPort") == nullptr);
  CHECK(find_proxy_option("ConfluxNumLegs")->compat == TorCompat::Ours);
  auto list = list_proxy_options();
  CHECK(list.rfind("SocksPort\n", 0) == 0);
  CHECK(list.find("\nBridge\n") != std::string::npos);
  for (const auto& o : proxy_option_table()) {
    INFO(o.name);
    CHECK(is_valid_key(o.name));
    CHECK(find_proxy_option(o.name) == &o);
    CHECK_FALSE(o.summary.empty());
  }
}
