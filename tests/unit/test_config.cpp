// torrc syntax: entries, comments, continuations, quoting, includes, layers,
// the command line, and to_torrc.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "conflux/config/command_line.hpp"
#include "conflux/config/layers.hpp"
#include "conflux/config/torrc_parser.hpp"

using namespace conflux::config;

namespace {

Entries parse_ok(std::string_view text) {
  auto r = parse_torrc_text(text, "torrc");
  if (!r) FAIL("unexpected error: " << r.error().to_string());
  return *r;
}

ConfigError parse_err(std::string_view text) {
  auto r = parse_torrc_text(text, "torrc");
  REQUIRE_FALSE(r);
  return r.error();
}

}  // namespace

TEST_CASE("torrc: key value lines, comments, blanks", "[config][parser]") {
  auto e = parse_ok("# a comment\n\n   \nNickname  relay1  \n\tORPort 9001 # trailing comment\nFoo Bar    Baz\n");
  REQUIRE(e.size() == 3);
  CHECK(e[0].key == "Nickname");
  CHECK(e[0].value == "relay1");
  CHECK(e[0].where == SourcePos{"torrc", 4});
  CHECK(e[1].key == "ORPort");
  CHECK(e[1].value == "9001");
  CHECK(e[1].where.line == 5);
  CHECK(e[2].value == "Bar    Baz");  // inner blanks kept verbatim (tor)
  CHECK(e[2].op == EntryOp::Set);
}

TEST_CASE("torrc: comment without a space, key without a value, CRLF", "[config][parser]") {
  auto e = parse_ok("Hello World#tomorrow\r\nEmpty\r\nEmpty2   # c\r\n");
  REQUIRE(e.size() == 3);
  CHECK(e[0].value == "World");
  CHECK(e[1].key == "Empty");
  CHECK(e[1].value.empty());
  CHECK(e[2].value.empty());
  CHECK(e[2].where.line == 3);
}

TEST_CASE("torrc: repeated keys kept in order, keys compare case-insensitively", "[config][parser]") {
  auto e = parse_ok("ExitPolicy accept *:80\nexitpolicy accept *:443\nEXITPOLICY reject *:*\n");
  REQUIRE(e.size() == 3);
  CHECK(e[0].value == "accept *:80");
  CHECK(e[1].value == "accept *:443");
  CHECK(e[2].value == "reject *:*");
  CHECK(key_equals(e[1].key, "ExitPolicy"));
  CHECK(key_equals(e[2].key, "exitPOLICY"));
  CHECK_FALSE(key_equals("ExitPolicy", "ExitPolicies"));
}

