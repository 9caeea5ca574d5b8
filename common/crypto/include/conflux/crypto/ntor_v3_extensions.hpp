#pragma once
// The extension list carried as the ntor-v3 client message (CM) and server
// message (SM): prop 332 A.2 with the N_EXT count used by Tor (trunnel
// `ntorv3_extension`), prop 324 section 10 and tor-reference.md 2.3.
//
//   N_EXT u8, then N_EXT times { EXT_FIELD_TYPE u8, EXT_FIELD_LEN u8, EXT_FIELD[len] }
//
// Known types: 1 = congestion-control request (CM, empty body), 2 =
// congestion-control response (SM, one byte sendme_inc), 3 = subprotocol
// request (CM, pairs {protocol_id u8, version u8}). Unknown types are kept
// as opaque bodies (receivers must ignore them, not reject them).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "conflux/bytes/result.hpp"

namespace conflux::crypto {

enum class NtorV3ExtType : std::uint8_t {
  CcRequest = 0x01,
  CcResponse = 0x02,
  SubprotoRequest = 0x03,
};

struct NtorV3Extension {
  std::uint8_t type = 0;
  std::vector<std::uint8_t> body;  // at most 255 bytes

  friend bool operator==(const NtorV3Extension&, const NtorV3Extension&) = default;
};

enum class NtorV3ExtError : std::uint8_t {
  Truncated,      // the list ends inside an entry (or before N_EXT)
  TrailingBytes,  // bytes after the N_EXT-th entry
  TooLong,        // encode: more than 255 entries, or a body over 255 bytes
  BadBody,        // a typed helper found a body of the wrong shape
};
std::string_view to_string(NtorV3ExtError e) noexcept;

template <class T>
using NtorV3ExtResult = Result<T, NtorV3ExtError>;

// Decodes a whole CM/SM. The list must be consumed exactly.
[[nodiscard]] NtorV3ExtResult<std::vector<NtorV3Extension>> decode_ntor_v3_extensions(
    std::span<const std::uint8_t> in);
// Encodes in the given order (callers sort by type, as the spec asks).
[[nodiscard]] NtorV3ExtResult<std::vector<std::uint8_t>> encode_ntor_v3_extensions(
    std::span<const NtorV3Extension> exts);

// The first extension of `type` (later ones must be ignored), or nullptr.
[[nodiscard]] const NtorV3Extension* find_ntor_v3_extension(std::span<const NtorV3Extension> exts,
                                                            NtorV3ExtType type) noexcept;

// ---- typed helpers ----------------------------------------------------------

struct NtorV3SubprotoRequest {
  std::uint8_t protocol_id = 0;  // the subprotocol's number in tor-spec's protocol-id table
  std::uint8_t version = 0;

  friend bool operator==(const NtorV3SubprotoRequest&, const NtorV3SubprotoRequest&) = default;
};

[[nodiscard]] NtorV3Extension make_cc_request();
[[nodiscard]] NtorV3Extension make_cc_response(std::uint8_t sendme_inc);
// Fails (TooLong) past 127 pairs, which would not fit a one-byte length.
[[nodiscard]] NtorV3ExtResult<NtorV3Extension> make_subproto_request(
    std::span<const NtorV3SubprotoRequest> requests);

// Body checks for each known type; BadBody when the type is not the helper's
// or the body has the wrong shape (a CC request must be empty, a CC response
// exactly one byte, a subprotocol request an even number of bytes).
[[nodiscard]] NtorV3ExtResult<std::monostate> parse_cc_request(const NtorV3Extension& ext);
[[nodiscard]] NtorV3ExtResult<std::uint8_t> parse_cc_response(const NtorV3Extension& ext);
[[nodiscard]] NtorV3ExtResult<std::vector<NtorV3SubprotoRequest>> parse_subproto_request(
    const NtorV3Extension& ext);

}  // namespace conflux::crypto
