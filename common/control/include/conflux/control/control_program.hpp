#pragma once
// What a program answers once a controller is authenticated (everything but
// the gate and SETEVENTS, control_session.hpp), as tor words it:
//   GETINFO     ControlInfo's keys, plus events/names and config/names
//   GETCONF     the program's options as it holds them (every line of a
//               repeatable one); an unset option is "250 Key" (no value)
//   SETCONF, RESETCONF
//               552 for an unknown option; else the program's ConfigView::set
//               decides, all or nothing (tor's options_trial_assign): 250 OK,
//               513 for a value the option does not take, 553 for an option
//               it cannot change while running (553 for every option when the
//               program has no `set`)
//   SAVECONF [FORCE], LOADCONF (data block)
//               ConfigView::save and ::load (551 / 510 without them)
//   SIGNAL      the names the program registers: 250 OK, then the action
//               (the runtime runs it after the reply is queued); 552 else
//   USEFEATURE  VERBOSE_NAMES and EXTENDED_EVENTS (always on, as in tor)
//   the program's own commands (add_command; ours, named CONFLUX_...)
// Anything else: 510 Unrecognized command, as tor.
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/control/control_getinfo.hpp"
#include "conflux/control/control_session.hpp"

namespace conflux::control {

struct ConfigValue {
  std::string name;                 // canonical spelling
  std::vector<std::string> values;  // empty: unset
};

// One Key[=Value] of SETCONF/RESETCONF. `value` nullopt: "Key" alone (the
// option goes back to its default).
struct ConfigSetting {
  std::string key;
  std::optional<std::string> value;
  friend bool operator==(const ConfigSetting&, const ConfigSetting&) = default;
};

// What a configuration command came to: 250 (done), or tor's code and its
// whole message ("Unacceptable option value: ...").
struct ConfigOutcome {
  int code = 250;
  std::string message = "OK";
};

struct ConfigView {
  // Every option: canonical name and its type ("Port", "Boolean", ...), as
  // config/names lists them.
  std::vector<std::pair<std::string, std::string>> names;
  // The value of `key` (any case); nullopt when there is no such option.
  std::function<std::optional<ConfigValue>(std::string_view key)> lookup;
  // SETCONF (reset false) and RESETCONF (true), every key known: validate
  // the whole new configuration, then apply it or change nothing.
  std::function<ConfigOutcome(const std::vector<ConfigSetting>&, bool reset)> set;
  // SAVECONF (FORCE given or not).
  std::function<ConfigOutcome(bool force)> save;
  // LOADCONF: a whole torrc replacing the configuration.
  std::function<ConfigOutcome(std::string_view torrc)> load;
};

// SETCONF/RESETCONF's arguments; nullopt when they do not parse.
[[nodiscard]] std::optional<std::vector<ConfigSetting>> parse_config_settings(std::string_view args);

class ControlProgram final : public ControlCommands {
 public:
  // `events`: the names SETEVENTS accepts.
  ControlProgram(std::set<std::string> events, ConfigView config);

  [[nodiscard]] ControlInfo& info() noexcept { return info_; }
  // SIGNAL `name` (upper case) runs `action`; the runtime defers it so the
  // 250 reaches the controller first (set_defer).
  void add_signal(std::string name, std::function<void()> action);
  void set_defer(std::function<void(std::function<void()>)> defer) { defer_ = std::move(defer); }
  // A command of the program's own (upper-case keyword): `handler` gets the
  // arguments and answers; work it starts reports in events.
  void add_command(std::string keyword, std::function<ControlAnswer(std::string_view args)> handler);

  [[nodiscard]] ControlAnswer on_command(const ControlCommand& cmd) override;
  [[nodiscard]] const std::set<std::string>& event_names() const override { return events_; }

 private:
  [[nodiscard]] ControlAnswer getconf(std::string_view args) const;
  [[nodiscard]] ControlAnswer setconf(std::string_view args, bool reset) const;
  [[nodiscard]] ControlAnswer saveconf(std::string_view args) const;
  [[nodiscard]] ControlAnswer loadconf(const ControlCommand& cmd) const;
  [[nodiscard]] ControlAnswer signal(std::string_view args);
  [[nodiscard]] static ControlAnswer usefeature(std::string_view args);

  std::set<std::string> events_;
  ConfigView config_;
  ControlInfo info_;
  std::map<std::string, std::function<void()>, std::less<>> signals_;
  std::map<std::string, std::function<ControlAnswer(std::string_view)>, std::less<>> commands_;
  std::function<void(std::function<void()>)> defer_;
};

// Async events (control-spec 4.1), each a whole "650 ..." line.
[[nodiscard]] std::string control_event(std::string_view body);
// status/bootstrap-phase and STATUS_CLIENT's form:
// NOTICE BOOTSTRAP PROGRESS=N TAG=tag SUMMARY="summary".
[[nodiscard]] std::string bootstrap_status(int percent, std::string_view tag, std::string_view summary);

}  // namespace conflux::control
