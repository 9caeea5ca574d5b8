#pragma once
// TLS for channels. Tor does not use the TLS certificate chain to
// authenticate relays: the link handshake's CERTS cell binds the relay's
// Ed25519 identity to the SHA-256 of the TLS certificate it presented. So the
// TLS layer only needs TLS 1.3, a certificate, and the facts below.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "conflux/net/asio.hpp"

namespace conflux::net {

struct TlsIdentity {
  std::string cert_pem;
  std::string key_pem;
};

// Server side: presents `id`. Client side: presents nothing (clients and
// relays authenticate in the link protocol, not in TLS).
asio::ssl::context make_tls_server_context(const TlsIdentity& id);
asio::ssl::context make_tls_client_context();

using Sha256Digest = std::array<std::uint8_t, 32>;
std::optional<Sha256Digest> peer_certificate_digest(TlsStream& stream);
std::optional<Sha256Digest> own_certificate_digest(TlsStream& stream);
// RFC 5705 keying material exporter (the AUTHENTICATE cell binds to it).
std::optional<Sha256Digest> tls_export_keying_material(TlsStream& stream, std::string_view label,
                                                       std::span<const std::uint8_t> context);

}  // namespace conflux::net
