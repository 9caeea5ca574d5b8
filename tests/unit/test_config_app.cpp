// The start-up steps conflux-relay and conflux-proxy share: command-line
// actions, error and warning lines, Log lines to log destinations.
#include <catch2/catch.hpp>
#include <sstream>

#include "conflux/config/program.hpp"
#include "conflux/config/proxy_options.hpp"

using namespace conflux;
using namespace conflux::config;

namespace {

std::string list_two() { return "A\nB\n"; }

const ProgramInfo kProgram{"conflux-test", "9.9.9", "/etc/conflux/absent-torrc", "Usage: conflux-test\n", list_two};

struct Outcome {
  CommandLineDecision decision;
  std::string out;
  std::string err;
};

template <std::size_t N>
Outcome run(const char* const (&argv)[N]) {
  std::ostringstream out, err;
  auto d = handle_command_line(kProgram, static_cast<int>(N), argv, out, err);
  return {std::move(d), out.str(), err.str()};
}

}  // namespace

TEST_CASE("program: --help, --version and --list-torrc-options answer and exit 0", "[config][program]") {
  const char* help[] = {"p", "--help"};
  auto h = run(help);
  CHECK_FALSE(h.decision.load);
  CHECK(h.decision.exit_status == 0);
  CHECK(h.out == "Usage: conflux-test\n");
  CHECK(h.err.empty());
  const char* version[] = {"p", "--version"};
  CHECK(run(version).out == "conflux-test 9.9.9\n");
  const char* list[] = {"p", "--list-torrc-options"};
  CHECK(run(list).out == "A\nB\n");
  const char* both[] = {"p", "--version", "-h"};  // help wins, as in tor
  CHECK(run(both).out == "Usage: conflux-test\n");
}

TEST_CASE("program: a bad command line is an error with its argv index and usage", "[config][program]") {
  const char* bad[] = {"p", "-f", "/x", "--hash-password", "secret"};
  auto b = run(bad);
  CHECK_FALSE(b.decision.load);
  CHECK(b.decision.exit_status == 1);
  CHECK(b.out.empty());
  CHECK(b.err.rfind("conflux-test: command line:3: ", 0) == 0);
  CHECK(b.err.find("Usage: conflux-test\n") != std::string::npos);
}

TEST_CASE("program: run and --verify-config hand back the command line", "[config][program]") {
  const char* plain[] = {"p", "--SocksPort", "9150"};
  auto r = run(plain);
  REQUIRE(r.decision.load);
  CHECK(r.decision.load->action == Action::Run);
  CHECK(r.decision.load->torrc_path == std::optional<std::string>("/etc/conflux/absent-torrc"));
  CHECK_FALSE(r.decision.load->torrc_explicit);
  CHECK(r.decision.load->overrides.size() == 1);
  const char* verify[] = {"p", "--verify-config", "-f", "/etc/x"};
  auto v = run(verify);
  REQUIRE(v.decision.load);
  CHECK(v.decision.load->action == Action::VerifyConfig);
  CHECK(v.decision.load->torrc_explicit);
  CHECK(v.out.empty());
}

TEST_CASE("program: errors and warnings are one line each, tor's form", "[config][program]") {
  std::ostringstream err;
  const ConfigError errors[] = {{"torrc", 12, "bad"}, {"torrc", 0, "missing"}};
  print_errors("conflux-proxy", errors, err);
  print_warnings("conflux-proxy", std::span(errors, 1), err);
  CHECK(err.str() == "conflux-proxy: torrc:12: bad\nconflux-proxy: torrc: missing\n"
                     "conflux-proxy: warning: torrc:12: bad\n");
}

TEST_CASE("program: Log lines become log destinations", "[config][program]") {
  auto none = log_destinations(std::span<const LogSpec>{});
  REQUIRE(none.size() == 1);  // tor: notice and above to stdout
  CHECK(none[0].kind == log::Destination::Kind::Stdout);
  CHECK(none[0].min == log::Severity::Notice);
  CHECK(none[0].max == log::Severity::Err);
  const LogSpec specs[] = {
      {Severity::Debug, Severity::Info, LogSpec::Dest::File, "/var/log/c.log"},
      {Severity::Warn, Severity::Err, LogSpec::Dest::Syslog, ""},
      {Severity::Err, Severity::Err, LogSpec::Dest::Stderr, ""},
  };
  auto d = log_destinations(specs);
  REQUIRE(d.size() == 3);
  CHECK(d[0].kind == log::Destination::Kind::File);
  CHECK(d[0].path == "/var/log/c.log");
  CHECK(d[0].min == log::Severity::Debug);
  CHECK(d[0].max == log::Severity::Info);
  CHECK(d[1].kind == log::Destination::Kind::Stderr);  // no syslog sink
  CHECK(d[1].min == log::Severity::Warn);
  CHECK(d[2].kind == log::Destination::Kind::Stderr);
  for (auto s : {Severity::Debug, Severity::Info, Severity::Notice, Severity::Warn, Severity::Err})
    CHECK(log::to_string(to_log_severity(s)) == config::to_string(s));
}
