#pragma once
// The HTTP paths of the directory, served on a relay's DirPort (plain
// HTTP/1.1; every document is signed, so the transport needs no integrity
// of its own): tor's paths, and the one path of our authorities' signature
// exchange. Our JSON documents' paths (/conflux/v1/consensus, .../descriptor
// and the rest) retired with them (issue 15): a 404, as any unknown path.
#include <cstddef>
#include <string_view>

namespace conflux::dir {

// tor's paths (dir-spec appendix B), served by an authority that has tor
// keys; the consensus path may carry "/FP+FP..." (authorities the client
// wants signatures from), the micro and fp paths end in their list.
inline constexpr std::string_view kTorKeysAll = "/tor/keys/all";
inline constexpr std::string_view kTorKeysAuthority = "/tor/keys/authority";
inline constexpr std::string_view kTorKeysFpPrefix = "/tor/keys/fp/";  // + HEX[+HEX...]
inline constexpr std::string_view kTorKeysFpSkPrefix = "/tor/keys/fp-sk/";  // + HEX-HEX[+HEX-HEX...]
inline constexpr std::string_view kTorConsensusMicrodesc = "/tor/status-vote/current/consensus-microdesc";
inline constexpr std::string_view kTorConsensusNs = "/tor/status-vote/current/consensus";  // the ns flavor
inline constexpr std::string_view kTorMicrodescPrefix = "/tor/micro/d/";  // + D1-D2-... (base64 SHA-256)
// relay -> authority: a tor server descriptor (text/plain), as tor's relays upload
inline constexpr std::string_view kTorUpload = "/tor/";
inline constexpr std::string_view kTorServerAll = "/tor/server/all";
inline constexpr std::string_view kTorServerDPrefix = "/tor/server/d/";    // + D1+D2... (hex SHA-1 digests)
inline constexpr std::string_view kTorServerFpPrefix = "/tor/server/fp/";  // + F1+F2... (hex RSA fingerprints)
// authority -> authority: a tor-format consensus signature (tor_authority_state.hpp)
inline constexpr std::string_view kTorConsensusSignature = "/conflux/v1/tor-consensus-signature";
inline constexpr std::size_t kMaxTorSignatureBody = 16384;

}  // namespace conflux::dir
