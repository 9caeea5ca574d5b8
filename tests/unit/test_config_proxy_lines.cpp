// conflux-proxy's own line syntaxes (SocksPort with its isolation flags,
// Bridge lines, FallbackDir lines), UseBridges, the built-in directory of the
// public network, and loading through the layers.
#include <catch2/catch.hpp>
#include <set>

#include "config_proxy_test_support.hpp"
#include "conflux/config/default_directories.hpp"
#include "conflux/config/proxy_options.hpp"

using namespace conflux::config;
using namespace conflux::config::test;

TEST_CASE("SocksPort: address, port, auto and flags", "[config][proxy]") {
  auto p = [](std::string_view text) {
    auto v = parse_socks_port(text);
    if (!v) FAIL(text << ": " << v.error());
    REQUIRE(v->has_value());
    return **v;
  };
  CHECK(p("9050") == SocksPortConfig{});
  auto a = p("192.0.2.1:1080");
  CHECK(a.address == IpAddress::v4(192, 0, 2, 1));
  CHECK(a.port == 1080);
  CHECK(p("[::1]:9150").address.to_string() == "::1");
  CHECK(p("auto").is_auto);
  CHECK(p("127.0.0.2:auto").is_auto);
  auto f = p("9050 noisolatesocksauth IsolateDestPort ISOLATEDESTADDR");  // flags case-insensitive
  CHECK_FALSE(f.isolate_socks_auth);
  CHECK(f.isolate_dest_port);
  CHECK(f.isolate_dest_addr);
  CHECK(p("9050 NoIsolateSOCKSAuth IsolateSOCKSAuth").isolate_socks_auth);  // last flag wins
  auto off = parse_socks_port("0");
  REQUIRE(off);
  CHECK_FALSE(off->has_value());

  for (const char* bad : {"", "x", "65536", "1.2.3.4", "::1:9050", "1.2.3.4:0", "9050 KeepAliveIsolateSOCKSAuth",
                          "unix:/run/socks", "9050 IsolateDestPort junk"}) {
    INFO(bad);
    CHECK_FALSE(parse_socks_port(bad));
  }
}

TEST_CASE("SocksPort lines: default, several, 0, open proxy", "[config][proxy]") {
  SECTION("several listeners replace the default") {
    auto o = proxy_ok("SocksPort 9150\nSocksPort 127.0.0.1:9151 IsolateDestAddr\n");
    REQUIRE(o.socks_ports.size() == 2);
    CHECK(o.socks_ports[0].port == 9150);
    CHECK(o.socks_ports[1].isolate_dest_addr);
    CHECK(o.warnings.empty());
  }
  SECTION("0 disables SOCKS, with a warning") {
    auto o = proxy_ok("SocksPort 0\n");
    CHECK(o.socks_ports.empty());
    REQUIRE(o.warnings.size() == 1);
    CHECK(o.warnings[0].line == 3);
  }
  SECTION("0 beside an open port is an error at the 0 line, as tor") {
    auto e = proxy_bad("SocksPort 9150\nSocksPort 0\n");
    CHECK(e.line == 4);
    CHECK(e.message.find("SocksPort 0") != std::string::npos);
  }
  SECTION("the same address and port twice") {
    CHECK(proxy_bad("SocksPort 9150\nSocksPort 127.0.0.1:9150\n").line == 4);
    CHECK(proxy_ok("SocksPort auto\nSocksPort auto\n").socks_ports.size() == 2);
  }
  SECTION("a non-loopback address warns of an open proxy, at its line") {
    auto o = proxy_ok("SocksPort 127.0.0.1:9050\nSocksPort 0.0.0.0:9050\n");
    REQUIRE(o.warnings.size() == 1);
    CHECK(o.warnings[0].line == 4);
    CHECK(o.warnings[0].message.find("open proxy") != std::string::npos);
    CHECK(proxy_ok("SocksPort [::1]:9050\nSocksPort 127.9.9.9:9050\n").warnings.empty());
  }
}

