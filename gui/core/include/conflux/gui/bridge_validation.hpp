#pragma once
// The bridge lines a user pastes, checked as conflux-proxy --verify-config
// checks a torrc: the same parser (common/config's proxy options) and the
// same messages, reported per line of the text box. A line may start with
// "Bridge " (as torrcs and conflux-net print them) or not; blank lines and
// "#" comments are skipped. No Qt here.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace conflux::gui {

inline constexpr const char* kDefaultObfs4proxy = "/usr/bin/obfs4proxy";

struct BridgeLineCheck {
  std::uint32_t line = 0;  // 1-based line of the text
  std::string value;       // the Bridge option's value (without "Bridge ")
  std::vector<std::string> errors;  // --verify-config's messages for this line; empty: fine
};

struct BridgeCheck {
  std::vector<BridgeLineCheck> lines;  // one per bridge line, in order
  std::vector<std::string> general;    // errors that belong to no one line
  [[nodiscard]] bool ok() const noexcept;
  [[nodiscard]] bool uses_transport() const noexcept { return transport; }
  bool transport = false;  // some line names a pluggable transport (obfs4)
};

// `obfs4proxy`: the program the proxy will run for obfs4 lines
// (ClientTransportPlugin obfs4 exec PATH); lines naming another transport
// fail as they do in the proxy.
[[nodiscard]] BridgeCheck check_bridge_lines(std::string_view text, std::string_view obfs4proxy = kDefaultObfs4proxy);

// The value of one text-box line as a Bridge option, or "" for a blank or comment line.
[[nodiscard]] std::string bridge_value(std::string_view line);

}  // namespace conflux::gui
