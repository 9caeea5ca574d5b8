// The control-port options (control_options.hpp) in both option tables:
// ControlPort, ControlSocket, ControlPortWriteToFile, CookieAuthentication, CookieAuthFile,
// HashedControlPassword; errors with their file and line; the effective
// lines kept for GETCONF.
#include <catch2/catch.hpp>

#include "conflux/config/relay_options.hpp"
#include "config_proxy_test_support.hpp"

using namespace conflux::config;
using namespace conflux::config::test;

namespace {

// tor --hash-password "correct horse" printed this (test_control_protocol.cpp checks it).
constexpr const char* kHashed = "16:F3EDDC964FCA28F860DB956A9003EE52C48ECF2C2742EE5C7A8C1F0019";

conflux::Result<RelayOptions, ConfigErrors> relay(const std::string& extra) {
  auto entries = parse_torrc_text("DataDirectory /var/lib/conflux\nORPort 9001\n" + extra, "torrc");
  REQUIRE(entries);
  return relay_options_from_entries(*entries, "torrc");
}

}  // namespace

TEST_CASE("control options: none by default, no ControlPort", "[config][control]") {
  auto o = proxy_ok("");
  CHECK_FALSE(o.control.enabled());
  CHECK_FALSE(o.control.cookie_authentication);
  CHECK(o.control.hashed_passwords.empty());
  CHECK(o.control.cookie_auth_file.empty());
}

TEST_CASE("control options: every option set, in the proxy and the relay", "[config][control]") {
  const std::string lines = std::string("ControlPort 9051\nControlPort 127.0.0.1:auto\nControlPortWriteToFile /run/cp\n") +
                            "CookieAuthentication 1\nCookieAuthFile /run/cookie\nHashedControlPassword " + kHashed +
                            "\nHashedControlPassword " + kHashed + "\n";
  auto p = proxy_ok(lines);
  auto r = relay(lines);
  REQUIRE(r);
  for (const ControlOptions* c : {&p.control, &r->control}) {
    REQUIRE(c->ports.size() == 2);
    CHECK(c->ports[0].port == 9051);
    CHECK(c->ports[0].address == IpAddress::v4(127, 0, 0, 1));  // tor's default address
    CHECK(c->ports[1].is_auto);
    CHECK(c->port_write_to_file == "/run/cp");
    CHECK(c->cookie_authentication);
    CHECK(c->cookie_auth_file == "/run/cookie");
    CHECK(c->hashed_passwords == std::vector<std::string>{kHashed, kHashed});
    CHECK(c->enabled());
  }
  // GETCONF reads the effective lines.
  auto n = std::count_if(p.config_lines.begin(), p.config_lines.end(),
                         [](const ConfigEntry& e) { return e.key == "ControlPort"; });
  CHECK(n == 2);
}

TEST_CASE("control options: ControlPort 0 opens none, a public one is warned about", "[config][control]") {
  CHECK_FALSE(proxy_ok("ControlPort 0\n").control.enabled());
  auto o = proxy_ok("ControlPort 0.0.0.0:9051\n");
  CHECK(o.control.enabled());
  CHECK(std::any_of(o.warnings.begin(), o.warnings.end(),
                    [](const ConfigError& w) { return w.message.find("ControlPort listens beyond") != std::string::npos; }));
}

TEST_CASE("control options: ControlSocket with tor's flags, 0 for none", "[config][control]") {
  auto o = proxy_ok("ControlSocket /run/me/control\nControlSocket /run/me/g groupwritable RelaxDirModeCheck\n");
  CHECK(o.control.enabled());
  REQUIRE(o.control.sockets.size() == 2);
  CHECK(o.control.sockets[0] == ControlSocketLine{"/run/me/control", false, false, false});
  CHECK(o.control.sockets[1] == ControlSocketLine{"/run/me/g", true, false, true});
  CHECK_FALSE(proxy_ok("ControlSocket 0\n").control.enabled());
  CHECK(proxy_bad("ControlSocket relative/path\n").message.find("absolute") != std::string::npos);
  CHECK(proxy_bad("ControlSocket /run/me/c Frob\n").message.find("unknown flag 'Frob'") != std::string::npos);
  auto r = relay("ControlSocket /run/me/relay WorldWritable\n");
  REQUIRE(r);
  REQUIRE(r->control.sockets.size() == 1);
  CHECK(r->control.sockets[0].world_writable);
}

TEST_CASE("control options: bad values are errors with their line", "[config][control]") {
  auto e = proxy_bad("HashedControlPassword foo\n");
  CHECK(e.line == 3);
  CHECK(e.message.find("HashedControlPassword") != std::string::npos);
  CHECK(proxy_bad("HashedControlPassword 16:E3B8\n").line == 3);
  CHECK(proxy_bad("ControlPort notaport\n").line == 3);
  CHECK(proxy_bad("CookieAuthentication maybe\n").line == 3);
  auto r = relay("ControlPort 70000\n");
  REQUIRE_FALSE(r);
  CHECK(r.error().front().line == 3);
}
