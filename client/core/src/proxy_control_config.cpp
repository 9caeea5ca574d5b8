// The proxy's GETCONF view and SETCONF, RESETCONF, LOADCONF, SAVECONF
// (docs/CONTROL.md): validation with --verify-config's parser, all or
// nothing, then the runtime applies what it can (proxy_reconfigure.cpp).
#include "conflux/client/proxy_control.hpp"
#include "conflux/config/config_edit.hpp"
#include "conflux/config/control_config_view.hpp"

namespace conflux::client {

control::ConfigView ProxyControl::config_view() {
  auto view = config::control_config_view<config::ProxyOptions>(
      config::proxy_option_table(), src_.options.config_lines,
      [this](std::string_view name) -> std::optional<std::string> {
        if (name == "DataDirectory") return src_.options.data_directory;
        return std::nullopt;
      });
  view.set = [this](const std::vector<control::ConfigSetting>& settings, bool) {
    return try_lines(config::edited_entries(config::proxy_option_table(), src_.options.config_lines, settings), false);
  };
  view.save = [this](bool force) { return save(force); };
  view.load = [this](std::string_view text) -> control::ConfigOutcome {
    auto lines = config::parse_torrc_text(text, config::kControlSource);
    if (!lines) return {552, "Invalid config file: " + lines.error().message};
    return try_lines(*lines, true);
  };
  return view;
}

control::ConfigOutcome ProxyControl::try_lines(const config::Entries& lines, bool loadconf) {
  auto r = config::assign_from_controller(
      config::proxy_option_table(), src_.options.config_lines, lines, loadconf,
      [this](const config::Entries& e) {
        return config::proxy_options_from_entries(e, config::kControlSource, src_.options.environment);
      },
      src_.reconfigure);
  if (r.outcome.code != 250)
    net::emit(log_, net::LogLevel::Warn, "Controller gave us config lines that didn't validate: " + r.outcome.message);
  else if (port_ && !r.conf_changed_event.empty())
    port_->publish_lines("CONF_CHANGED", r.conf_changed_event);
  return r.outcome;
}

control::ConfigOutcome ProxyControl::save(bool force) const {
  std::string why;
  auto outcome = config::save_running_config(src_.options.config_lines, src_.options.control, force, why);
  if (outcome.code != 250) {
    net::emit(log_, net::LogLevel::Warn, why);
  } else {
    net::emit(log_, net::LogLevel::Notice, "Saved the configuration to \"" + src_.options.control.config_file + "\" (SAVECONF).");
  }
  return outcome;
}

}  // namespace conflux::client
