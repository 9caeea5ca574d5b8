// config_edit.hpp: SETCONF's new lines, what changed, CONF_CHANGED's lines,
// and SAVECONF's file (tor's header, the old torrc kept as .orig.1, the
// result accepted by the parser --verify-config uses).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "conflux/config/config_edit.hpp"
#include "conflux/config/proxy_options.hpp"

using namespace conflux;
using namespace conflux::config;

namespace {

Entries lines_of(std::string_view text) {
  auto e = parse_torrc_text(text, "torrc");
  REQUIRE(e);
  return *e;
}

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("config edit: SETCONF replaces every line of the options it names", "[config]") {
  const auto table = proxy_option_table();
  const Entries before = lines_of("SocksPort 9050\nsocksport 9150\nConfluxEnabled 1\nUseBridges 0\n");
  const std::vector<control::ConfigSetting> set = {
      {"SOCKSPORT", "9250"}, {"confluxenabled", std::nullopt}, {"SocksPort", "9251 IsolateDestPort"}};
  const Entries after = edited_entries(table, before, set);
  REQUIRE(after.size() == 3);
  CHECK(after[0].key == "UseBridges");
  CHECK(after[1].key == "SocksPort");
  CHECK(after[1].value == "9250");
  CHECK(after[1].where.file == kControlSource);
  CHECK(after[2].value == "9251 IsolateDestPort");
  const auto changed = changed_options(table, before, after);
  CHECK(changed == std::vector<std::string>{"SocksPort", "ConfluxEnabled"});
  CHECK(conf_changed_lines(table, after, changed) ==
        std::vector<std::string>{"SocksPort=9250", "SocksPort=9251 IsolateDestPort", "ConfluxEnabled"});
  // Setting what is already there changes nothing.
  CHECK(changed_options(table, before, edited_entries(table, before, {{"UseBridges", "0"}})).empty());
}

TEST_CASE("config edit: a bad value fails validation with --verify-config's message", "[config]") {
  const auto table = proxy_option_table();
  const Entries before = lines_of("SocksPort 9050\n");
  const UserEnvironment env{false, "/home/u"};
  REQUIRE(proxy_options_from_entries(before, "torrc", env));
  auto next = proxy_options_from_entries(edited_entries(table, before, {{"ConfluxEnabled", "2"}}), kControlSource, env);
  REQUIRE_FALSE(next);
  REQUIRE(next.error().size() == 1);
  auto verify = proxy_options_from_entries(lines_of("SocksPort 9050\nConfluxEnabled 2\n"), "torrc", env);
  REQUIRE_FALSE(verify);
  CHECK(next.error().front().message == verify.error().front().message);
  CHECK(next.error().front().message.find("ConfluxEnabled") != std::string::npos);
}

TEST_CASE("config edit: SAVECONF writes tor's header, keeps a hand-written torrc as .orig.1", "[config]") {
  const auto dir = std::filesystem::temp_directory_path() / ("conflux-saveconf-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto torrc = dir / "torrc";
  { std::ofstream(torrc) << "# mine\nSocksPort 9050\n"; }
  const Entries lines = lines_of("SocksPort 9150\nBridge 192.0.2.1:443 4352E58420E68F5E40BF7C74FADDCCD9D1349413\n"
                                 "__OwningControllerProcess 1\nUseBridges 1\n");
  Entries with_defaults = lines;
  with_defaults.push_back(ConfigEntry{"NumEntryGuards", "2", EntryOp::Set, SourcePos{"defaults", 1}});
  const std::string text = saved_torrc_text(with_defaults, "defaults");
  CHECK(text.starts_with(std::string(kGeneratedTorrcPrefix) + "\n" + std::string(kGeneratedTorrcComment) + "\n\n"));
  CHECK(text.find("__OwningControllerProcess") == std::string::npos);
  CHECK(text.find("NumEntryGuards") == std::string::npos);
  std::string why;
  REQUIRE(write_torrc_file(torrc.string(), text, why));
  CHECK(read_all(dir / "torrc.orig.1") == "# mine\nSocksPort 9050\n");
  CHECK(read_all(torrc) == text);
  // What was written reads back to the same options.
  auto back = proxy_options_from_entries(lines_of(read_all(torrc)), "torrc", UserEnvironment{false, "/home/u"});
  if (!back) FAIL(back.error().front().to_string());
  CHECK(back->use_bridges);
  CHECK(back->bridges.size() == 1);
  CHECK(back->socks_ports.front().port == 9150);
  // A file SAVECONF wrote is replaced without another backup.
  { std::ofstream(dir / "torrc.orig.1") << "kept"; }
  REQUIRE(write_torrc_file(torrc.string(), text + "SocksPort 9151\n", why));
  CHECK(read_all(dir / "torrc.orig.1") == "kept");
  // A directory in the way fails, with tor's words.
  CHECK_FALSE(write_torrc_file(dir.string(), text, why));
  CHECK(why.find("is not a file? Failing.") != std::string::npos);
  // %include lines make SAVECONF refuse without FORCE.
  Entries included = lines;
  included.push_back(ConfigEntry{"SocksPort", "9152", EntryOp::Set, SourcePos{"conf.d/x", 1}});
  CHECK_FALSE(include_used(lines, "torrc", ""));
  CHECK(include_used(included, "torrc", ""));
  std::filesystem::remove_all(dir);
}

TEST_CASE("config edit: SAVECONF leaves out an option set back to what the defaults file gives (tor's minimal dump)",
          "[config]") {
  const auto dir = std::filesystem::temp_directory_path() / ("conflux-saveconf-defaults-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ControlOptions control;
  control.config_file = (dir / "torrc").string();
  control.defaults_file = (dir / "torrc-defaults").string();
  { std::ofstream(control.defaults_file) << "DisableNetwork 1\nSocksTimeout 60\n"; }
  { std::ofstream(control.config_file) << std::string(kGeneratedTorrcPrefix) << "\n"; }
  // As conflux-gui leaves its proxy after Cancel: SETCONF replaced the defaults file's line with the same value.
  Entries lines{ConfigEntry{"SocksTimeout", "60", EntryOp::Set, SourcePos{control.defaults_file, 2}},
                ConfigEntry{"UseBridges", "1", EntryOp::Set, SourcePos{kControlSource, 1}},
                ConfigEntry{"DisableNetwork", "1", EntryOp::Set, SourcePos{kControlSource, 2}}};
  std::string why;
  REQUIRE(save_running_config(lines, control, false, why).code == 250);
  std::string text = read_all(dir / "torrc");
  CHECK(text.find("UseBridges 1\n") != std::string::npos);
  CHECK(text.find("DisableNetwork") == std::string::npos);
  CHECK(text.find("SocksTimeout") == std::string::npos);
  // A value other than the defaults file's is written.
  lines.back().value = "0";
  lines.push_back(ConfigEntry{"SocksTimeout", "30", EntryOp::Set, SourcePos{kControlSource, 3}});
  REQUIRE(save_running_config(lines, control, false, why).code == 250);
  text = read_all(dir / "torrc");
  CHECK(text.find("\nDisableNetwork 0\n") != std::string::npos);
  CHECK(text.find("\nSocksTimeout 30\n") != std::string::npos);
  std::filesystem::remove_all(dir);
}
