#pragma once
// Channel cell commands (tor-spec section 3) and the link-version rules that
// decide whether a command uses the fixed or the variable-length framing.
#include <cstdint>
#include <optional>
#include <string_view>

namespace conflux::cell {

enum class CellCommand : std::uint8_t {
  Padding = 0,
  Create = 1,
  Created = 2,
  Relay = 3,
  Destroy = 4,
  CreateFast = 5,
  CreatedFast = 6,
  Versions = 7,
  Netinfo = 8,
  RelayEarly = 9,
  Create2 = 10,
  Created2 = 11,
  PaddingNegotiate = 12,
  VPadding = 128,
  Certs = 129,
  AuthChallenge = 130,
  Authenticate = 131,
  Authorize = 132,
};

// Negotiated link protocol version. 0 means "no VERSIONS cell exchanged yet":
// the spec then frames everything with 2-byte circuit IDs, and tor treats
// 7 and >= 128 as variable-length, exactly as for v3+.
using LinkVersion = std::uint16_t;
inline constexpr LinkVersion kLinkNotNegotiated = 0;

// The command for a wire byte, or nullopt for a number tor-spec does not define.
constexpr std::optional<CellCommand> cell_command_from_u8(std::uint8_t b) noexcept {
  if (b <= 12 || (b >= 128 && b <= 132)) return static_cast<CellCommand>(b);
  return std::nullopt;
}

// Framing rule for a raw command byte, known or not (an unknown command still
// has a well-defined length, which lets a receiver drop it as the spec asks).
// v1 has no variable-length cells; v2 has only VERSIONS; v3+ and "not yet
// negotiated" use VERSIONS and every command >= 128.
constexpr bool is_variable_length_raw(std::uint8_t cmd, LinkVersion link) noexcept {
  if (link == 1) return false;
  if (link == 2) return cmd == 7;
  return cmd == 7 || cmd >= 128;
}

constexpr bool is_variable_length(CellCommand cmd, LinkVersion link) noexcept {
  return is_variable_length_raw(static_cast<std::uint8_t>(cmd), link);
}

// How the command is framed on every link we speak (v3+): the "nature" of the
// command. A command framed differently on an older link is not usable there.
constexpr bool is_variable_length_command(CellCommand cmd) noexcept {
  return is_variable_length(cmd, 3);
}

std::string_view to_string(CellCommand cmd) noexcept;

}  // namespace conflux::cell
