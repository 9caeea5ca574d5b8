#pragma once
// ORCONN events and GETINFO orconn-status lines (control-spec 4.1.3, 3.9),
// written as tor's control_event_or_conn_status and getinfo_helper_events
// write them, for the proxy's channels and the relay's alike:
//   650 ORCONN TARGET STATUS [REASON=R] [NCIRCS=N] ID=N
// TARGET as tor's orconn_target_get_name: "$FINGERPRINT~nickname" for a
// relay the consensus lists, "$FINGERPRINT" for an identity it does not,
// else the peer's "ADDRESS:PORT" (an inbound connection before it proved an
// identity; a client never does).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace conflux::control {

enum class OrConnStatus { New, Launched, Connected, Failed, Closed };

// "NEW", "LAUNCHED", "CONNECTED", "FAILED", "CLOSED".
[[nodiscard]] std::string_view orconn_status_word(OrConnStatus s);

struct OrConnTarget {
  std::optional<std::array<std::uint8_t, 20>> rsa;  // the RSA identity, expected or proven
  std::optional<std::string> nickname;               // the consensus's, when it lists that identity
  std::string address;                               // "ADDR:PORT" or "[ADDR]:PORT"; empty when unknown
};

[[nodiscard]] std::string orconn_target_name(const OrConnTarget& t);

// The event's text after "650 ": REASON when one is given (tor's words:
// DONE, CONNECTREFUSED, IDENTITY, ...), NCIRCS only on FAILED and CLOSED and
// only when circuits were on (or waiting for) the connection.
[[nodiscard]] std::string orconn_event(std::string_view target, OrConnStatus s, std::string_view reason,
                                       std::size_t circuits, std::uint64_t id);

// One orconn-status line: "TARGET STATUS" (CONNECTED once open, LAUNCHED
// for one we are making, NEW for one a peer is making).
[[nodiscard]] std::string orconn_status_line(std::string_view target, OrConnStatus s);

}  // namespace conflux::control
