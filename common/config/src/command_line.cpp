#include "conflux/config/command_line.hpp"

#include <algorithm>
#include <vector>
#include "shown_value.hpp"

namespace conflux::config {
namespace {

int rank(Action a) {
  switch (a) {
    case Action::Run: return 0;
    case Action::VerifyConfig: return 1;
    case Action::ListOptions: return 2;
    case Action::Version: return 3;
    case Action::Help: return 4;
  }
  return 0;
}

}  // namespace

Result<CommandLine, ConfigError> parse_command_line(std::span<const std::string_view> args,
                                                    const std::optional<std::string>& default_torrc) {
  CommandLine cl;
  cl.torrc_path = default_torrc;
  bool have_f = false;
  bool have_defaults = false;
  auto pos = [](std::size_t i) { return static_cast<std::uint32_t>(i + 1); };
  auto fail = [&](std::size_t i, std::string msg) {
    return Unexpected{ConfigError(kCommandLineSource, pos(i), std::move(msg))};
  };
  auto want = [&](Action a) {
    if (rank(a) > rank(cl.action)) cl.action = a;
  };

  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    auto next_value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return std::string(args[++i]);
    };
    if (arg == "-f" || arg == "--torrc-file") {
      if (have_f) return fail(i, "-f given more than once");
      auto v = next_value();
      if (!v) return fail(i, std::string(arg) + " needs a file name");
      have_f = true;
      cl.torrc_path = std::move(*v);
      cl.torrc_explicit = true;
    } else if (arg == "--defaults-torrc") {
      if (have_defaults) return fail(i, "--defaults-torrc given more than once");
      auto v = next_value();
      if (!v) return fail(i, "--defaults-torrc needs a file name");
      have_defaults = true;
      cl.defaults_torrc_path = std::move(*v);
    } else if (arg == "--ignore-missing-torrc") {
      cl.ignore_missing_torrc = true;
    } else if (arg == "--verify-config") {
      want(Action::VerifyConfig);
    } else if (arg == "-h" || arg == "--help") {
      want(Action::Help);
    } else if (arg == "--version") {
      want(Action::Version);
    } else if (arg == "--list-torrc-options" || arg == "--list-options") {
      want(Action::ListOptions);
    } else {
      std::string_view name = arg;
      if (name.substr(0, 2) == "--") {
        name.remove_prefix(2);
      } else if (!name.empty() && name.front() == '-') {
        return fail(i, "unknown flag '" + shown(arg) + "'");
      } else if (name.empty() || (name.front() != '+' && name.front() != '/')) {
        return fail(i, "unexpected argument '" + shown(arg) + "' (options are written --Key value)");
      }
      ConfigEntry e;
      e.where = {kCommandLineSource, pos(i)};
      if (!name.empty() && (name.front() == '+' || name.front() == '/')) {
        e.op = name.front() == '+' ? EntryOp::Append : EntryOp::Clear;
        name.remove_prefix(1);
      }
      if (name.empty() || name.front() == '%' || !is_valid_key(name))
        return fail(i, "unknown flag '" + shown(arg) + "'");
      e.key = std::string(name);
      if (e.op != EntryOp::Clear) {
        auto v = next_value();
        if (!v) return fail(i, "option '" + shown(arg) + "' needs a value");
        if (v->find('\0') != std::string::npos) return fail(i + 1, "NUL byte in value");
        e.value = std::move(*v);
      }
      cl.overrides.push_back(std::move(e));
    }
  }
  return cl;
}

Result<CommandLine, ConfigError> parse_command_line(int argc, const char* const* argv,
                                                    const std::optional<std::string>& default_torrc) {
  std::vector<std::string_view> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i] != nullptr ? argv[i] : "");
  return parse_command_line(std::span<const std::string_view>(args), default_torrc);
}

}  // namespace conflux::config
