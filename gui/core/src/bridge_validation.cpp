#include "conflux/gui/bridge_validation.hpp"

#include <algorithm>

#include "conflux/config/proxy_options.hpp"

namespace conflux::gui {

namespace {

constexpr const char* kSource = "bridge lines";

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

config::ConfigEntry entry(std::string key, std::string value, std::uint32_t line) {
  config::ConfigEntry e;
  e.key = std::move(key);
  e.value = std::move(value);
  e.where = config::SourcePos{kSource, line};
  return e;
}

}  // namespace

bool BridgeCheck::ok() const noexcept {
  if (!general.empty() || lines.empty()) return false;
  for (const auto& l : lines)
    if (!l.errors.empty()) return false;
  return true;
}

std::string bridge_value(std::string_view line) {
  line = trimmed(line);
  if (line.empty() || line.front() == '#') return {};
  if (line.size() > 7 && config::key_equals(line.substr(0, 7), "Bridge ")) line = trimmed(line.substr(7));
  return std::string(line);
}

namespace {

// The proxy's options from these entries (after the fixed ones): its errors.
config::ConfigErrors option_errors(const config::Entries& fixed, const config::Entries& bridges) {
  config::Entries all = fixed;
  all.insert(all.end(), bridges.begin(), bridges.end());
  auto options = config::proxy_options_from_entries(all, kSource);
  return options ? config::ConfigErrors{} : options.error();
}

bool already_reported(const BridgeCheck& check, const std::string& message) {
  for (const auto& l : check.lines)
    if (std::find(l.errors.begin(), l.errors.end(), message) != l.errors.end()) return true;
  return false;
}

}  // namespace

BridgeCheck check_bridge_lines(std::string_view text, std::string_view obfs4proxy) {
  BridgeCheck check;
  const config::Entries fixed{entry("UseBridges", "1", 0),
                              entry("DataDirectory", "/nonexistent/conflux-gui-check", 0),
                              entry("ClientTransportPlugin", "obfs4 exec " + std::string(obfs4proxy), 0)};
  config::Entries bridges;
  std::uint32_t number = 0;
  while (number == 0 || !text.empty()) {
    ++number;
    const auto nl = text.find('\n');
    const auto value = bridge_value(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (value.empty()) continue;
    const auto parsed = config::parse_bridge_line(value);
    if (parsed && !parsed->transport.empty()) check.transport = true;
    bridges.push_back(entry("Bridge", value, number));
    // Alone, so that every error the proxy finds in it is this line's (some,
    // such as a transport without a plugin, name the option and not the line).
    BridgeLineCheck line{number, value, {}};
    for (const auto& e : option_errors(fixed, {bridges.back()})) line.errors.push_back(e.message);
    check.lines.push_back(std::move(line));
  }
  // Together: what involves two lines (two with one identity).
  for (const auto& e : option_errors(fixed, bridges)) {
    if (already_reported(check, e.message)) continue;
    auto it = std::find_if(check.lines.begin(), check.lines.end(), [&](const auto& l) { return l.line == e.line; });
    if (it != check.lines.end()) it->errors.push_back(e.message);
    else check.general.push_back(e.message);
  }
  return check;
}

}  // namespace conflux::gui
