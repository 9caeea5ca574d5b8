// conflux-net's spec file: defaults, every field, and errors that name the
// line and field.
#include <catch2/catch.hpp>

#include "conflux/netspec/bandwidth_file.hpp"
#include "conflux/netspec/json_lines.hpp"
#include "conflux/netspec/plan.hpp"
#include "conflux/netspec/spec.hpp"

using namespace conflux::netspec;

namespace {

SpecError error_of(std::string_view text) {
  auto r = parse_spec(text);
  REQUIRE_FALSE(r.has_value());
  return r.error();
}

}  // namespace

TEST_CASE("the default spec is the issue's network", "[conflux_net][spec]") {
  const auto s = default_spec();
  CHECK(s.authorities == 1);
  CHECK(s.relays == 6);
  CHECK(s.exits == 2);
  REQUIRE(s.bridges.size() == 2);
  CHECK(s.bridges[0].bandwidth_rate == "100 KBytes");
  CHECK(s.bridges[1].bandwidth_rate == "1 MByte");
  REQUIRE(s.proxies.size() == 2);
  CHECK(s.proxies[0].start);
  CHECK_FALSE(s.proxies[0].use_bridges);
  CHECK(s.proxies[1].name == "proxy-bridges");
  CHECK_FALSE(s.proxies[1].start);
  CHECK(s.proxies[1].use_bridges);
  CHECK(s.file_origins == 1);
  REQUIRE(s.files.size() == 4);
  CHECK(s.files[0].size == 320 * 1024);
  CHECK(s.files[1].size == 1024 * 1024);
  CHECK(s.files[2].size == 5 * 1024 * 1024);
  CHECK(s.files[3].size == 50 * 1024 * 1024);
  CHECK(validate_spec(s).has_value());
  // An empty object is the default network.
  auto parsed = parse_spec("{}");
  REQUIRE(parsed.has_value());
  CHECK(*parsed == s);
}

TEST_CASE("a spec overrides only the fields it has, and round-trips", "[conflux_net][spec]") {
  auto r = parse_spec(R"({
    "relays": 4, "exits": 1, "consensus_interval": 20,
    "relay_bandwidth_rate": "2 MBytes",
    "exit_policy": ["accept *:443"],
    "bridges": [{"name": "slow", "bandwidth_rate": "50 KBytes"}],
    "proxies": [{"name": "p1"}, {"name": "p2", "use_bridges": true, "conflux": false, "start": false,
                 "options": ["Log info file /tmp/p2-info.log"]}],
    "files": [{"name": "a.bin", "size": 10}, {"name": "b.bin", "size": "2 KB"}],
    "file_seed": 7, "file_origins": 6
  })");
  REQUIRE(r.has_value());
  CHECK(r->authorities == 1);
  CHECK(r->relays == 4);
  CHECK(r->exits == 1);
  CHECK(r->consensus_interval == 20);
  CHECK(r->relay_bandwidth_rate == "2 MBytes");
  CHECK(r->exit_policy == std::vector<std::string>{"accept *:443"});
  REQUIRE(r->bridges.size() == 1);
  CHECK(r->bridges[0] == BridgeSpec{"slow", "50 KBytes"});
  REQUIRE(r->proxies.size() == 2);
  CHECK(r->proxies[0] == ProxySpec{"p1", true, false, true});
  CHECK(r->proxies[1] == ProxySpec{"p2", false, true, false, {"Log info file /tmp/p2-info.log"}});
  REQUIRE(r->files.size() == 2);
  CHECK(r->files[1].size == 2048);
  CHECK(r->file_seed == 7);
  CHECK(r->file_origins == 6);

  auto again = parse_spec(encode_spec(*r));
  REQUIRE(again.has_value());
  CHECK(*again == *r);
  auto defaults = parse_spec(encode_spec(default_spec()));
  REQUIRE(defaults.has_value());
  CHECK(*defaults == default_spec());
}

