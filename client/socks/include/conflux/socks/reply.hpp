#pragma once
// Replies the proxy writes after a request: the outcome of a CONNECT, the
// answer to a RESOLVE/RESOLVE_PTR, and tor's mapping from a stream's END
// reason to a SOCKS5 reply code.
#include <cstdint>
#include <vector>

#include "conflux/cell/relay_stream_msgs.hpp"
#include "conflux/socks/types.hpp"

namespace conflux::socks {

// SOCKS5: VER=5 REP RSV=0 ATYP BND.ADDR BND.PORT. `bound` may be null, or a
// hostname that does not fit (empty or above 255 bytes): then 0.0.0.0:0
// (ATYP 1), which is what tor always sends for CONNECT.
// SOCKS4: VN=0, CD=90 for Succeeded and 91 for anything else, DSTPORT and
// DSTIP from an IPv4 `bound` (else zeros, as tor).
std::vector<std::uint8_t> encode_reply(Version version, Reply reply,
                                       const Address* bound = nullptr,
                                       std::uint16_t port = 0);

// A successful RESOLVE (an IPv4 or IPv6 answer) or RESOLVE_PTR (a hostname
// answer, ATYP 3) reply, port 0 (tor's connection_ap_handshake_socks_resolved).
// SOCKS4 can carry only IPv4: other answers give 91. A hostname that does
// not fit one length byte gives SOCKS5 host unreachable. The answer's TTL is
// not part of SOCKS.
std::vector<std::uint8_t> encode_resolve_reply(Version version, const Address& answer);

// tor's stream_end_reason_to_socks5_response for the reasons of a RELAY_END
// received before the stream opened (see docs/SOCKS.md for the table).
Reply reply_for_end_reason(cell::EndReason reason) noexcept;

// What a client that spoke HTTP to the SOCKS port gets (tor answers the
// same way, with a longer HTML page): an HTTP/1.0 501 with a short text.
std::vector<std::uint8_t> http_not_a_proxy_response();

}  // namespace conflux::socks
