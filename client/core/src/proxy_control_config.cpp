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
  const auto table = config::proxy_option_table();
  auto next = config::proxy_options_from_entries(lines, config::kControlSource);
  if (!next) {
    const std::string& why = next.error().front().message;
    net::emit(log_, net::LogLevel::Warn, "Controller gave us config lines that didn't validate: " + why);
    return {loadconf ? 552 : 513, (loadconf ? "Invalid config file: " : "Unacceptable option value: ") + why};
  }
  const auto changed = config::changed_options(table, src_.options.config_lines, next->config_lines);
  if (changed.empty()) return {};
  if (!src_.reconfigure) return {553, "Transition not allowed: While Tor is running, changing " + changed.front() + " is not allowed."};
  auto outcome = src_.reconfigure(std::move(*next), changed);
  if (outcome.code != 250) {
    net::emit(log_, net::LogLevel::Warn, "Controller gave us config lines that could not be applied: " + outcome.message);
    return outcome;
  }
  if (port_) {
    auto body = config::conf_changed_lines(table, src_.options.config_lines, changed);
    body.insert(body.begin(), "CONF_CHANGED");
    body.emplace_back("OK");
    port_->publish_lines("CONF_CHANGED", body);
  }
  return outcome;
}

control::ConfigOutcome ProxyControl::save(bool force) const {
  const auto& c = src_.options.control;
  if (c.config_file.empty()) return {551, "Unable to write configuration to disk."};
  if (!force && config::include_used(src_.options.config_lines, c.config_file, c.defaults_file)) {
    net::emit(log_, net::LogLevel::Warn,
              "Not saving the configuration: it was read with %include (SAVECONF FORCE overwrites it).");
    return {551, "Unable to write configuration to disk."};
  }
  std::string why;
  if (!config::write_torrc_file(c.config_file, config::saved_torrc_text(src_.options.config_lines, c.defaults_file),
                                why)) {
    net::emit(log_, net::LogLevel::Warn, why);
    return {551, "Unable to write configuration to disk."};
  }
  net::emit(log_, net::LogLevel::Notice, "Saved the configuration to \"" + c.config_file + "\" (SAVECONF).");
  return {};
}

}  // namespace conflux::client