TEST_CASE("Bridge lines: good ones", "[config][proxy]") {
  auto v4 = parse_bridge_line(std::string("192.0.2.7:443 ") + kBridgeId);
  REQUIRE(v4);
  CHECK(v4->address == AddrPort{IpAddress::v4(192, 0, 2, 7), 443});
  CHECK(v4->rsa_fingerprint.front() == 0xff);
  auto v6 = parse_bridge_line(std::string("  [2001:db8::7]:9001\t") + kAuthId + "  ");
  REQUIRE(v6);
  CHECK(v6->address.to_string() == "[2001:db8::7]:9001");
  CHECK(v6->rsa_fingerprint.front() == 0xe8);
}

TEST_CASE("Bridge lines: our former form (an Ed25519 identity) is refused at its line", "[config][proxy]") {
  auto ours = parse_bridge_line(std::string("192.0.2.7:443 ") + kOldAuthEd25519);
  REQUIRE_FALSE(ours);
  CHECK(ours.error().find("our form with an Ed25519 identity retired") != std::string::npos);
  auto line = proxy_bad(std::string("UseBridges 1\nBridge 192.0.2.7:443 ") + kOldAuthEd25519 + "\n");
  CHECK(line.file == "torrc");
  CHECK(line.line == 4);
  CHECK(line.message.starts_with("Bridge: tor's form only"));
}

TEST_CASE("Bridge lines in tor's form: the RSA fingerprint", "[config][proxy]") {
  const std::string fp = "4352E58420E68F5E40BF7C74FADDCCD9D1349413";
  auto plain = parse_bridge_line("192.0.2.7:443 " + fp);
  REQUIRE(plain);
  CHECK(plain->rsa_fingerprint.front() == 0x43);
  CHECK(plain->rsa_fingerprint.back() == 0x13);
  CHECK(plain->transport.empty());
  // '$' before it, lower case, and tor's joining of the words after the address.
  for (const std::string& other : {"$" + fp, std::string("4352e58420e68f5e40bf7c74faddccd9d1349413"),
                                  std::string("4352 E584 20E6 8F5E 40BF 7C74 FADD CCD9 D134 9413")}) {
    INFO(other);
    auto r = parse_bridge_line("192.0.2.7:443 " + other);
    REQUIRE(r);
    CHECK(*r == *plain);
  }
  auto obfs4 = parse_bridge_line("obfs4 192.0.2.7:443 " + fp + " cert=abc iat-mode=0");
  REQUIRE(obfs4);
  CHECK(obfs4->rsa_fingerprint == plain->rsa_fingerprint);
  CHECK(obfs4->transport == "obfs4");
  CHECK(obfs4->args.size() == 2);
  auto o = proxy_ok("UseBridges 1\nBridge 192.0.2.7:443 " + fp + "\nBridge 192.0.2.8:443 " + std::string(kBridgeId) + "\n");
  CHECK(o.bridges.size() == 2);
  auto dup = proxy_bad("UseBridges 1\nBridge 192.0.2.7:443 " + fp + "\nBridge 192.0.2.8:443 $" + fp + "\n");
  CHECK(dup.message.find("two lines give the same identity") != std::string::npos);
}

TEST_CASE("Bridge lines: bad ones say why", "[config][proxy]") {
  struct Case {
    std::string line;
    const char* fragment;
  };
  const std::string fp = "4352E58420E68F5E40BF7C74FADDCCD9D1349413";
  const Case cases[] = {
      {"obfs4 192.0.2.7:443 " + fp.substr(1) + " cert=abc iat-mode=0", "Key digest for Bridge is wrong length"},
      {"snowflake 192.0.2.3:80", "identity is missing"},
      {"192.0.2.7:443 " + fp + "0", "Key digest for Bridge is wrong length"},
      {"192.0.2.7:443 " + fp.substr(0, 39) + "x", "Unable to decode Bridge key digest"},
      {"192.0.2.7:443", "identity is missing"},
      {"192.0.2.7 " + std::string(kBridgeId), "expected ADDRESS:PORT"},
      {"bridge.example.org:443 " + std::string(kBridgeId), "not an IP address"},
      {"2001:db8::7:443 " + std::string(kBridgeId), "IPv6 addresses need brackets"},
      {"192.0.2.7:0 " + std::string(kBridgeId), "port"},
      {"192.0.2.7:443 notanidentity", "Key digest for Bridge is wrong length"},
      {"192.0.2.7:443 " + std::string(kBridgeId) + " extra", "unexpected 'extra'"},
  };
  for (const auto& c : cases) {
    INFO(c.line);
    auto r = parse_bridge_line(c.line);
    REQUIRE_FALSE(r);
    CHECK(r.error().find(c.fragment) != std::string::npos);
    auto e = proxy_bad("UseBridges 1\nBridge " + c.line + "\n");  // and the option names the line
    CHECK(e.line == 4);
    CHECK(e.message.rfind("Bridge: ", 0) == 0);
  }
}