TEST_CASE("torrc: backslash continuation (tor's torrc_format.txt examples)", "[config][parser]") {
  SECTION("key then value on the next line") {
    auto e = parse_ok("Hello\\\nWorld\nNext 1\n");
    REQUIRE(e.size() == 2);
    CHECK(e[0].key == "Hello");
    CHECK(e[0].value == "World");
    CHECK(e[1].where.line == 3);
  }
  SECTION("several lines joined verbatim") {
    auto e = parse_ok("Hello\\\nWorld\\\nand\\\nfriends\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0].value == "Worldandfriends");
  }
  SECTION("backslashes inside a line are kept") {
    auto e = parse_ok("Too \\\nMany\\\\\\\nBacksl\\ashes \\\\\nhere\n");
    REQUIRE(e.size() == 1);
    CHECK(e[0].value == "Many\\\\Backsl\\ashes \\here");
  }
  SECTION("comment lines inside a continued value are skipped, and continue it") {
    auto with = parse_ok("This entry \\\n # has comments \\\n and some \\\n are # generally \\\n silly\n");
    auto without = parse_ok("This entry \\\n # has comments\n and some \\\n are # generally\n silly\n");
    REQUIRE(with.size() == 1);
    REQUIRE(without.size() == 1);
    CHECK(with[0].value == "entry   and some  are  silly");
    CHECK(without[0].value == with[0].value);
  }
  SECTION("a blank line ends a continued value; EOF too") {
    auto e = parse_ok("A x\\\n\nB y\\");
    REQUIRE(e.size() == 2);
    CHECK(e[0].value == "x");
    CHECK(e[1].value == "y");
    CHECK(e[1].where.line == 3);
  }
  SECTION("a backslash before a comment is part of the value") {
    auto e = parse_ok("A x\\ # c\nB y\n");
    REQUIRE(e.size() == 2);
    CHECK(e[0].value == "x\\");
  }
}

TEST_CASE("torrc: quoted values and C escapes", "[config][parser]") {
  auto e = parse_ok(
      "Hello \"World!\"\n"
      "Esc \"\\\"World\\\"\\nand\\nuniverse\"\n"
      "Hash \"a # not a comment\"   # a comment\n"
      "Bytes \"\\x41\\101\\7\\t\\r\\\\\\'\"\n"
      "Blank \"  padded  \"\n"
      "Empty \"\"\n");
  REQUIRE(e.size() == 6);
  CHECK(e[0].value == "World!");
  CHECK(e[1].value == "\"World\"\nand\nuniverse");
  CHECK(e[2].value == "a # not a comment");
  CHECK(e[3].value == std::string("AA\x07\t\r\\'"));
  CHECK(e[4].value == "  padded  ");
  CHECK(e[5].value.empty());
}

TEST_CASE("torrc: malformed lines are errors with their line number", "[config][parser]") {
  CHECK(parse_err("A 1\nB \"unterminated\n").line == 2);
  CHECK(parse_err("A \"x\" trailing\n").message.find("after the closing quote") != std::string::npos);
  CHECK(parse_err("\n\nA \"\\q\"\n").line == 3);        // unknown escape
  CHECK(parse_err("A \"\\x4\"\n").line == 1);           // \x needs two digits
  CHECK(parse_err("A \"\\400\"\n").line == 1);          // octal above 255
  CHECK(parse_err("A \"\\0\"\n").line == 1);            // NUL
  CHECK(parse_err("A \"\\x00\"\n").line == 1);          // NUL
  CHECK(parse_err(std::string_view("A b\0c\n", 6)).message.find("NUL") != std::string::npos);
  CHECK(parse_err("Key=value\n").message.find("invalid option name") != std::string::npos);
  CHECK(parse_err("+\n").message == "missing option name");
  CHECK(parse_err("x 1\n/Key value\n").line == 2);     // /Key takes no value
  auto err = parse_err("A 1\n  Bad.Key 2\n");
  CHECK(err.to_string() == "torrc:2: invalid option name 'Bad.Key'");
}

TEST_CASE("torrc: +Key and /Key magic", "[config][parser]") {
  auto e = parse_ok("+SocksPort 9100\n/ExitPolicy\n");
  REQUIRE(e.size() == 2);
  CHECK(e[0].op == EntryOp::Append);
  CHECK(e[0].key == "SocksPort");
  CHECK(e[1].op == EntryOp::Clear);
  CHECK(e[1].key == "ExitPolicy");
}

TEST_CASE("ConfigError::to_string", "[config]") {
  CHECK(ConfigError("torrc", 12, "bad").to_string() == "torrc:12: bad");
  CHECK(ConfigError("torrc", 0, "bad").to_string() == "torrc: bad");
  CHECK(ConfigError(kCommandLineSource, 3, "bad").to_string() == "command line:3: bad");
}

TEST_CASE("to_torrc: parsed entries survive re-serialisation", "[config][parser]") {
  auto e = parse_ok(
      "A plain value\nB \"  lead\"\nC \"a#b\"\nD \"x\\\\y\"\nE \"q\\\"q\"\nF \"\\x01\\n\"\nG\n+H 1\n/I\n"
      "J \"\"\nK \"\\xff\\x7f\"\n");
  auto text = to_torrc(e);
  auto again = parse_ok(text);
  REQUIRE(again.size() == e.size());
  for (std::size_t i = 0; i < e.size(); ++i) CHECK(same_entry(e[i], again[i]));
  CHECK(text.substr(0, 14) == "A plain value\n");
}

TEST_CASE("%include of a file, a directory, cycles and depth (in memory)", "[config][include]") {
  MemoryFileSource fs;
  fs.add_file("/etc/tor/torrc", "Nickname a\n%include extra.conf\nORPort 1\n%include /etc/tor/torrc.d\nLast 1\n");
  fs.add_file("/etc/tor/extra.conf", "Extra 1\n");
  fs.add_file("/etc/tor/torrc.d/20-b.conf", "B 2\n");
  fs.add_file("/etc/tor/torrc.d/10-a.conf", "A 1\n");
  fs.add_file("/etc/tor/torrc.d/.hidden", "Hidden 1\n");
  fs.add_file("/etc/tor/torrc.d/sub/ignored.conf", "Ignored 1\n");

  auto r = load_torrc_file("/etc/tor/torrc", fs);
  REQUIRE(r);
  std::vector<std::string> keys;
  for (const auto& e : *r) keys.push_back(e.key);
  CHECK(keys == std::vector<std::string>{"Nickname", "Extra", "ORPort", "A", "B", "Last"});
  CHECK((*r)[1].where == SourcePos{"/etc/tor/extra.conf", 1});
  CHECK((*r)[3].where == SourcePos{"/etc/tor/torrc.d/10-a.conf", 1});
  CHECK((*r)[5].where == SourcePos{"/etc/tor/torrc", 5});

  SECTION("a cycle is an error at the %include line") {
    fs.add_file("/c/a", "X 1\n%include b\n");
    fs.add_file("/c/b", "Y 1\n\n%include /c/a\n");
    auto c = load_torrc_file("/c/a", fs);
    REQUIRE_FALSE(c);
    CHECK(c.error().file == "/c/b");
    CHECK(c.error().line == 3);
    CHECK(c.error().message.find("cycle") != std::string::npos);
  }
  SECTION("a file including itself") {
    fs.add_file("/s/self", "%include self\n");
    auto c = load_torrc_file("/s/self", fs);
    REQUIRE_FALSE(c);
    CHECK(c.error().message.find("cycle") != std::string::npos);
  }
  SECTION("depth: 8 levels are fine, 9 are not") {
    for (int i = 0; i < 9; ++i)
      fs.add_file("/d/" + std::to_string(i), "K" + std::to_string(i) + " 1\n%include " + std::to_string(i + 1) + "\n");
    fs.add_file("/d/9", "K9 1\n");
    auto deep = load_torrc_file("/d/0", fs);
    REQUIRE_FALSE(deep);
    CHECK(deep.error().file == "/d/8");
    CHECK(deep.error().message.find("deep") != std::string::npos);
    auto ok = load_torrc_file("/d/1", fs);  // 1 -> 9 is 8 levels
    REQUIRE(ok);
    CHECK(ok->size() == 9);
  }
  SECTION("a missing include, an empty include, and unresolved text parsing") {
    auto m = parse_torrc("A 1\n%include /nope\n", "torrc", fs);
    REQUIRE_FALSE(m);
    CHECK(m.error().to_string().rfind("torrc:2: ", 0) == 0);
    CHECK_FALSE(parse_torrc("%include\n", "torrc", fs));
    auto raw = parse_torrc_text("%include /nope\n");
    REQUIRE(raw);
    CHECK((*raw)[0].key == "%include");
  }
}

TEST_CASE("%include on the real file system", "[config][include]") {
  namespace fs = std::filesystem;
  std::random_device rd;
  auto root = fs::temp_directory_path() / ("conflux-test-config-" + std::to_string(rd()));
  fs::create_directories(root / "torrc.d");
  auto write = [](const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; };
  write(root / "torrc", "Nickname n\n%include torrc.d\n%include other\n");
  write(root / "torrc.d" / "b", "B 2\n");
  write(root / "torrc.d" / "a", "A 1\n");
  write(root / "torrc.d" / ".swp", "Junk 1\n");
  write(root / "other", "Other 1\n%include torrc\n");

  RealFileSource real;
  auto r = load_torrc_file((root / "torrc").string(), real);
  REQUIRE_FALSE(r);  // other includes torrc again
  CHECK(r.error().message.find("cycle") != std::string::npos);
  CHECK(r.error().line == 2);

  write(root / "other", "Other 1\n");
  r = load_torrc_file((root / "torrc").string(), real);
  REQUIRE(r);
  std::vector<std::string> keys;
  for (const auto& e : *r) keys.push_back(e.key);
  CHECK(keys == std::vector<std::string>{"Nickname", "A", "B", "Other"});
  CHECK(r->at(1).where.line == 1);

  auto missing = load_torrc_file((root / "absent").string(), real);
  REQUIRE_FALSE(missing);
  fs::remove_all(root);
}

TEST_CASE("layers: a higher layer replaces every line of a key, + appends, / clears", "[config][layers]") {
  auto defaults = parse_ok("Log notice stdout\nORPort 1\n");
  auto torrc = parse_ok("ORPort 9001\nORPort [::1]:9001\nExitPolicy accept *:80\nExitPolicy reject *:*\nLog info file /x\n");
  Entries cmdline = {
      {"orport", "9002", EntryOp::Set, {kCommandLineSource, 2}},
      {"ExitPolicy", "accept *:443", EntryOp::Append, {kCommandLineSource, 4}},
      {"Log", "", EntryOp::Clear, {kCommandLineSource, 6}},
  };
  auto merged = merge_layers(defaults, torrc, cmdline);
  std::vector<std::string> lines;
  for (const auto& e : merged) {
    lines.push_back(e.key + " " + e.value);
    CHECK(e.op == EntryOp::Set);
  }
  CHECK(lines == std::vector<std::string>{"ExitPolicy accept *:80", "ExitPolicy reject *:*", "orport 9002",
                                          "ExitPolicy accept *:443"});
  CHECK(merged[2].where == SourcePos{kCommandLineSource, 2});
}

TEST_CASE("layers: a torrc line replaces the defaults file's lines", "[config][layers]") {
  auto merged = merge_layers(parse_ok("A 1\nA 2\nB 1\n"), parse_ok("a 3\n"), {});
  REQUIRE(merged.size() == 2);
  CHECK(merged[0].value == "1");
  CHECK(merged[0].key == "B");
  CHECK(merged[1].value == "3");
}

namespace {
conflux::Result<CommandLine, ConfigError> cmd(std::initializer_list<std::string_view> args,
                                     std::optional<std::string> def = std::nullopt) {
  std::vector<std::string_view> v(args);
  return parse_command_line(std::span<const std::string_view>(v), def);
}
}  // namespace

TEST_CASE("command line: files, flags and overrides", "[config][cmdline]") {
  auto c = cmd({"-f", "/etc/torrc", "--defaults-torrc", "/d", "--ORPort", "9001", "--+ExitPolicy", "accept *:80",
                "/Log", "+MyFamily", "-x-not-a-flag-value", "--verify-config"});
  REQUIRE(c);
  CHECK(c->action == Action::VerifyConfig);
  CHECK(c->torrc_path == "/etc/torrc");
  CHECK(c->torrc_explicit);
  CHECK(c->defaults_torrc_path == "/d");
  REQUIRE(c->overrides.size() == 4);
  CHECK(c->overrides[0].key == "ORPort");
  CHECK(c->overrides[0].value == "9001");
  CHECK(c->overrides[0].where == SourcePos{kCommandLineSource, 5});
  CHECK(c->overrides[1].op == EntryOp::Append);
  CHECK(c->overrides[2].op == EntryOp::Clear);
  CHECK(c->overrides[2].key == "Log");
  CHECK(c->overrides[3].value == "-x-not-a-flag-value");  // a value is always the next argument
}

TEST_CASE("command line: defaults and actions", "[config][cmdline]") {
  auto none = cmd({});
  REQUIRE(none);
  CHECK(none->action == Action::Run);
  CHECK_FALSE(none->torrc_path);
  auto def = cmd({}, "/etc/conflux/torrc");
  REQUIRE(def);
  CHECK(def->torrc_path == "/etc/conflux/torrc");
  CHECK_FALSE(def->torrc_explicit);
  CHECK(cmd({"-h"})->action == Action::Help);
  CHECK(cmd({"--version", "--help"})->action == Action::Help);
  CHECK(cmd({"--verify-config", "--version"})->action == Action::Version);
  CHECK(cmd({"--list-options"})->action == Action::ListOptions);
  CHECK(cmd({"--list-torrc-options"})->action == Action::ListOptions);
  CHECK(cmd({"--torrc-file", "x", "--ignore-missing-torrc"})->ignore_missing_torrc);
}

TEST_CASE("command line: errors", "[config][cmdline]") {
  auto at = [](std::initializer_list<std::string_view> args) {
    auto c = cmd(args);
    REQUIRE_FALSE(c);
    CHECK(c.error().file == kCommandLineSource);
    return c.error().line;
  };
  CHECK(at({"-x"}) == 1);
  CHECK(at({"--help", "-v"}) == 2);
  CHECK(at({"-f"}) == 1);
  CHECK(at({"-f", "a", "-f", "b"}) == 3);
  CHECK(at({"--ORPort"}) == 1);                 // no value
  CHECK(at({"ORPort", "9001"}) == 1);           // bare word
  CHECK(at({"--"}) == 1);
  CHECK(at({"---ORPort", "1"}) == 1);
  CHECK(at({"--hash-password", "x"}) == 1);     // a tor flag we do not implement
  CHECK(at({"--%include", "x"}) == 1);
  CHECK(at({"--defaults-torrc"}) == 1);
}

TEST_CASE("command line: argc/argv form skips the program name", "[config][cmdline]") {
  const char* argv[] = {"conflux-relay", "-f", "t", "--Nickname", "n"};
  auto c = parse_command_line(5, argv);
  REQUIRE(c);
  CHECK(c->torrc_path == "t");
  REQUIRE(c->overrides.size() == 1);
  CHECK(c->overrides[0].where.line == 3);
}

TEST_CASE("the example at the top of docs/CONFIG.md", "[config][parser]") {
  MemoryFileSource fs;
  fs.add_file("/etc/conflux-relay/torrc.d/10-exit", "ExitRelay 1\n");
  auto r = parse_torrc(
      "# A comment. Keys are case-insensitive; values run to the end of the line.\n"
      "Nickname      MyRelay\n"
      "ORPort        9001\n"
      "DataDirectory /var/lib/conflux-relay\n"
      "ExitPolicy    accept *:80, accept *:443   # a comment after a value\n"
      "ExitPolicy    reject *:*                  # repeated keys are all kept, in order\n"
      "ContactInfo   \"ops at example dot org\"    # quoted: C escapes \\n \\t \\r \\\\ \\\" \\' \\xHH \\ooo\n"
      "# A trailing backslash continues a line. No comment on the last piece: as in\n"
      "# tor, a comment inside a continued value makes it continue further.\n"
      "MyFamily      relay2, \\\n"
      "              relay3\n"
      "%include      /etc/conflux-relay/torrc.d  # a file, or every file of a directory\n",
      "/etc/conflux-relay/torrc", fs);
  REQUIRE(r);
  std::vector<std::string> lines;
  for (const auto& e : *r) lines.push_back(e.key + "=" + e.value);
  CHECK(lines == std::vector<std::string>{"Nickname=MyRelay", "ORPort=9001", "DataDirectory=/var/lib/conflux-relay",
                                          "ExitPolicy=accept *:80, accept *:443", "ExitPolicy=reject *:*",
                                          "ContactInfo=ops at example dot org",
                                          "MyFamily=relay2,               relay3", "ExitRelay=1"});
}
