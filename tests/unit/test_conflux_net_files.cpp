// conflux-net's generated files: torrcs, network.json, test files and the
// file server's decisions.
#include <catch2/catch.hpp>

#include "conflux/crypto/digest.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/netspec/http_files.hpp"
#include "conflux/netspec/metrics_text.hpp"
#include "conflux/netspec/network_file.hpp"
#include "conflux/netspec/test_files.hpp"
#include "conflux/netspec/torrc.hpp"
#include "conflux/config/proxy_options.hpp"
#include "conflux/config/relay_options.hpp"
#include "conflux/config/torrc_parser.hpp"

using namespace conflux::netspec;

namespace {

const std::string kAuthId = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo";
const std::string kV3 = "DB8EB34B0489A504CA284D48B1E6A42BB7EF46A5";
const std::string kAuthFp = "E8DABF3B0AEDDB386DD7B66B59A02AAFE1F48731";
const std::string kBridgeFp = "4352E58420E68F5E40BF7C74FADDCCD9D1349413";

TorrcInputs inputs() {
  TorrcInputs in;
  in.net_dir = "/n";
  in.authorities = {{"auth1", 5001, 5002, kV3, kAuthFp}};
  in.bridges = {{6001, "", kBridgeFp}};
  in.file_port = 8080;
  in.consensus_interval = 10;
  return in;
}

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("torrcs for each role", "[conflux_net][torrc]") {
  const auto in = inputs();
  const std::string dir_auth = "DirAuthority auth1 orport=5001 v3ident=" + kV3 + " 127.0.0.1:5002 " + kAuthFp;

  ProcessPlan auth{"auth1", Role::Authority, true, "", false, true, {5001, 5002, 0, 0, 0}};
  const auto a = render_torrc(auth, in);
  for (const auto* l : {"Nickname auth1", "ORPort 127.0.0.1:5001", "DirPort 127.0.0.1:5002", "AuthoritativeDirectory 1",
                        "ConsensusInterval 10 seconds", "TestingTorNetwork 1", "DataDirectory /n/auth1/data",
                        "Log notice file /n/auth1/notice.log"})
    CHECK(has_line(a, l));
  CHECK(has_line(a, dir_auth));

  ProcessPlan relay{"relay1", Role::Relay, true, "", false, true, {7001, 0, 0, 0, 0}};
  const auto r = render_torrc(relay, in);
  CHECK(has_line(r, "ORPort 127.0.0.1:7001"));
  CHECK(has_line(r, dir_auth));
  CHECK(r.find("DirPort") == std::string::npos);
  CHECK(r.find("Exit") == std::string::npos);
  CHECK(r.find("BandwidthRate") == std::string::npos);

  // The spec's relay_options go into every relay role's torrc, not the proxies'.
  auto in_opts = in;
  in_opts.relay_options = {"CircuitPriorityHalflife 0", "Schedulers Vanilla"};
  CHECK(has_line(render_torrc(relay, in_opts), "CircuitPriorityHalflife 0"));
  CHECK(has_line(render_torrc(auth, in_opts), "Schedulers Vanilla"));
  ProcessPlan proxy_plan{"proxy", Role::Proxy, true, "", false, true, {0, 0, 9001, 9002, 0}};
  CHECK(render_torrc(proxy_plan, in_opts).find("CircuitPriorityHalflife") == std::string::npos);

  // The spec's guard_relays: the authority votes Guard for them alone; no
  // other role is told.
  CHECK(a.find("TestingDirAuthVote") == std::string::npos);
  auto in_guards = in;
  in_guards.guard_relays = {"relay1", "relay2"};
  CHECK(has_line(render_torrc(auth, in_guards), "TestingDirAuthVoteGuard relay1,relay2"));
  CHECK(has_line(render_torrc(auth, in_guards), "TestingDirAuthVoteGuardIsStrict 1"));
  in_guards.stock_relays = true;  // the authority's lines when stock relays join
  CHECK(has_line(render_torrc(auth, in_guards), "TestingDirAuthVoteGuard relay1,relay2"));
  CHECK(render_torrc(relay, in_guards).find("TestingDirAuthVote") == std::string::npos);
  CHECK(render_torrc(proxy_plan, in_guards).find("TestingDirAuthVote") == std::string::npos);

  // measured_bandwidths: each authority reads the file in its own directory.
  CHECK(a.find("V3BandwidthsFile") == std::string::npos);
  auto in_bw = in;
  in_bw.bandwidth_file = true;
  CHECK(has_line(render_torrc(auth, in_bw), "V3BandwidthsFile /n/auth1/v3bw"));
  in_bw.stock_relays = true;
  CHECK(has_line(render_torrc(auth, in_bw), "V3BandwidthsFile /n/auth1/v3bw"));
  CHECK(render_torrc(relay, in_bw).find("V3BandwidthsFile") == std::string::npos);

  auto in2 = in;
  in2.exit_policy = {"accept *:443"};
  ProcessPlan exit{"exit1", Role::Exit, true, "", false, true, {7002, 0, 0, 0, 0}};
  const auto e = render_torrc(exit, in2);
  CHECK(has_line(e, "ExitRelay 1"));
  CHECK(has_line(e, "ExitPolicyRejectPrivate 0"));
  // In order: the file server, the spec's lines, then nothing else.
  const auto p1 = e.find("ExitPolicy accept *:8080\n");
  const auto p2 = e.find("ExitPolicy accept *:443\n");
  const auto p3 = e.find("ExitPolicy reject *:*\n");
  REQUIRE(p1 != std::string::npos);
  REQUIRE(p2 != std::string::npos);
  REQUIRE(p3 != std::string::npos);
  CHECK(p1 < p2);
  CHECK(p2 < p3);

  ProcessPlan bridge{"slow", Role::Bridge, true, "100 KBytes", false, true, {6001, 6002, 0, 0, 0}};
  const auto b = render_torrc(bridge, in);
  CHECK(has_line(b, "BridgeRelay 1"));
  CHECK(has_line(b, "DirPort 127.0.0.1:6002"));
  CHECK(has_line(b, "BandwidthRate 100 KBytes"));
  CHECK(has_line(b, "BandwidthBurst 100 KBytes"));
  CHECK(b.find("DirAuthority") == std::string::npos);

  ProcessPlan proxy{"proxy", Role::Proxy, true, "", false, true, {0, 0, 9050, 9051, 0}};
  const auto x = render_torrc(proxy, in);
  for (const auto* l : {"SocksPort 127.0.0.1:9050", "MetricsPort 127.0.0.1:9051", "UseBridges 0",
                        "EnforceDistinctSubnets 0", "TestingTorNetwork 1", "ConfluxEnabled 1",
                        "DataDirectory /n/proxy/data", "Log notice file /n/proxy/notice.log"})
    CHECK(has_line(x, l));
  CHECK(has_line(x, dir_auth));
  CHECK(x.find("Bridge ") == std::string::npos);
  CHECK(x.find("Nickname") == std::string::npos);
  CHECK(x.find("ORPort") == std::string::npos);

  // A proxy's own options come last, after what conflux-net writes (a second Log line adds a log).
  auto logged = proxy;
  logged.options = {"Log info file /n/proxy/info.log"};
  const auto lx = render_torrc(logged, in);
  CHECK(lx.ends_with("ConfluxEnabled 1\nLog info file /n/proxy/info.log\n"));
  CHECK(has_line(lx, "Log notice file /n/proxy/notice.log"));

  ProcessPlan bproxy{"proxy-bridges", Role::Proxy, false, "", true, false, {0, 0, 9052, 9053, 0}};
  const auto y = render_torrc(bproxy, in);
  CHECK(has_line(y, "UseBridges 1"));
  CHECK(has_line(y, "Bridge 127.0.0.1:6001 " + kBridgeFp));
  CHECK(has_line(y, "ConfluxEnabled 0"));

  CHECK(render_torrc({"fileserver", Role::FileServer, true, "", false, true, {}}, in).empty());

  // Lines only for authorities with both tor identities.
  const auto lines = tor_dir_authority_lines(in.authorities);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "DirAuthority auth1 orport=5001 v3ident=DB8EB34B0489A504CA284D48B1E6A42BB7EF46A5 "
                    "127.0.0.1:5002 E8DABF3B0AEDDB386DD7B66B59A02AAFE1F48731");
  auto no_v3ident = in.authorities;
  no_v3ident[0].v3ident.clear();
  CHECK(tor_dir_authority_lines(no_v3ident).empty());
  auto no_fingerprint = in.authorities;
  no_fingerprint[0].rsa_fingerprint.clear();
  CHECK(tor_dir_authority_lines(no_fingerprint).empty());
}

