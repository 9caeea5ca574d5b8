// Managed pluggable transports, sans-I/O (common/pt): the launch
// environment, what obfs4proxy-like transports print on stdout, and bridge
// arguments as SOCKS5 credentials (pt-spec 3.2, 3.3, 3.5).
#include <catch2/catch.hpp>
#include <string>

#include "conflux/pt/pt_env.hpp"
#include "conflux/pt/pt_messages.hpp"

using namespace conflux::pt;

namespace {

PtRead feed(PtMessages& m, std::string_view text) {
  return m.feed(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

}  // namespace

TEST_CASE("pt: a client transport's stdout, as obfs4proxy prints it", "[pt]") {
  PtMessages m(PtMode::Client, {"obfs4", "meek_lite"});
  auto r = feed(m, "VERSION 1\nLOG SEVERITY=notice MESSAGE=\"obfs4proxy - launched\"\nCMETHOD obfs4 socks5 127.0.0.1:4");
  REQUIRE_FALSE(r.error);
  REQUIRE(r.messages.size() == 2);
  CHECK(std::holds_alternative<PtVersion>(r.messages[0]));
  const auto& log = std::get<PtLog>(r.messages[1]);
  CHECK(log.severity == "notice");
  CHECK(log.message == "obfs4proxy - launched");
  r = feed(m, "3210\r\nCMETHOD-ERROR meek_lite no front\nSTATUS TRANSPORT=obfs4 CONNECT=Success\nFROB x\nCMETHODS DONE\n");
  REQUIRE_FALSE(r.error);
  REQUIRE(r.messages.size() == 5);
  CHECK(std::get<PtMethod>(r.messages[0]) == PtMethod{"obfs4", "socks5", "127.0.0.1", 43210, ""});
  CHECK(std::get<PtMethodError>(r.messages[1]).message == "no front");
  CHECK(std::get<PtStatus>(r.messages[2]).fields.at("CONNECT") == "Success");
  CHECK(std::holds_alternative<PtIgnored>(r.messages[3]));
  CHECK(std::holds_alternative<PtDone>(r.messages[4]));
  CHECK(m.done());
  CHECK(m.methods().size() == 1);
}

TEST_CASE("pt: a server transport's SMETHOD with its ARGS", "[pt]") {
  PtMessages m(PtMode::Server, {"obfs4"});
  auto r = feed(m, "VERSION 1\nSMETHOD obfs4 [::1]:443 ARGS:cert=AbC+/x,iat-mode=0\nSMETHODS DONE\n");
  REQUIRE_FALSE(r.error);
  CHECK(std::get<PtMethod>(r.messages[1]) == PtMethod{"obfs4", "", "::1", 443, "cert=AbC+/x,iat-mode=0"});
}

TEST_CASE("pt: what ends a transport", "[pt]") {
  auto first_error = [](PtMode mode, std::string_view text) {
    PtMessages m(mode, {"obfs4"});
    auto r = feed(m, text);
    return r.error ? r.error->message : std::string("(none)");
  };
  CHECK(first_error(PtMode::Client, "VERSION-ERROR no-version\n") == "VERSION-ERROR: no-version");
  CHECK(first_error(PtMode::Client, "ENV-ERROR no TOR_PT_STATE_LOCATION\n") == "ENV-ERROR: no TOR_PT_STATE_LOCATION");
  CHECK(first_error(PtMode::Client, "VERSION 2\n") == "VERSION 2 (we speak 1)");
  CHECK(first_error(PtMode::Client, "CMETHOD obfs4 socks5 127.0.0.1:1\n") == "CMETHOD before VERSION");
  CHECK(first_error(PtMode::Client, "VERSION 1\nCMETHOD snowflake socks5 127.0.0.1:1\n") ==
        "a method for \"snowflake\", which was not asked for");
  CHECK(first_error(PtMode::Client, "VERSION 1\nCMETHOD obfs4 http 127.0.0.1:1\n") == "CMETHOD with proxy type \"http\"");
  CHECK(first_error(PtMode::Client, "VERSION 1\nSMETHOD obfs4 127.0.0.1:1\n") == "SMETHOD from a client transport");
  CHECK(first_error(PtMode::Client, "VERSION 1\nCMETHODS DONE\nCMETHOD obfs4 socks5 127.0.0.1:1\n") ==
        "CMETHOD after CMETHODS DONE");
  for (const std::string bad : {"127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:080", "::1:80",
                                "[127.0.0.1]:80", "host.example:80", "1.2.3:80", "[::1]:x"}) {
    INFO(bad);
    CHECK(first_error(PtMode::Client, "VERSION 1\nCMETHOD obfs4 socks5 " + bad + "\n") ==
          "CMETHOD with address \"" + bad + "\"");
  }
  CHECK(first_error(PtMode::Client, std::string(kMaxPtLine + 1, 'x')).rfind("a line longer", 0) == 0);
  // What came before the error is still read; nothing after it.
  PtMessages m(PtMode::Client, {"obfs4"});
  auto r = feed(m, "VERSION 1\nVERSION 1\nCMETHODS DONE\n");
  CHECK(r.messages.size() == 1);
  CHECK(r.error->message == "VERSION twice");
  CHECK(feed(m, "CMETHODS DONE\n").messages.empty());
}

TEST_CASE("pt: the launch environment", "[pt]") {
  auto client = pt_client_env(PtClientLaunch{{"obfs4", "meek_lite"}, "/var/lib/c/pt_state", std::nullopt});
  CHECK(client == std::vector<std::pair<std::string, std::string>>{{"TOR_PT_MANAGED_TRANSPORT_VER", "1"},
                                                                    {"TOR_PT_STATE_LOCATION", "/var/lib/c/pt_state"},
                                                                    {"TOR_PT_EXIT_ON_STDIN_CLOSE", "1"},
                                                                    {"TOR_PT_CLIENT_TRANSPORTS", "obfs4,meek_lite"}});
  PtServerLaunch s;
  s.transports = {"obfs4"};
  s.state_dir = "/d/pt_state";
  s.orport = "127.0.0.1:9001";
  s.bind = {{"obfs4", "0.0.0.0:443"}};
  s.options = {{"obfs4", "iat-mode=1;x=y"}};
  auto server = pt_server_env(s);
  auto value = [&](const std::string& k) {
    for (const auto& [n, v] : server)
      if (n == k) return v;
    return std::string("(unset)");
  };
  CHECK(value("TOR_PT_SERVER_TRANSPORTS") == "obfs4");
  CHECK(value("TOR_PT_ORPORT") == "127.0.0.1:9001");
  CHECK(value("TOR_PT_SERVER_BINDADDR") == "obfs4-0.0.0.0:443");
  CHECK(value("TOR_PT_SERVER_TRANSPORT_OPTIONS") == "obfs4:iat-mode=1;obfs4:x=y");
  CHECK(value("TOR_PT_EXTENDED_SERVER_PORT") == "(unset)");
}

TEST_CASE("pt: bridge arguments as SOCKS5 credentials", "[pt]") {
  auto c = pt_socks_credentials({{"cert", "a=b;c\\d"}, {"iat-mode", "0"}});
  REQUIRE(c);
  CHECK(c->username == "cert=a\\=b\\;c\\\\d;iat-mode=0");
  CHECK(c->password == std::string(1, '\0'));
  auto long_one = pt_socks_credentials({{"cert", std::string(300, 'x')}});
  REQUIRE(long_one);
  CHECK(long_one->username.size() == 255);
  CHECK(long_one->username + long_one->password == "cert=" + std::string(300, 'x'));
  CHECK_FALSE(pt_socks_credentials({{"cert", std::string(600, 'x')}}));
  CHECK_FALSE(pt_socks_credentials({}));
}
