// ControlProgram (common/control): what an authenticated controller's
// GETINFO, GETCONF, SETCONF, SIGNAL and USEFEATURE get, in tor's words.
#include <catch2/catch.hpp>

#include "conflux/control/control_program.hpp"
#include "conflux/control/control_reply.hpp"

using namespace conflux::control;

namespace {

ConfigView test_config() {
  ConfigView v;
  v.names = {{"SocksPort", "LineList"}, {"ConfluxEnabled", "String"}, {"Nickname", "String"}};
  v.lookup = [](std::string_view key) -> std::optional<ConfigValue> {
    auto eq = [&](std::string_view name) {
      return key.size() == name.size() && std::equal(key.begin(), key.end(), name.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
             });
    };
    if (eq("SocksPort")) return ConfigValue{"SocksPort", {"9050", "127.0.0.1:9150 IsolateDestPort"}};
    if (eq("ConfluxEnabled")) return ConfigValue{"ConfluxEnabled", {"1"}};
    if (eq("Nickname")) return ConfigValue{"Nickname", {}};
    return std::nullopt;
  };
  return v;
}

std::string run(ControlProgram& p, std::string keyword, std::string args) {
  return p.on_command(ControlCommand{std::move(keyword), std::move(args), std::nullopt}).reply;
}

}  // namespace

TEST_CASE("control program: GETCONF as tor words it", "[control]") {
  ControlProgram p({"BW", "CIRC"}, test_config());
  CHECK(run(p, "GETCONF", "confluxenabled") == "250 ConfluxEnabled=1\r\n");
  // Every line of a repeated option; values raw, spaces and all (tor's KV_RAW).
  CHECK(run(p, "GETCONF", "SocksPort Nickname") ==
        "250-SocksPort=9050\r\n250-SocksPort=127.0.0.1:9150 IsolateDestPort\r\n250 Nickname\r\n");
  CHECK(run(p, "GETCONF", "Frob SocksPort Zap") ==
        "552-Unrecognized configuration key \"Frob\"\r\n552 Unrecognized configuration key \"Zap\"\r\n");
  CHECK(run(p, "GETCONF", "") == "250 OK\r\n");
}

TEST_CASE("control program: SETCONF is refused, 552 for an unknown option and 553 for a known one", "[control]") {
  ControlProgram p({}, test_config());
  CHECK(run(p, "SETCONF", "ConfluxEnabled=0").starts_with("553 Transition not allowed: ConfluxEnabled"));
  CHECK(run(p, "RESETCONF", "ConfluxEnabled").starts_with("553 "));
  CHECK(run(p, "SETCONF", "ConfluxEnabled=0 Frob=1") == "552 Unrecognized option: Unknown option 'Frob'.  Failing.\r\n");
  CHECK(run(p, "SETCONF", "").starts_with("512 "));
}

TEST_CASE("control program: SETCONF and RESETCONF hand the settings to the program, its answer is the reply", "[control]") {
  auto view = test_config();
  std::vector<ConfigSetting> seen;
  bool seen_reset = false;
  ConfigOutcome answer;
  view.set = [&](const std::vector<ConfigSetting>& s, bool reset) {
    seen = s;
    seen_reset = reset;
    return answer;
  };
  ControlProgram p({}, view);
  CHECK(run(p, "SETCONF", "SocksPort=9150 SocksPort=\"127.0.0.1:9151 IsolateDestPort\" Nickname") == "250 OK\r\n");
  REQUIRE(seen.size() == 3);
  CHECK(seen[0] == ConfigSetting{"SocksPort", "9150"});
  CHECK(seen[1] == ConfigSetting{"SocksPort", "127.0.0.1:9151 IsolateDestPort"});
  CHECK(seen[2] == ConfigSetting{"Nickname", std::nullopt});
  CHECK_FALSE(seen_reset);
  CHECK(run(p, "RESETCONF", "ConfluxEnabled") == "250 OK\r\n");
  CHECK(seen_reset);
  answer = {513, "Unacceptable option value: ConfluxEnabled: expected 0, 1 or auto"};
  CHECK(run(p, "SETCONF", "ConfluxEnabled=2") == "513 Unacceptable option value: ConfluxEnabled: expected 0, 1 or auto\r\n");
  // An unknown key fails before the program is asked.
  seen.clear();
  CHECK(run(p, "SETCONF", "Frob=1 ConfluxEnabled=0").starts_with("552 Unrecognized option: Unknown option 'Frob'."));
  CHECK(seen.empty());
  CHECK(run(p, "SETCONF", "\"SocksPort\"").starts_with("512 "));
}