TEST_CASE("network.json round trip and strict decoding", "[conflux_net][network_file]") {
  NetworkInfo info;
  info.state = "ready";
  info.dir = "/n";
  info.created = 1700000000;
  info.up_pid = 4242;
  info.proxy = ProxyAddresses{"proxy", "127.0.0.1:9050", "http://127.0.0.1:9051/metrics"};
  info.file_server = "http://127.0.0.1:8080/";
  info.file_origins = {"http://127.0.0.1:8080/", "http://127.0.0.2:8080/"};
  info.files = {{"1MiB.bin", 1048576, "http://127.0.0.1:8080/1MiB.bin", std::string(64, 'a')}};
  info.tor_dir_authorities = {"DirAuthority auth1 orport=1 v3ident=DB8EB34B0489A504CA284D48B1E6A42BB7EF46A5 "
                              "127.0.0.1:2 E8DABF3B0AEDDB386DD7B66B59A02AAFE1F48731"};
  ProcessRecord r;
  r.name = "relay1";
  r.role = Role::Relay;
  r.started = true;
  r.pid = 1234;
  r.start_time = 987654;
  r.binary = "/b/conflux-relay";
  r.args = {"-f", "/n/relay1/torrc"};
  r.ports.or_port = 7001;
  r.identity = kAuthId;
  r.rsa_fingerprint = "E8DABF3B0AEDDB386DD7B66B59A02AAFE1F48731";
  r.dir = "/n/relay1";
  r.torrc = "/n/relay1/torrc";
  r.data_dir = "/n/relay1/data";
  r.log = "/n/relay1/notice.log";
  r.output = "/n/relay1/output.log";
  info.processes.push_back(r);
  ProcessRecord idle = r;
  idle.name = "proxy-bridges";
  idle.role = Role::Proxy;
  idle.started = false;
  idle.pid = 0;
  idle.identity.clear();
  idle.rsa_fingerprint.clear();
  idle.ports = {0, 0, 9052, 9053, 0};
  info.processes.push_back(idle);

  const auto text = encode_network(info);
  auto back = decode_network(text);
  REQUIRE(back.has_value());
  CHECK(*back == info);
  CHECK(text.find("\"socks\": \"127.0.0.1:9050\"") != std::string::npos);

  // Files written before file_origins existed still read.
  auto old = text;
  const auto origins_at = old.find("\"file_origins\": [");
  REQUIRE(origins_at != std::string::npos);
  old.erase(origins_at, old.find("],", origins_at) + 2 - origins_at);
  auto old_back = decode_network(old);
  REQUIRE(old_back.has_value());
  CHECK(old_back->file_origins.empty());

  info.proxy.reset();
  auto no_proxy = decode_network(encode_network(info));
  REQUIRE(no_proxy.has_value());
  CHECK_FALSE(no_proxy->proxy.has_value());

  // pids that kill() treats specially never come out of a decode.
  for (std::int64_t bad : {-1, 0, 1, 4194305}) {
    auto copy = info;
    copy.processes[0].pid = bad;
    CHECK_FALSE(decode_network(encode_network(copy)).has_value());
  }
  CHECK_FALSE(decode_network("").has_value());
  CHECK_FALSE(decode_network("{}").has_value());
  CHECK_FALSE(decode_network("[1]").has_value());
  CHECK_FALSE(decode_network(R"({"version": 2})").has_value());
  std::string wrong_role = text;
  wrong_role.replace(wrong_role.find("\"relay\""), 7, "\"client\"");
  CHECK_FALSE(decode_network(wrong_role).has_value());
  std::string wrong_type = text;
  wrong_type.replace(wrong_type.find("\"started\": true"), 15, "\"started\": 1");
  CHECK_FALSE(decode_network(wrong_type).has_value());
  // Floats and out-of-range numbers where whole numbers belong (nlohmann
  // would cast them).
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"\"pid\": 1234", "\"pid\": 1e300"},
           {"\"pid\": 1234", "\"pid\": 18446744073709551615"},
           {"\"start_time\": 987654", "\"start_time\": -5"},
           {"\"version\": 1", "\"version\": 1.5e300"},
           {"\"size\": 1048576", "\"size\": 2.5"},
           {"\"or\": 7001", "\"or\": 7001.0"}}) {
    std::string bad = text;
    REQUIRE(bad.find(from) != std::string::npos);
    bad.replace(bad.find(from), from.size(), to);
    CHECK_FALSE(decode_network(bad).has_value());
  }
  std::string wrong_port = text;
  wrong_port.replace(wrong_port.find("\"or\": 7001"), 10, "\"or\": 70001");
  CHECK_FALSE(decode_network(wrong_port).has_value());
}

