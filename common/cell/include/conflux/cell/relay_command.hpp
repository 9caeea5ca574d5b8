#pragma once
// Relay command numbers (the first byte of a decrypted relay payload).
//
// Numbers follow tor's or.h, which is authoritative: the 2023 tor-spec.txt
// lists XON as 43 and XOFF as 44, but tor and Arti use XOFF = 43, XON = 44.
#include <cstdint>
#include <string_view>

namespace conflux::cell {

enum class RelayCommand : std::uint8_t {
  Begin = 1,
  Data = 2,
  End = 3,
  Connected = 4,
  Sendme = 5,
  Extend = 6,
  Extended = 7,
  Truncate = 8,
  Truncated = 9,
  Drop = 10,
  Resolve = 11,
  Resolved = 12,
  BeginDir = 13,
  Extend2 = 14,
  Extended2 = 15,
  // 16..18 are reserved for UDP (prop 339) and not in use.
  ConfluxLink = 19,
  ConfluxLinked = 20,
  ConfluxLinkedAck = 21,
  ConfluxSwitch = 22,
  EstablishIntro = 32,
  EstablishRendezvous = 33,
  Introduce1 = 34,
  Introduce2 = 35,
  Rendezvous1 = 36,
  Rendezvous2 = 37,
  IntroEstablished = 38,
  RendezvousEstablished = 39,
  IntroduceAck = 40,
  PaddingNegotiate = 41,
  PaddingNegotiated = 42,
  Xoff = 43,
  Xon = 44,
};

// True for exactly the commands tor's is_known_relay_command() whitelists.
// A recognized cell with an unknown command is dropped (it still counts for
// digests and windows), so the header decoder keeps unknown values.
[[nodiscard]] constexpr bool is_known(RelayCommand cmd) noexcept {
  const auto v = static_cast<std::uint8_t>(cmd);
  return (v >= 1 && v <= 15) || (v >= 19 && v <= 22) || (v >= 32 && v <= 44);
}

// Commands that a Conflux set sequences and may send on any leg (tor's
// conflux_should_multiplex). Everything else, SENDME included, stays on the
// leg it belongs to.
[[nodiscard]] constexpr bool is_conflux_multiplexed(RelayCommand cmd) noexcept {
  switch (cmd) {
    case RelayCommand::Begin:
    case RelayCommand::Data:
    case RelayCommand::End:
    case RelayCommand::Connected:
    case RelayCommand::Resolve:
    case RelayCommand::Resolved:
    case RelayCommand::Xoff:
    case RelayCommand::Xon:
      return true;
    default:
      return false;
  }
}

// Upper-case name as in tor's logs ("BEGIN", "CONFLUX_LINK"), or "UNKNOWN".
[[nodiscard]] std::string_view to_string(RelayCommand cmd) noexcept;

}  // namespace conflux::cell
