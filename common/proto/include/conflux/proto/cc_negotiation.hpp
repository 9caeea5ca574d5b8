#pragma once
// Negotiating congestion control in the ntor-v3 handshake (prop 324 section
// 10), with tor 0.4.9's acceptance rules. The extension list codec and its
// typed entries are crypto/ntor_v3_extensions.hpp; this file decides.
//
//   client -> exit (CM): type 0x01, empty body: "I want congestion control".
//       A client asks only the exit hop of an exit circuit, and only when its
//       cc_alg is not 0; that choice is the caller's (it knows the path).
//   exit -> client (SM): type 0x02, body sendme_inc u8, present only when the
//       client asked and the exit's own cc_alg is not 0.
//   client: no 0x02 => fixed windows. A 0x02 it did not ask for, an empty
//       body, or a sendme_inc of 0 or more than 1 away from its own
//       cc_sendme_inc fails the handshake (prop 324 says "factor of 2"; tor's
//       code is stricter, and a stock exit always answers with the consensus
//       value, so both ends agree within one consensus change).
//
// Where tor is looser than the typed helpers, these follow tor: a request
// counts by its type whatever its body, and a response body longer than one
// byte is read by its first byte (trunnel's parse of the u8 field leaves the
// rest unread). Only the first entry of a type counts.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "conflux/bytes/result.hpp"
#include "conflux/crypto/ntor_v3_extensions.hpp"
#include "conflux/proto/cc_params.hpp"

namespace conflux::proto {

// Congestion control is on for the circuit hop, with this SENDME increment.
struct CcAgreement {
  std::uint8_t sendme_inc = 0;

  friend bool operator==(const CcAgreement&, const CcAgreement&) = default;
};

enum class CcNegotiationError : std::uint8_t {
  MalformedList,        // the CM/SM is not a well-formed extension list
  EmptyResponse,        // a 0x02 entry with no sendme_inc byte
  SendmeIncOutOfRange,  // 0, or not within 1 of our cc_sendme_inc
  Unsolicited,          // a 0x02 answer to a handshake that did not ask
};
[[nodiscard]] std::string_view to_string(CcNegotiationError e) noexcept;

// Client: the CM entries for the exit hop (none when our cc_alg is 0).
[[nodiscard]] std::vector<crypto::NtorV3Extension> cc_client_request(const CcParams& ours);

// Exit: whether the client asked, and what to answer.
struct CcExitAnswer {
  std::optional<CcAgreement> agreement;           // nullopt: fixed windows
  std::vector<crypto::NtorV3Extension> reply;     // the SM entries (0x02 or nothing)
};
[[nodiscard]] CcExitAnswer cc_exit_answer(std::span<const crypto::NtorV3Extension> request, const CcParams& ours);
// The same from the CM bytes; a malformed list refuses the handshake, as
// tor's parse failure does. `reply` is then encoded by the caller together
// with any other entries it adds (kept sorted by type).
[[nodiscard]] Result<CcExitAnswer, CcNegotiationError> cc_exit_answer(std::span<const std::uint8_t> cm,
                                                                      const CcParams& ours);

// Client: the exit's answer. `requested` is whether our CM carried 0x01.
[[nodiscard]] Result<std::optional<CcAgreement>, CcNegotiationError> cc_client_accept(
    std::span<const crypto::NtorV3Extension> response, bool requested, std::uint8_t our_sendme_inc);
[[nodiscard]] Result<std::optional<CcAgreement>, CcNegotiationError> cc_client_accept(
    std::span<const std::uint8_t> sm, bool requested, std::uint8_t our_sendme_inc);

// tor's congestion_control_validate_sendme_increment().
[[nodiscard]] constexpr bool cc_sendme_inc_acceptable(std::uint8_t offered, std::uint8_t ours) noexcept {
  return offered != 0 && offered <= ours + 1 && offered + 1 >= ours;
}

}  // namespace conflux::proto
