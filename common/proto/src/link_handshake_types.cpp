#include "conflux/proto/link_handshake_types.hpp"

namespace conflux::proto {

std::string_view to_string(LinkFailure f) noexcept {
  switch (f) {
    case LinkFailure::MalformedCell: return "malformed cell";
    case LinkFailure::UnexpectedCell: return "unexpected cell";
    case LinkFailure::DuplicateCell: return "duplicate handshake cell";
    case LinkFailure::NoCommonVersion: return "no common link protocol version";
    case LinkFailure::MissingCert: return "missing certificate";
    case LinkFailure::BadCert: return "bad certificate";
    case LinkFailure::ExpiredCert: return "expired certificate";
    case LinkFailure::IdentityMismatch: return "peer identity is not the expected one";
    case LinkFailure::TlsCertMismatch: return "TLS certificate not certified by the peer";
    case LinkFailure::NoAuthMethod: return "no common authentication method";
    case LinkFailure::BadAuthenticate: return "malformed AUTHENTICATE";
    case LinkFailure::AuthFieldMismatch: return "AUTHENTICATE field mismatch";
    case LinkFailure::NoExporter: return "no TLS exporter value";
    case LinkFailure::BadAuthSignature: return "bad AUTHENTICATE signature";
    case LinkFailure::MissingAuthenticate: return "CERTS without AUTHENTICATE";
    case LinkFailure::SelfConnection: return "connected to ourselves";
    case LinkFailure::TooLarge: return "handshake too large";
    case LinkFailure::NotStarted: return "cell before the handshake started";
    case LinkFailure::Internal: return "internal error";
  }
  return "unknown link failure";
}

}  // namespace conflux::proto