TEST_CASE("control program: SAVECONF [FORCE] and LOADCONF's data block", "[control]") {
  auto view = test_config();
  std::optional<bool> forced;
  std::string loaded;
  view.save = [&](bool force) {
    forced = force;
    return ConfigOutcome{};
  };
  view.load = [&](std::string_view text) {
    loaded = text;
    return ConfigOutcome{552, "Invalid config file: torrc: bad"};
  };
  ControlProgram p({}, view);
  CHECK(run(p, "SAVECONF", "") == "250 OK\r\n");
  CHECK(forced == false);
  CHECK(run(p, "SAVECONF", "force") == "250 OK\r\n");
  CHECK(forced == true);
  CHECK(p.on_command(ControlCommand{"LOADCONF", "", std::string("SocksPort 9150\nBridge x")}).reply ==
        "552 Invalid config file: torrc: bad\r\n");
  CHECK(loaded == "SocksPort 9150\nBridge x");
  CHECK(run(p, "LOADCONF", "").starts_with("512 "));
}

TEST_CASE("control program: SIGNAL runs the action through the deferral, 552 for unknown names", "[control]") {
  ControlProgram p({}, test_config());
  int newnym = 0;
  std::vector<std::function<void()>> deferred;
  p.add_signal("NEWNYM", [&] { ++newnym; });
  p.set_defer([&](std::function<void()> f) { deferred.push_back(std::move(f)); });
  CHECK(run(p, "SIGNAL", "newnym") == "250 OK\r\n");
  CHECK(newnym == 0);  // not before the reply is out
  REQUIRE(deferred.size() == 1);
  deferred.front()();
  CHECK(newnym == 1);
  CHECK(run(p, "SIGNAL", "FROB") == "552 Unrecognized signal code \"FROB\"\r\n");
  CHECK(run(p, "SIGNAL", "").starts_with("512 "));
  CHECK(run(p, "GETINFO", "signal/names") == "250-signal/names=NEWNYM\r\n250 OK\r\n");
}

TEST_CASE("control program: a program's own command gets its arguments and answers", "[control]") {
  ControlProgram p({}, test_config());
  std::string got;
  p.add_command("CONFLUX_TESTBRIDGES", [&](std::string_view args) {
    got = std::string(args);
    return ControlAnswer{control_line(551, "No bridges in use (UseBridges 0)"), false};
  });
  CHECK(run(p, "CONFLUX_TESTBRIDGES", "now") == "551 No bridges in use (UseBridges 0)\r\n");
  CHECK(got == "now");
  CHECK(run(p, "CONFLUX_OTHER", "") == "510 Unrecognized command \"CONFLUX_OTHER\"\r\n");
}

TEST_CASE("control program: GETINFO names, USEFEATURE, unknown commands", "[control]") {
  ControlProgram p({"BW", "CIRC"}, test_config());
  p.info().add("version", "The current version of Tor.", [](std::string_view) {
    return std::optional<std::string>("0.4.9.0-conflux");
  });
  CHECK(run(p, "GETINFO", "version events/names") ==
        "250-version=0.4.9.0-conflux\r\n250-events/names=BW CIRC\r\n250 OK\r\n");
  CHECK(run(p, "GETINFO", "config/names") ==
        "250+config/names=\r\nSocksPort LineList\r\nConfluxEnabled String\r\nNickname String\r\n.\r\n250 OK\r\n");
  const std::string names = run(p, "GETINFO", "info/names");
  CHECK(names.find("version -- The current version of Tor.") != std::string::npos);
  CHECK(names.find("events/names -- ") != std::string::npos);
  CHECK(run(p, "USEFEATURE", "VERBOSE_NAMES extended_events") == "250 OK\r\n");
  CHECK(run(p, "USEFEATURE", "FROB") == "552 Unrecognized feature \"FROB\"\r\n");
  CHECK(run(p, "SAVECONF", "") == "551 Unable to write configuration to disk.\r\n");
  CHECK(run(p, "MAPADDRESS", "") == "510 Unrecognized command \"MAPADDRESS\"\r\n");
}

TEST_CASE("control program: bootstrap status and events", "[control]") {
  CHECK(bootstrap_status(100, "done", "Done") == "NOTICE BOOTSTRAP PROGRESS=100 TAG=done SUMMARY=\"Done\"");
  CHECK(bootstrap_status(10, "requesting_status", "Asking for \"x\"") ==
        "NOTICE BOOTSTRAP PROGRESS=10 TAG=requesting_status SUMMARY=\"Asking for \\\"x\\\"\"");
  CHECK(control_event("BW 1 2") == "650 BW 1 2\r\n");
}