TEST_CASE("UseBridges and Bridge together", "[config][proxy]") {
  auto o = proxy_ok(std::string("UseBridges 1\nBridge 192.0.2.7:443 ") + kBridgeId + "\nBridge [2001:db8::7]:443 " +
                    kOtherId + "\n");
  CHECK(o.use_bridges);
  CHECK(o.bridges.size() == 2);
  auto missing = proxy_bad("NumEntryGuards 2\nUseBridges 1\n");
  CHECK(missing.to_string() == "torrc:4: UseBridges is set but there is no Bridge line");
  auto empty = proxy_bad("UseBridges 1\nBridge\n");  // the empty line is skipped, so still none
  CHECK(empty.line == 3);
  auto broken = proxy_bad("UseBridges 1\nBridge 192.0.2.7:443\n");  // one error: the line's own
  CHECK(broken.line == 4);
  auto unused = proxy_ok(std::string("Bridge 192.0.2.7:443 ") + kBridgeId + "\n");
  REQUIRE(unused.warnings.size() == 1);
  CHECK(unused.warnings[0].line == 3);
  auto dup = proxy_bad(std::string("UseBridges 1\nBridge 192.0.2.7:443 ") + kBridgeId + "\nBridge 192.0.2.8:443 " +
                       kBridgeId + "\n");
  CHECK(dup.line == 5);
}

TEST_CASE("load_proxy_options: defaults file, torrc with include, command line", "[config][proxy]") {
  MemoryFileSource fs;
  fs.add_file("/etc/conflux/defaults", "DataDirectory /var/lib/default\nSocksPort 9050\n");
  fs.add_file("/etc/conflux/proxy-torrc",
              std::string("DirAuthority auth1 v3ident=") + kAuthV3 + " 127.0.0.1:9030 " + kAuthId +
                  "\nSocksPort 9150\n%include bridges.d\n");
  fs.add_file("/etc/conflux/bridges.d/a", std::string("UseBridges 1\nBridge 192.0.2.7:443 ") + kBridgeId + "\n");
  const char* argv[] = {"conflux-proxy", "--defaults-torrc", "/etc/conflux/defaults", "-f",
                        "/etc/conflux/proxy-torrc", "--+SocksPort", "9151 IsolateDestPort", "--ConfluxNumLegs", "4"};
  auto cl = parse_command_line(9, argv);
  REQUIRE(cl);
  auto r = load_proxy_options(*cl, fs);
  if (!r) FAIL(r.error().front().to_string());
  CHECK(r->data_directory == "/var/lib/default");
  REQUIRE(r->socks_ports.size() == 2);  // the torrc's line replaced the defaults', + appended
  CHECK(r->socks_ports[0].port == 9150);
  CHECK(r->socks_ports[1].isolate_dest_port);
  CHECK(r->bridges.size() == 1);
  CHECK(r->conflux_num_legs == 4);

  SECTION("errors name the included file and the argv index") {
    fs.add_file("/etc/conflux/bridges.d/a", "UseBridges 1\n");
    auto r2 = load_proxy_options(*cl, fs);
    REQUIRE_FALSE(r2);
    CHECK(r2.error()[0].to_string() == "/etc/conflux/bridges.d/a:1: UseBridges is set but there is no Bridge line");
    const char* a3[] = {"conflux-proxy", "-f", "/etc/conflux/proxy-torrc", "--ORPort", "9001"};
    auto r3 = load_proxy_options(*parse_command_line(5, a3), fs);
    REQUIRE_FALSE(r3);
    CHECK(r3.error().front().to_string() == "command line:3: unknown option 'ORPort'");
  }
  SECTION("a missing -f file is an error") {
    const char* a4[] = {"conflux-proxy", "-f", "/nope"};
    auto r4 = load_proxy_options(*parse_command_line(3, a4), fs);
    REQUIRE_FALSE(r4);
    CHECK(r4.error()[0].file == "/nope");
  }
}