TEST_CASE("test files: deterministic, seekable, per name and seed", "[conflux_net][files]") {
  std::vector<std::uint8_t> whole(1000), part(101);
  fill_test_bytes(1, "a.bin", 0, whole);
  fill_test_bytes(1, "a.bin", 333, part);
  CHECK(std::equal(part.begin(), part.end(), whole.begin() + 333));
  std::vector<std::uint8_t> again(1000), other_name(1000), other_seed(1000);
  fill_test_bytes(1, "a.bin", 0, again);
  fill_test_bytes(1, "b.bin", 0, other_name);
  fill_test_bytes(2, "a.bin", 0, other_seed);
  CHECK(again == whole);
  CHECK(other_name != whole);
  CHECK(other_seed != whole);

  // Streaming in chunks gives the bytes and the SHA-256 of the whole.
  const FileSpec f{"c.bin", 3 * 1024 * 1024 + 5};
  std::vector<std::uint8_t> streamed;
  std::size_t chunks = 0;
  const auto hex = generate_test_file(9, f, [&](std::span<const std::uint8_t> c) {
    streamed.insert(streamed.end(), c.begin(), c.end());
    ++chunks;
  });
  CHECK(chunks == 4);
  REQUIRE(streamed.size() == f.size);
  std::vector<std::uint8_t> direct(f.size);
  fill_test_bytes(9, "c.bin", 0, direct);
  CHECK(streamed == direct);
  CHECK(hex == conflux::bytes::to_hex(conflux::crypto::sha256(direct)));
  CHECK(hex.size() == 64);
  // An empty file hashes as empty.
  CHECK(generate_test_file(1, {"e", 0}, [](std::span<const std::uint8_t>) { FAIL("no chunk expected"); }) ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // The default 1 MiB file is what the docs and main.sh expect.
  const auto one_mib = generate_test_file(1, {"1MiB.bin", 1024 * 1024}, [](std::span<const std::uint8_t>) {});
  CHECK(one_mib == "af6892192f44d70a258a019d32bf4f710cc14a1c20c185352baee6c64154111b");
}

TEST_CASE("the index page", "[conflux_net][files]") {
  const auto html = index_html({{"a<b>.bin", 5, "ff"}});
  CHECK(html.find("<title>" + std::string(kIndexTitle) + "</title>") != std::string::npos);
  CHECK(html.find(std::string(kIndexColour)) != std::string::npos);
  CHECK(html.find("a&lt;b&gt;.bin") != std::string::npos);
  CHECK(html.find("a<b>") == std::string::npos);
}

TEST_CASE("file server: targets, types and ranges", "[conflux_net][http]") {
  CHECK(file_for_target("/") == "index.html");
  CHECK(file_for_target("/?x=1") == "index.html");
  CHECK(file_for_target("/1MiB.bin") == "1MiB.bin");
  CHECK(file_for_target("/a_b-c.txt?q") == "a_b-c.txt");
  for (const char* bad : {"", "x", "/..", "/../etc/passwd", "/a/b", "/.hidden", "/%2e%2e", "http://h/a", "/a b",
                          "//a", "/a\\b"})
    CHECK_FALSE(file_for_target(bad).has_value());
  CHECK_FALSE(file_for_target("/" + std::string(256, 'a')).has_value());

  CHECK(content_type_for("index.html") == "text/html; charset=utf-8");
  CHECK(content_type_for("x.json") == "application/json");
  CHECK(content_type_for("1MiB.bin") == "application/octet-stream");
  CHECK(content_type_for(".html") == "application/octet-stream");

  using K = RangeKind;
  CHECK(decide_range("", 100).kind == K::Whole);
  CHECK(decide_range("bytes=0-9", 100) == RangeDecision{K::Partial, {0, 9}});
  CHECK(decide_range("Bytes= 10-", 100) == RangeDecision{K::Partial, {10, 99}});
  CHECK(decide_range("bytes=-10", 100) == RangeDecision{K::Partial, {90, 99}});
  CHECK(decide_range("bytes=-1000", 100) == RangeDecision{K::Partial, {0, 99}});
  CHECK(decide_range("bytes=50-1000", 100) == RangeDecision{K::Partial, {50, 99}});
  CHECK(decide_range("bytes=100-", 100).kind == K::Unsatisfiable);
  CHECK(decide_range("bytes=-0", 100).kind == K::Unsatisfiable);
  CHECK(decide_range("bytes=0-", 0).kind == K::Unsatisfiable);
  // Not understood: the whole file.
  for (const char* ignored : {"bytes=9-1", "bytes=0-1,5-6", "items=0-1", "bytes=", "bytes=-", "bytes=a-b",
                              "bytes=99999999999999999999-", "bytes=1-2-3", "bytes"})
    CHECK(decide_range(ignored, 100).kind == K::Whole);
}

TEST_CASE("a metric from the proxy's Prometheus text", "[conflux_net][metrics]") {
  const std::string text =
      "# HELP conflux_proxy_bootstrap_percent how far\n# TYPE conflux_proxy_bootstrap_percent gauge\n"
      "conflux_proxy_bootstrap_percent_total 7\n"
      "conflux_proxy_bootstrap_percent 100\n"
      "conflux_proxy_circuits{state=\"open\"} 3 1700000000\n";
  CHECK(find_metric(text, "conflux_proxy_bootstrap_percent") == 100.0);
  CHECK(find_metric(text, "conflux_proxy_circuits") == 3.0);
  CHECK_FALSE(find_metric(text, "conflux_proxy").has_value());
  CHECK_FALSE(find_metric(text, "missing").has_value());
  CHECK_FALSE(find_metric("m abc\n", "m").has_value());
  CHECK_FALSE(find_metric("m{x=\"1\" 5\n", "m").has_value());
  CHECK(find_metric("m 2.5\r\n", "m") == 2.5);
  CHECK_FALSE(find_metric("", "m").has_value());
}

TEST_CASE("every generated torrc is accepted by its program's option parser", "[conflux_net][torrc]") {
  auto plan = plan_processes(default_spec());
  std::vector<std::uint16_t> ports;
  for (std::size_t i = 0; i < ports_needed(plan); ++i) ports.push_back(static_cast<std::uint16_t>(20000 + i));
  assign_ports(plan, ports);
  TorrcInputs in = inputs();
  in.exit_policy = {"accept *:443"};
  in.bridges = {{plan[8].ports.or_port, "", kBridgeFp}, {plan[9].ports.or_port, "", kAuthFp}};
  for (const auto& p : plan) {
    const auto text = render_torrc(p, in);
    if (p.role == Role::FileServer) continue;
    INFO(p.name << ":\n" << text);
    auto entries = conflux::config::parse_torrc_text(text, p.name);
    REQUIRE(entries.has_value());
    if (p.role == Role::Proxy) {
      auto o = conflux::config::proxy_options_from_entries(*entries, p.name);
      INFO((o ? std::string() : o.error().front().to_string()));
      REQUIRE(o.has_value());
      CHECK(o->testing_tor_network);
      CHECK_FALSE(o->enforce_distinct_subnets);
      CHECK(o->use_bridges == p.use_bridges);
      CHECK(o->bridges.size() == (p.use_bridges ? 2U : 0U));
      CHECK(o->metrics_ports.size() == 1);
      CHECK(o->warnings.empty());
    } else {
      auto o = conflux::config::relay_options_from_entries(*entries, p.name);
      INFO((o ? std::string() : o.error().front().to_string()));
      REQUIRE(o.has_value());
    }
  }
}

TEST_CASE("authorities, relays, exits and proxies get tor's DirAuthority lines, bridges tor's Bridge lines",
          "[conflux_net][torrc]") {
  auto in = inputs();
  const std::string tors = "DirAuthority auth1 orport=5001 v3ident=" + kV3 + " 127.0.0.1:5002 " + kAuthFp;
  ProcessPlan auth{"auth1", Role::Authority, true, "", false, true, {5001, 5002, 0, 0, 0}};
  ProcessPlan relay{"relay1", Role::Relay, true, "", false, true, {7001, 0, 0, 0, 0}};
  ProcessPlan exit{"exit1", Role::Exit, true, "", false, true, {7002, 0, 0, 0, 0}};
  ProcessPlan proxy{"proxy", Role::Proxy, true, "", false, true, {0, 0, 9050, 9051, 0}};
  for (const auto* p : {&auth, &relay, &exit, &proxy}) {
    INFO(p->name);
    CHECK(has_line(render_torrc(*p, in), tors));
  }
  ProcessPlan bridge{"slow", Role::Bridge, true, "", false, true, {6001, 6002, 0, 0, 0}};
  CHECK(render_torrc(bridge, in).find("DirAuthority") == std::string::npos);
  // Bridges by RSA fingerprint; a transport bridge's own line as given.
  in.bridges = {{6001, "", kBridgeFp}, {6004, "Bridge obfs4 127.0.0.1:6006 " + kBridgeFp + " cert=x", kBridgeFp}};
  // A proxy's own options come last, after what conflux-net writes (a second Log line adds a log).
  auto logged = proxy;
  logged.options = {"Log info file /n/proxy/info.log"};
  const auto lx = render_torrc(logged, in);
  CHECK(lx.ends_with("ConfluxEnabled 1\nLog info file /n/proxy/info.log\n"));
  CHECK(has_line(lx, "Log notice file /n/proxy/notice.log"));

  ProcessPlan bproxy{"proxy-bridges", Role::Proxy, false, "", true, true, {0, 0, 9052, 9053, 0}};
  const auto y = render_torrc(bproxy, in);
  CHECK(has_line(y, "Bridge 127.0.0.1:6001 " + kBridgeFp));
  CHECK(has_line(y, "Bridge obfs4 127.0.0.1:6006 " + kBridgeFp + " cert=x"));
}
