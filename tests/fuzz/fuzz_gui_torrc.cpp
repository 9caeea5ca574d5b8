// The torrc conflux-gui reads back at start (gui/core settings_from_torrc):
// the proxy wrote it with SAVECONF, but it is a file a user may edit. Checks:
//  - settings read from any text have at least one bridge and 2..8 legs;
//  - the SETCONF built from them is one line (no CR or LF) whose Bridge
//    values parse back (QuotedString) to the same values, in order, and
//    whose ConfluxNumLegs is the legs read;
//  - the settings written as a torrc (Bridge lines, UseBridges, Conflux)
//    and read again are the same settings.
#include <cstdint>
#include <string>
#include <vector>

#include "conflux/control/control_args.hpp"
#include "conflux/gui/proxy_torrc.hpp"

namespace {

using namespace conflux::gui;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto s = settings_from_torrc(text);
  if (!s) return 0;
  check(!s->bridges.empty() && s->conflux_legs >= 2 && s->conflux_legs <= 8);
  const std::string cmd = settings_setconf(*s);
  check(cmd.find('\r') == std::string::npos && cmd.find('\n') == std::string::npos);
  auto args = conflux::control::parse_control_args(std::string_view(cmd).substr(8));
  check(args.has_value());
  std::vector<std::string> bridges;
  std::string legs;
  for (const auto& a : *args) {
    if (a.key && *a.key == "Bridge") bridges.push_back(a.value);
    if (a.key && *a.key == "ConfluxNumLegs") legs = a.value;
  }
  check(bridges == s->bridges && legs == std::to_string(s->conflux_legs));
  // Written the way SAVECONF writes them, read again.
  std::string again = empty_saved_torrc() + "UseBridges 1\n";
  for (const auto& b : s->bridges) {
    if (b.find_first_of("\r\n\\#\"") != std::string::npos) return 0;  // a torrc line would quote or cut it
    again += "Bridge " + b + "\n";
  }
  again += std::string("ConfluxEnabled ") + (s->conflux ? "1" : "0") + "\nConfluxNumLegs " + legs + "\n";
  const auto back = settings_from_torrc(again);
  check(back && back->bridges == s->bridges && back->conflux == s->conflux && back->conflux_legs == s->conflux_legs &&
        back->uses_transport == s->uses_transport);
  return 0;
}
