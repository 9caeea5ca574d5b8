// A control connection's bytes from a hostile controller: the reader, the
// argument parser and the authentication gate (common/control). Input:
// [split seed][bytes...]. Checks:
//  - reading in one piece and in pseudo-random pieces gives the same
//    commands and the same error;
//  - the reader never holds more than its limits;
//  - every argument string either parses or fails, and a value that parsed
//    as a QuotedString is read back the same from quote_control_string;
//  - the gate answers every command (before authentication) with a reply
//    that is CRLF-terminated lines, and never authenticates without the
//    cookie or the password (which no input here can know);
//  - a program's commands (ControlProgram: GETINFO, GETCONF, SETCONF,
//    RESETCONF, SAVECONF, LOADCONF, SIGNAL, USEFEATURE, anything else)
//    answer every command with lines that start with a three-digit code and
//    end with CRLF; SETCONF's settings (parse_config_settings) reach the
//    program only when every key is an option, never an empty list, and a
//    setting without a value always has a key.
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "conflux/control/control_args.hpp"
#include "conflux/control/control_auth.hpp"
#include "conflux/control/control_program.hpp"
#include "conflux/control/control_reader.hpp"

namespace {

using namespace conflux::control;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

constexpr ControlReaderLimits kLimits{256, 1024};

struct Outcome {
  std::vector<ControlCommand> commands;
  std::optional<ControlReadError> error;
  bool operator==(const Outcome&) const = default;
};

Outcome read(const std::uint8_t* data, std::size_t size, std::uint8_t seed) {
  ControlReader r(kLimits);
  Outcome out;
  std::uint32_t lcg = seed;
  std::size_t at = 0;
  while (at < size && !out.error) {
    std::size_t n = size - at;
    if (seed != 0) {
      lcg = lcg * 1103515245u + 12345u;
      n = std::min<std::size_t>(n, 1 + (lcg >> 16) % 16);
    }
    auto got = r.feed(std::span(data + at, n));
    at += n;
    out.commands.insert(out.commands.end(), got.commands.begin(), got.commands.end());
    out.error = got.error;
    check(r.buffered() <= kLimits.max_line + kLimits.max_data);
  }
  return out;
}

// Every line of `reply` is "NNN" then ' ', '-' or '+', or a data line of a
// '+' block up to its "."; the reply ends with CRLF.
void check_reply(const std::string& reply) {
  check(reply.size() >= 6 && reply.ends_with("\r\n"));
  bool in_data = false;
  std::size_t at = 0;
  while (at < reply.size()) {
    const std::size_t end = reply.find("\r\n", at);
    check(end != std::string::npos);
    const std::string_view line(reply.data() + at, end - at);
    if (in_data) {
      in_data = line != ".";
    } else {
      check(line.size() >= 4 && std::isdigit(static_cast<unsigned char>(line[0])) &&
            std::isdigit(static_cast<unsigned char>(line[1])) && std::isdigit(static_cast<unsigned char>(line[2])));
      check(line[3] == ' ' || line[3] == '-' || line[3] == '+');
      in_data = line[3] == '+';
    }
    at = end + 2;
  }
  check(!in_data);
}

void program_commands(const std::vector<ControlCommand>& commands) {
  ConfigView view;
  view.names = {{"SocksPort", "LineList"}};
  view.lookup = [](std::string_view key) -> std::optional<ConfigValue> {
    if (key != "SocksPort") return std::nullopt;
    return ConfigValue{"SocksPort", {"9050", "a \"quoted\"\nvalue"}};
  };
  view.set = [](const std::vector<ConfigSetting>& settings, bool) {
    check(!settings.empty());
    for (const auto& st : settings) check(st.key == "SocksPort");
    return ConfigOutcome{513, "Unacceptable option value: " + settings.front().value.value_or("")};
  };
  view.save = [](bool force) { return force ? ConfigOutcome{} : ConfigOutcome{551, "Unable to write configuration to disk."}; };
  view.load = [](std::string_view text) { return ConfigOutcome{552, "Invalid config file: " + std::string(text)}; };
  ControlProgram program({"BW", "CIRC"}, view);
  program.info().add("multi", "two lines", [](std::string_view) { return std::optional<std::string>("a\n.b"); });
  program.info().add_prefix("ns/id/", "an argument", [](std::string_view arg) {
    return arg.empty() ? std::nullopt : std::optional<std::string>(std::string(arg));
  });
  program.add_signal("NEWNYM", [] {});
  for (const auto& cmd : commands) {
    if (auto settings = parse_config_settings(cmd.args))
      for (const auto& st : *settings) check(st.value.has_value() || !st.key.empty());  // a bare word is a key
    check_reply(program.on_command(cmd).reply);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t seed = data[0];
  const Outcome whole = read(data + 1, size - 1, 0);
  check(read(data + 1, size - 1, seed == 0 ? 1 : seed) == whole);

  ControlAuthConfig config;
  ControlCookie cookie{};
  cookie.fill(0x5a);
  config.cookie = cookie;
  config.hashed_passwords = {"16:F3EDDC964FCA28F860DB956A9003EE52C48ECF2C2742EE5C7A8C1F0019"};
  ControlAuth auth(config, [] {
    ControlCookie n{};
    n.fill(0x33);
    return n;
  });
  for (const auto& cmd : whole.commands) {
    if (auto args = parse_control_args(cmd.args)) {
      for (const auto& a : *args) {
        if (!a.quoted) continue;
        auto back = parse_control_args(quote_control_string(a.value));
        check(back && back->size() == 1 && back->front().value == a.value);
      }
    }
    auto answer = auth.on_command(cmd);
    if (!answer) {
      check(auth.authenticated());
      continue;
    }
    check(answer->reply.size() >= 6 && answer->reply.ends_with("\r\n"));
    if (answer->close) break;
  }
  // Authenticated only with what the input spelled: the cookie (0x5a
  // bytes, in hex) or the password "correct horse".
  if (auth.authenticated()) {
    std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string cookie_hex;
    for (int i = 0; i < 32; ++i) cookie_hex += "5a";
    check(text.find(cookie_hex) != std::string::npos || text.find("correct horse") != std::string::npos);
  }
  program_commands(whole.commands);
  return 0;
}