TEST_CASE("FallbackDir lines: tor's form, with and without a DirPort", "[config][proxy]") {
  auto f = parse_fallback_dir("185.183.157.214 orport=9100 id=5BDD0633E0AC09763E49641DCD1BA3AB3A21AA83 "
                              "ipv6=[2a03:4000:1d:b7a:782f:17ff:fef0:a708]:9100");
  REQUIRE(f);
  CHECK(f->address == IpAddress::v4(185, 183, 157, 214));
  CHECK_FALSE(f->dir_port);
  CHECK(f->or_port == 9100);
  CHECK(f->rsa_identity[0] == 0x5B);
  CHECK(f->rsa_identity[19] == 0x83);
  REQUIRE(f->ipv6_or);
  CHECK(f->ipv6_or->port == 9100);
  auto d = parse_fallback_dir("192.0.2.3:9030 orport=9001 id=5BDD0633E0AC09763E49641DCD1BA3AB3A21AA83 weight=10");
  REQUIRE(d);
  CHECK(d->dir_port == std::optional<std::uint16_t>(9030));
}

TEST_CASE("FallbackDir lines: bad ones say why", "[config][proxy]") {
  const std::string id = "id=5BDD0633E0AC09763E49641DCD1BA3AB3A21AA83";
  struct Case {
    std::string text, fragment;
  };
  const Case cases[] = {
      {"", "expected ADDRESS"},
      {"192.0.2.3 orport=9001", "needs orport= and id="},
      {"192.0.2.3 " + id, "needs orport= and id="},
      {"[2001:db8::1]:9030 orport=9001 " + id, "IPv4"},
      {"192.0.2.3 orport=9001 id=5BDD", "40-hex-digit"},
      {"192.0.2.3 orport=9001 orport=9002 " + id, "repeated"},
      {"192.0.2.3 orport=70000 " + id, "port"},
      {"192.0.2.3 orport=9001 " + id + " ipv6=192.0.2.4:1", "ipv6="},
      {"192.0.2.3 orport=9001 " + id + " bogus", "unexpected 'bogus'"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    auto r = parse_fallback_dir(c.text);
    REQUIRE_FALSE(r);
    CHECK(r.error().find(c.fragment) != std::string::npos);
  }
}

TEST_CASE("The built-in directory: tor 0.4.9's nine v3 authorities, every line parses", "[config][proxy]") {
  const auto lines = default_dir_authority_lines();
  const auto parsed = default_dir_authorities();
  REQUIRE(lines.size() == 9);
  REQUIRE(parsed.size() == lines.size());  // none was dropped for not parsing
  std::set<std::string> nicks;
  std::set<RsaId> v3idents, fingerprints;
  for (const auto& a : parsed) {
    CHECK(a.rsa_identity != RsaId{});
    CHECK(a.or_port.has_value());
    CHECK(a.dir.addr.is_v4());
    CHECK_FALSE(a.dir.addr.is_loopback());
    nicks.insert(a.nickname);
    v3idents.insert(a.v3ident);
    fingerprints.insert(a.rsa_identity);
  }
  CHECK(nicks.size() == 9);
  CHECK(v3idents.size() == 9);
  CHECK(fingerprints.size() == 9);
  CHECK(nicks.count("moria1") == 1);
  CHECK(nicks.count("faravahar") == 1);
  // And the options accept them together (no duplicate, no mixed forms).
  CHECK(proxy_build("DataDirectory /tmp/x\n").has_value());
  CHECK(proxy_build("DataDirectory /tmp/x\n")->default_directories);
}

TEST_CASE("The built-in directory: tor 0.4.9's 200 fallbacks, every line parses, ids unique", "[config][proxy]") {
  const auto lines = default_fallback_dir_lines();
  const auto parsed = default_fallback_dirs();
  REQUIRE(lines.size() == 200);
  REQUIRE(parsed.size() == lines.size());
  std::set<RsaId> ids;
  for (const auto& f : parsed) {
    CHECK_FALSE(f.dir_port);  // tor 0.4.9 lists ORPorts only: BEGIN_DIR
    CHECK(f.or_port != 0);
    CHECK_FALSE(f.address.is_loopback());
    ids.insert(f.rsa_identity);
  }
  CHECK(ids.size() == 200);
}