TEST_CASE("spec errors name the line and the field", "[conflux_net][spec]") {
  SECTION("bad JSON: the line of the mistake") {
    const auto e = error_of("{\n  \"relays\": 3,\n  \"exits\": ,\n}");
    CHECK(e.line == 3);
    CHECK(e.pointer.empty());
    CHECK(e.message.rfind("invalid JSON: ", 0) == 0);
    CHECK(e.to_string("net.json").rfind("net.json:3: invalid JSON: ", 0) == 0);
  }
  SECTION("a wrong type") {
    const auto e = error_of("{\n  \"relays\": \"six\"\n}");
    CHECK(e.line == 2);
    CHECK(e.pointer == "/relays");
    CHECK(e.to_string("s.json") == "s.json:2: /relays: expected a whole number >= 0");
  }
  SECTION("a negative number") { CHECK(error_of(R"({"exits": -1})").pointer == "/exits"); }
  SECTION("a directory other than tor's (the JSON one retired)") {
    for (const auto* spec : {R"({"directory": "json"})", R"({"directory": "xml"})"}) {
      const auto e = error_of(spec);
      CHECK(e.pointer == "/directory");
      CHECK(e.message == "\"tor\" (the JSON directory retired)");
    }
    // An older spec that names tor's still reads; it is the only one now.
    auto tor = parse_spec(R"({"directory": "tor"})");
    REQUIRE(tor);
    CHECK(encode_spec(*tor) == encode_spec(default_spec()));
  }
  SECTION("an unknown field") {
    const auto e = error_of("{\n\"relays\": 3,\n\"exit\": 1\n}");
    CHECK(e.line == 3);
    CHECK(e.pointer == "/exit");
    CHECK(e.message.find("unknown field") != std::string::npos);
  }
  SECTION("a field deep in an array, on its own line") {
    const auto e = error_of(
        "{\"bridges\": [\n  {\"name\": \"a\"},\n  {\"name\": \"b\",\n   \"bandwidth_rate\": \"fast\"}\n]}");
    CHECK(e.pointer == "/bridges/1/bandwidth_rate");
    CHECK(e.line == 4);
  }
  SECTION("an unknown field in an element") {
    const auto e = error_of(R"({"proxies": [{"name": "p", "bridges": true}]})");
    CHECK(e.pointer == "/proxies/0/bridges");
  }
  SECTION("a proxy's option that is not a string, named by its whole pointer") {
    CHECK(error_of(R"({"proxies": [{"name": "p", "options": ["Log info stdout", 3]}]})").pointer ==
          "/proxies/0/options/1");
    CHECK(error_of(R"({"proxies": [{"name": "p", "options": "Log info stdout"}]})").pointer == "/proxies/0/options");
  }
  SECTION("not an object") { CHECK(error_of("[1, 2]").pointer == "/"); }
  SECTION("a number no type holds (found by fuzz_conflux_net)") {
    CHECK(error_of(R"({"relays": 1e999})").message.rfind("invalid JSON: ", 0) == 0);
    CHECK(error_of(R"({"x": 88888888e888888888})").message.rfind("invalid JSON: ", 0) == 0);
  }
  SECTION("a fraction where a whole number belongs") { CHECK(error_of(R"({"relays": 3.0})").pointer == "/relays"); }
  SECTION("a missing name") { CHECK(error_of(R"({"bridges": [{}]})").pointer == "/bridges/0"); }
}

