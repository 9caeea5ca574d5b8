// The relay's GETCONF view and SETCONF, RESETCONF, LOADCONF, SAVECONF
// (docs/CONTROL.md): as the proxy's (validated whole, all or nothing), the
// relay applying what its SIGHUP reload applies.
#include "conflux/config/config_edit.hpp"
#include "conflux/config/control_config_view.hpp"
#include "conflux/config/program.hpp"
#include "conflux/log/log.hpp"
#include "relay_control.hpp"

namespace conflux::relay {

control::ConfigView RelayControl::config_view() {
  auto view = config::control_config_view<config::RelayOptions>(
      config::relay_option_table(), src_.options.config_lines,
      [this](std::string_view name) -> std::optional<std::string> {
        if (name == "DataDirectory") return src_.options.data_directory;
        if (name == "Nickname") return src_.options.nickname;
        return std::nullopt;
      });
  view.set = [this](const std::vector<control::ConfigSetting>& settings, bool) {
    return try_lines(config::edited_entries(config::relay_option_table(), src_.options.config_lines, settings), false);
  };
  view.load = [this](std::string_view text) -> control::ConfigOutcome {
    auto lines = config::parse_torrc_text(text, config::kControlSource);
    if (!lines) return {552, "Invalid config file: " + lines.error().message};
    return try_lines(*lines, true);
  };
  view.save = [this](bool force) {
    std::string why;
    auto outcome = config::save_running_config(src_.options.config_lines, src_.options.control, force, why);
    if (outcome.code != 250) log::write(log::Severity::Warn, why);
    return outcome;
  };
  return view;
}

control::ConfigOutcome RelayControl::try_lines(const config::Entries& lines, bool loadconf) {
  auto r = config::assign_from_controller(
      config::relay_option_table(), src_.options.config_lines, lines, loadconf,
      // The same environment as at start, so the default DataDirectory validates as it did then.
      [env = config::user_environment()](const config::Entries& e) {
        return config::relay_options_from_entries(e, config::kControlSource, env);
      },
      src_.reconfigure);
  if (r.outcome.code != 250)
    log::write(log::Severity::Warn, "Controller gave us config lines that didn't validate: " + r.outcome.message);
  else if (port_ && !r.conf_changed_event.empty())
    port_->publish_lines("CONF_CHANGED", r.conf_changed_event);
  return r.outcome;
}

}  // namespace conflux::relay
