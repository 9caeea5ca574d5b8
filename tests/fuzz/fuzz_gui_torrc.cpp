// The torrc conflux-gui reads back at start (gui/core settings_from_torrc):
// the proxy wrote it with SAVECONF, but it is a file a user may edit. Checks:
//  - settings read from any text have at least one bridge and 2..8 legs;
//  - the SETCONF built from them is one line (no CR or LF) whose Bridge
//    values parse back (QuotedString) to the same values, in order, and
//    whose ConfluxNumLegs is the legs read;
//  - the settings written as a torrc the way SAVECONF writes one
//    (config::to_torrc) and read again are the same settings.
#include <cstdint>
#include <string>
#include <vector>

#include "conflux/config/torrc_parser.hpp"
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
  // Written as SAVECONF writes them (config::to_torrc, quoting where needed), read again.
  conflux::config::Entries lines;
  auto add = [&lines](std::string key, std::string value) {
    conflux::config::ConfigEntry e;
    e.key = std::move(key);
    e.value = std::move(value);
    lines.push_back(std::move(e));
  };
  add("UseBridges", "1");
  for (const auto& b : s->bridges) {
    if (b.find('\0') != std::string::npos) return 0;  // to_torrc cannot write a NUL: SAVECONF neither
    add("Bridge", b);
  }
  add("ConfluxEnabled", s->conflux ? "1" : "0");
  add("ConfluxNumLegs", legs);
  const auto back = settings_from_torrc(empty_saved_torrc() + conflux::config::to_torrc(lines));
  check(back && back->bridges == s->bridges && back->conflux == s->conflux && back->conflux_legs == s->conflux_legs &&
        back->uses_transport == s->uses_transport);
  return 0;
}