TEST_CASE("spec validation", "[conflux_net][spec]") {
  CHECK(error_of(R"({"authorities": 0})").pointer == "/authorities");
  CHECK(error_of(R"({"authorities": 6})").pointer == "/authorities");
  CHECK(error_of(R"({"relays": 129})").pointer == "/relays");
  CHECK(error_of(R"({"relays": 2, "exits": 3})").pointer == "/exits");
  CHECK(error_of(R"({"consensus_interval": 5})").pointer == "/consensus_interval");
  CHECK(error_of(R"({"consensus_interval": 7000})").pointer == "/consensus_interval");
  CHECK(error_of(R"({"file_origins": 0})").pointer == "/file_origins");
  CHECK(error_of(R"({"file_origins": 9})").pointer == "/file_origins");
  CHECK(error_of(R"({"relay_bandwidth_rate": "0"})").pointer == "/relay_bandwidth_rate");
  CHECK(error_of(R"({"exit_policy": ["allow *:80"]})").pointer == "/exit_policy/0");
  // A value that would end its torrc line and start another option.
  CHECK(error_of(R"({"exit_policy": ["accept *:80\nExitRelay 0"]})").pointer == "/exit_policy/0");
  CHECK(error_of(R"({"bridges": [{"name": "bad-name"}]})").pointer == "/bridges/0/name");
  CHECK(error_of(R"({"bridges": [{"name": "twentycharacterslong"}]})").pointer == "/bridges/0/name");
  CHECK(error_of(R"({"bridges": [{"name": "b", "bandwidth_rate": "1 MB\nX 1"}]})").pointer ==
        "/bridges/0/bandwidth_rate");
  // Names are directories: unique, whatever the case, and not ours.
  CHECK(error_of(R"({"bridges": [{"name": "b"}, {"name": "B"}]})").pointer == "/bridges/1/name");
  CHECK(error_of(R"({"bridges": [{"name": "relay1"}]})").pointer == "/bridges/0/name");
  CHECK(error_of(R"({"proxies": [{"name": "files"}]})").pointer == "/proxies/0/name");
  CHECK(error_of(R"({"proxies": [{"name": "fileserver"}]})").pointer == "/proxies/0/name");
  CHECK(error_of(R"({"proxies": [{"name": "../x"}]})").pointer == "/proxies/0/name");
  CHECK(error_of(R"({"proxies": [{"name": "-x"}]})").pointer == "/proxies/0/name");
  CHECK(error_of(R"({"bridges": [], "proxies": [{"name": "p", "use_bridges": true}]})").pointer ==
        "/proxies/0/use_bridges");
  CHECK(error_of(R"({"relays": 2, "exits": 1})").pointer == "/proxies/0");
  CHECK(error_of(R"({"exits": 0})").pointer == "/proxies/0");
  CHECK(error_of(R"({"files": [{"name": "../etc", "size": 1}]})").pointer == "/files/0/name");
  CHECK(error_of(R"({"files": [{"name": ".hidden", "size": 1}]})").pointer == "/files/0/name");
  CHECK(error_of(R"({"files": [{"name": "index.html", "size": 1}]})").pointer == "/files/0/name");
  CHECK(error_of(R"({"files": [{"name": "a", "size": 1}, {"name": "a", "size": 2}]})").pointer == "/files/1/name");
  CHECK(error_of(R"({"files": [{"name": "a", "size": 1073741825}]})").pointer == "/files/0/size");
  CHECK(error_of(R"({"files": [{"name": "a", "size": "1 GB"}, {"name": "b", "size": "1 GB"},
                               {"name": "c", "size": 1}]})")
            .pointer == "/files/2/size");
  CHECK(error_of(R"({"files": [{"name": "a", "size": 1.5}]})").pointer == "/files/0/size");
  CHECK(error_of(R"({"files": [{"name": "a"}]})").pointer == "/files/0");

  // Without proxies a network may be tiny (how conflux-net is tested
  // without a proxy program).
  auto tiny = parse_spec(R"({"relays": 1, "exits": 0, "bridges": [], "proxies": [], "files": []})");
  REQUIRE(tiny.has_value());
  CHECK(tiny->relays == 1);
}

