// The bridge lines a user pastes into conflux-gui (gui/core): checked per
// line as the proxy's --verify-config would, then sent over the ControlPort.
// Checks:
//  - each checked line has a line number within the text, in increasing
//    order, and its value is bridge_value() of that line (which is a fixed
//    point: a value read again is itself);
//  - the check is fine only when no line and no general error is reported;
//  - for text that checks fine, the SETCONF the app sends carries exactly one
//    line (no CR or LF: nothing a value holds can start another command)
//    whose Bridge values parse back (QuotedString) to the checked values, in
//    order.
#include <cstdint>
#include <string>
#include <vector>

#include "conflux/control/control_args.hpp"
#include "conflux/gui/bridge_validation.hpp"
#include "conflux/gui/proxy_torrc.hpp"

namespace {

using namespace conflux::gui;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

std::string_view line_of(std::string_view text, std::uint32_t number) {
  for (std::uint32_t i = 1; i < number; ++i) {
    const auto nl = text.find('\n');
    if (nl == std::string_view::npos) return {};
    text.remove_prefix(nl + 1);
  }
  return text.substr(0, text.find('\n'));
}

void check_setconf(const BridgeCheck& c) {
  ProxySettings s;
  for (const auto& l : c.lines) s.bridges.push_back(l.value);
  s.uses_transport = c.uses_transport();
  const std::string cmd = settings_setconf(s);
  check(cmd.find('\r') == std::string::npos && cmd.find('\n') == std::string::npos);
  check(cmd.starts_with("SETCONF "));
  auto args = conflux::control::parse_control_args(std::string_view(cmd).substr(8));
  check(args.has_value());
  std::vector<std::string> back;
  for (const auto& a : *args)
    if (a.key && *a.key == "Bridge") back.push_back(a.value);
  check(back == s.bridges);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;  // each line is checked alone, then all together: quadratic
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const BridgeCheck c = check_bridge_lines(text);
  std::uint32_t last = 0;
  bool errors = !c.general.empty();
  for (const auto& l : c.lines) {
    check(l.line > last);
    last = l.line;
    const std::string value = bridge_value(line_of(text, l.line));
    check(!value.empty() && value == l.value);
    check(bridge_value(value) == value);
    errors = errors || !l.errors.empty();
  }
  check(c.ok() == (!errors && !c.lines.empty()));
  if (c.ok()) check_setconf(c);
  return 0;
}
