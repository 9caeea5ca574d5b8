#include "conflux/control/control_program.hpp"

#include <algorithm>
#include <cctype>

#include "conflux/control/control_args.hpp"
#include "conflux/control/control_reply.hpp"

namespace conflux::control {
namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); });
  return out;
}

std::string join(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

}  // namespace

ControlProgram::ControlProgram(std::set<std::string> events, ConfigView config)
    : events_(std::move(events)), config_(std::move(config)) {
  info_.add("events/names", "Events that the controller can ask for with SETEVENTS.",
            [this](std::string_view) { return std::optional<std::string>(join(events_)); });
  info_.add("config/names", "List of configuration options, types, and documentation.",
            [this](std::string_view) {
              std::string out;
              for (const auto& [name, type] : config_.names) out += name + " " + type + "\n";
              return std::optional<std::string>(out);
            });
  info_.add("signal/names", "The signal names SIGNAL accepts.", [this](std::string_view) {
    std::set<std::string> names;
    for (const auto& [name, action] : signals_) names.insert(name);
    return std::optional<std::string>(join(names));
  });
  info_.add("features/names", "What arguments USEFEATURE accepts.",
            [](std::string_view) { return std::optional<std::string>("VERBOSE_NAMES EXTENDED_EVENTS"); });
}

void ControlProgram::add_command(std::string keyword, std::function<ControlAnswer(std::string_view)> handler) {
  commands_[std::move(keyword)] = std::move(handler);
}

void ControlProgram::add_signal(std::string name, std::function<void()> action) {
  signals_[std::move(name)] = std::move(action);
}

ControlAnswer ControlProgram::on_command(const ControlCommand& cmd) {
  if (cmd.keyword == "GETINFO") return info_.getinfo(cmd.args);
  if (cmd.keyword == "GETCONF") return getconf(cmd.args);
  if (cmd.keyword == "SETCONF" || cmd.keyword == "RESETCONF") return setconf(cmd.args, cmd.keyword == "RESETCONF");
  if (cmd.keyword == "SAVECONF") return saveconf(cmd.args);
  if (cmd.keyword == "LOADCONF") return loadconf(cmd);
  if (cmd.keyword == "SIGNAL") return signal(cmd.args);
  if (cmd.keyword == "USEFEATURE") return usefeature(cmd.args);
  if (auto own = commands_.find(cmd.keyword); own != commands_.end()) return own->second(cmd.args);
  return {control_line(510, "Unrecognized command \"" + cmd.keyword + "\""), false};
}

ControlAnswer ControlProgram::getconf(std::string_view args) const {
  auto parsed = parse_control_args(args);
  if (!parsed) return {control_line(512, "Bad arguments to GETCONF"), false};
  std::vector<std::string> lines;
  std::vector<std::string> unknown;
  for (const auto& a : *parsed) {
    const std::string key = a.key ? *a.key : a.value;
    auto v = config_.lookup ? config_.lookup(key) : std::nullopt;
    if (!v) {
      unknown.push_back(key);
      continue;
    }
    if (v->values.empty()) lines.push_back(v->name);
    for (const auto& value : v->values) lines.push_back(v->name + "=" + value);  // raw, as tor's KV_RAW
  }
  if (!unknown.empty()) {
    ControlReply r;
    for (std::size_t i = 0; i + 1 < unknown.size(); ++i)
      r.mid(552, "Unrecognized configuration key \"" + unknown[i] + "\"");
    return {r.end(552, "Unrecognized configuration key \"" + unknown.back() + "\""), false};
  }
  if (lines.empty()) return {control_line(250, "OK"), false};
  ControlReply r;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) r.mid(250, lines[i]);
  return {r.end(250, lines.back()), false};
}

std::optional<std::vector<ConfigSetting>> parse_config_settings(std::string_view args) {
  auto parsed = parse_control_args(args);
  if (!parsed || parsed->empty()) return std::nullopt;
  std::vector<ConfigSetting> out;
  for (auto& a : *parsed) {
    if (a.key) {
      out.push_back({std::move(*a.key), std::move(a.value)});
    } else {
      if (a.quoted) return std::nullopt;  // a key is a bare word
      out.push_back({std::move(a.value), std::nullopt});
    }
  }
  return out;
}

namespace {

ControlAnswer outcome_answer(const ConfigOutcome& o) { return {control_line(o.code, o.message), false}; }

}  // namespace

ControlAnswer ControlProgram::setconf(std::string_view args, bool reset) const {
  const char* what = reset ? "RESETCONF" : "SETCONF";
  auto settings = parse_config_settings(args);
  if (!settings) return {control_line(512, std::string("Bad arguments to ") + what), false};
  for (const auto& s : *settings)
    if (!config_.lookup || !config_.lookup(s.key))
      return {control_line(552, "Unrecognized option: Unknown option '" + s.key + "'.  Failing."), false};
  if (!config_.set)
    return {control_line(553, "Transition not allowed: " + config_.lookup(settings->front().key)->name +
                                  " cannot be changed while running (docs/CONTROL.md)"),
            false};
  return outcome_answer(config_.set(*settings, reset));
}

ControlAnswer ControlProgram::saveconf(std::string_view args) const {
  auto parsed = parse_control_args(args);
  if (!parsed) return {control_line(512, "Bad arguments to SAVECONF"), false};
  bool force = false;
  for (const auto& a : *parsed) force = force || (!a.key && upper(a.value) == "FORCE");
  if (!config_.save) return {control_line(551, "Unable to write configuration to disk."), false};
  return outcome_answer(config_.save(force));
}

ControlAnswer ControlProgram::loadconf(const ControlCommand& cmd) const {
  if (!cmd.data) return {control_line(512, "LOADCONF needs a data block (+LOADCONF)"), false};
  if (!config_.load) return {control_line(510, "Unrecognized command \"LOADCONF\""), false};
  return outcome_answer(config_.load(*cmd.data));
}

ControlAnswer ControlProgram::signal(std::string_view args) {
  auto parsed = parse_control_args(args);
  if (!parsed || parsed->size() != 1 || parsed->front().key)
    return {control_line(512, "Syntax error: SIGNAL takes one argument"), false};
  const std::string name = upper(parsed->front().value);
  auto it = signals_.find(name);
  if (it == signals_.end()) return {control_line(552, "Unrecognized signal code \"" + parsed->front().value + "\""), false};
  if (defer_) {
    defer_(it->second);
  } else {
    it->second();
  }
  return {control_line(250, "OK"), false};
}

ControlAnswer ControlProgram::usefeature(std::string_view args) {
  auto parsed = parse_control_args(args);
  if (!parsed) return {control_line(512, "Bad arguments to USEFEATURE"), false};
  for (const auto& a : *parsed) {
    const std::string f = upper(a.value);
    if (a.key || (f != "VERBOSE_NAMES" && f != "EXTENDED_EVENTS"))
      return {control_line(552, "Unrecognized feature \"" + a.value + "\""), false};
  }
  return {control_line(250, "OK"), false};
}

std::string control_event(std::string_view body) { return control_line(650, body); }

std::string bootstrap_status(int percent, std::string_view tag, std::string_view summary) {
  return "NOTICE BOOTSTRAP PROGRESS=" + std::to_string(percent) + " TAG=" + std::string(tag) +
         " SUMMARY=" + quote_control_string(summary);
}

}  // namespace conflux::control