TEST_CASE("guard_relays: the authorities' only Guards, by relay name", "[conflux_net][spec]") {
  auto r = parse_spec(R"({"relays": 5, "exits": 1, "guard_relays": ["relay1", "relay4", "auth1", "exit1"]})");
  REQUIRE(r.has_value());
  CHECK(r->guard_relays == std::vector<std::string>{"relay1", "relay4", "auth1", "exit1"});
  auto again = parse_spec(encode_spec(*r));
  REQUIRE(again.has_value());
  CHECK(again->guard_relays == r->guard_relays);
  CHECK(default_spec().guard_relays.empty());  // the authorities' own rule

  CHECK(error_of(R"({"relays": 5, "exits": 1, "guard_relays": ["relay5"]})").pointer == "/guard_relays/0");
  CHECK(error_of(R"({"guard_relays": ["relay1", "auth2"]})").pointer == "/guard_relays/1");
  CHECK(error_of(R"({"guard_relays": ["bridge100k"]})").message ==
        "names no authority, relay or exit of this network (auth1.., relay1.., exit1..)");
  CHECK(error_of(R"({"guard_relays": ["Relay1"]})").pointer == "/guard_relays/0");  // names as the network's
  CHECK(error_of(R"({"guard_relays": ["relay1", "relay1"]})").message == "'relay1' is listed twice");
  CHECK(error_of(R"({"guard_relays": [1]})").pointer == "/guard_relays/0");
  CHECK(error_of(R"({"guard_relays": "relay1"})").pointer == "/guard_relays");
}

TEST_CASE("measured_bandwidths: relay name -> rate, and the bandwidth file made of it", "[conflux_net][spec]") {
  auto r = parse_spec(R"({"relays": 3, "exits": 1,
    "measured_bandwidths": {"auth1": "2 MBytes", "relay1": "16 MBytes", "exit1": "500 KBytes", "relay2": "1 byte"}})");
  REQUIRE(r.has_value());
  REQUIRE(r->measured_bandwidths.has_value());
  CHECK_FALSE(r->measured_bandwidths->link);
  auto again = parse_spec(encode_spec(*r));
  REQUIRE(again.has_value());
  CHECK(*again == *r);
  CHECK_FALSE(default_spec().measured_bandwidths.has_value());
  // tor's units are 1024-based; the file's kilobytes are 1000 bytes, at least 1.
  CHECK(measured_kb(*r) == std::map<std::string, std::uint64_t>{
                               {"auth1", 2097}, {"exit1", 512}, {"relay1", 16777}, {"relay2", 1}});
  CHECK(measured_kb(default_spec()).empty());
  const auto text = render_bandwidth_file(1700000000, {{"relay1", std::string(40, 'A'), 16777}});
  CHECK(text == "1700000000\nversion=1.4.0\nsoftware=conflux-net\nnumber_eligible_relays=1\n=====\n"
                "node_id=$" + std::string(40, 'A') + " bw=16777 nick=relay1\n");

  CHECK(error_of(R"({"measured_bandwidths": {"relay9": "1 MByte"}})").pointer == "/measured_bandwidths/relay9");
  CHECK(error_of(R"({"measured_bandwidths": {"bridge100k": "1 MByte"}})").pointer ==
        "/measured_bandwidths/bridge100k");  // bridges are in no consensus
  CHECK(error_of(R"({"measured_bandwidths": {"relay1": "fast"}})").pointer == "/measured_bandwidths/relay1");
  CHECK(error_of(R"({"measured_bandwidths": {"relay1": ""}})").pointer == "/measured_bandwidths/relay1");
  CHECK(error_of(R"({"measured_bandwidths": {"relay1": 5}})").pointer == "/measured_bandwidths/relay1");
  CHECK(error_of(R"({"measured_bandwidths": "equal"})").pointer == "/measured_bandwidths");
  CHECK(error_of(R"({"measured_bandwidths": ["relay1"]})").pointer == "/measured_bandwidths");
}

TEST_CASE("measured_bandwidths \"link\": every listed relay's emulated link rate", "[conflux_net][spec]") {
  auto r = parse_spec(R"({"relays": 3, "exits": 1, "bridges": [], "proxies": [], "measured_bandwidths": "link",
    "emulation": {"default": {"rate": "1 MByte"}, "hosts": {"relay1": {"rate": "16 MBytes"}, "exit1": {"latency_ms": 5}}}})");
  REQUIRE(r.has_value());
  CHECK(r->measured_bandwidths->link);
  auto again = parse_spec(encode_spec(*r));
  REQUIRE(again.has_value());
  CHECK(*again == *r);
  // exit1's host entry keeps the default's rate.
  CHECK(measured_kb(*r) == std::map<std::string, std::uint64_t>{
                               {"auth1", 1048}, {"exit1", 1048}, {"relay1", 16777}, {"relay2", 1048}});
  // On loopback there is no link rate; a listed relay without one is an error.
  CHECK(error_of(R"({"measured_bandwidths": "link"})").pointer == "/measured_bandwidths");
  const auto e = error_of(R"({"relays": 3, "exits": 1, "bridges": [], "proxies": [], "measured_bandwidths": "link",
    "emulation": {"hosts": {"relay1": {"rate": "16 MBytes"}}}})");
  CHECK(e.message.find("'auth1' has no link rate") != std::string::npos);
}

