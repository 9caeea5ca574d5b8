#include "conflux/net/tls.hpp"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <stdexcept>

#include "conflux/crypto/digest.hpp"

namespace conflux::net {
namespace {

void common_settings(asio::ssl::context& ctx) {
  SSL_CTX* raw = ctx.native_handle();
  if (SSL_CTX_set_min_proto_version(raw, TLS1_3_VERSION) != 1)
    throw std::runtime_error("TLS: cannot require TLS 1.3");
  // No session resumption: each channel is a fresh link with fresh CERTS.
  SSL_CTX_set_session_cache_mode(raw, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_options(raw, SSL_OP_NO_TICKET);
  ctx.set_verify_mode(asio::ssl::verify_none);
}

std::optional<Sha256Digest> cert_digest(X509* cert) {
  if (cert == nullptr) return std::nullopt;
  int len = i2d_X509(cert, nullptr);
  if (len <= 0) return std::nullopt;
  std::vector<std::uint8_t> der(static_cast<std::size_t>(len));
  unsigned char* p = der.data();
  if (i2d_X509(cert, &p) != len) return std::nullopt;
  return crypto::sha256(der);
}

}  // namespace

asio::ssl::context make_tls_server_context(const TlsIdentity& id) {
  asio::ssl::context ctx(asio::ssl::context::tls_server);
  common_settings(ctx);
  ctx.use_certificate(asio::buffer(id.cert_pem), asio::ssl::context::pem);
  ctx.use_private_key(asio::buffer(id.key_pem), asio::ssl::context::pem);
  return ctx;
}

asio::ssl::context make_tls_client_context() {
  asio::ssl::context ctx(asio::ssl::context::tls_client);
  common_settings(ctx);
  return ctx;
}

std::optional<Sha256Digest> peer_certificate_digest(TlsStream& stream) {
  X509* cert = SSL_get1_peer_certificate(stream.native_handle());
  auto d = cert_digest(cert);
  X509_free(cert);
  return d;
}

std::optional<Sha256Digest> own_certificate_digest(TlsStream& stream) {
  return cert_digest(SSL_get_certificate(stream.native_handle()));  // not owned
}

std::optional<Sha256Digest> tls_export_keying_material(TlsStream& stream, std::string_view label,
                                                       std::span<const std::uint8_t> context) {
  Sha256Digest out{};
  if (SSL_export_keying_material(stream.native_handle(), out.data(), out.size(), label.data(), label.size(),
                                 context.data(), context.size(), 1) != 1)
    return std::nullopt;
  return out;
}

}  // namespace conflux::net