TEST_CASE("oversized and deeply nested specs are refused without crashing", "[conflux_net][spec]") {
  CHECK_FALSE(parse_spec(std::string(kMaxSpecSize + 1, ' ')).has_value());
  const std::string deep = "{\"files\": " + std::string(5000, '[') + std::string(5000, ']') + "}";
  const auto e = error_of(deep);
  CHECK(e.pointer.rfind("/files/0", 0) == 0);
  // The line index copes with what the parser refused, too.
  (void)index_json_lines("{\"a\": [1, {\"b\": \"\\\"}\"}");
  (void)index_json_lines(std::string(10000, '['));
}

TEST_CASE("json line index", "[conflux_net][spec]") {
  const auto idx = index_json_lines("{\n \"a\": [\n  1,\n  {\"b~/\": 2}\n ],\n \"c\": \"x\\\"y\"\n}");
  CHECK(line_of(idx, "") == 1);
  CHECK(line_of(idx, "/a") == 2);
  CHECK(line_of(idx, "/a/0") == 3);
  CHECK(line_of(idx, "/a/1") == 4);
  CHECK(line_of(idx, "/a/1/b~0~1") == 4);
  CHECK(line_of(idx, "/c") == 6);
  CHECK(line_of(idx, "/c/missing/deeper") == 6);
  CHECK(pointer_token("b~/") == "b~0~1");
}

TEST_CASE("the process plan: names, order and ports", "[conflux_net][plan]") {
  auto plan = plan_processes(default_spec());
  std::vector<std::string> names;
  for (const auto& p : plan) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"fileserver", "auth1", "relay1", "relay2", "relay3", "relay4", "exit1",
                                          "exit2", "bridge100k", "bridge1m", "proxy", "proxy-bridges"});
  CHECK(plan[0].role == Role::FileServer);
  CHECK(plan[1].role == Role::Authority);
  CHECK(plan[6].role == Role::Exit);
  CHECK(plan[8].role == Role::Bridge);
  CHECK(plan[8].bandwidth_rate == "100 KBytes");
  CHECK(plan[11].role == Role::Proxy);
  CHECK_FALSE(plan[11].start);
  CHECK(plan[11].use_bridges);

  const auto n = ports_needed(plan);
  CHECK(n == 1 + 2 + 6 + 4 + 4);
  std::vector<std::uint16_t> ports;
  for (std::size_t i = 0; i < n; ++i) ports.push_back(static_cast<std::uint16_t>(10000 + i));
  assign_ports(plan, ports);
  CHECK(plan[0].ports.http_port == 10000);
  CHECK(plan[1].ports.or_port == 10001);
  CHECK(plan[1].ports.dir_port == 10002);
  CHECK(plan[2].ports.or_port == 10003);
  CHECK(plan[2].ports.dir_port == 0);
  CHECK(plan[8].ports.dir_port == 10010);
  CHECK(plan[11].ports.socks_port == 10015);
  CHECK(plan[11].ports.metrics_port == 10016);

  const auto paths = paths_for("/n", "relay1");
  CHECK(paths.torrc == "/n/relay1/torrc");
  CHECK(paths.data_dir == "/n/relay1/data");
  CHECK(paths.log == "/n/relay1/notice.log");
  CHECK(paths.output == "/n/relay1/output.log");

  for (auto r : {Role::FileServer, Role::Authority, Role::Relay, Role::Exit, Role::Bridge, Role::Proxy})
    CHECK(role_from_string(to_string(r)) == r);
  CHECK_FALSE(role_from_string("client").has_value());
}
