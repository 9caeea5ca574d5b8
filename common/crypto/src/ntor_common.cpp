#include "conflux/crypto/ntor_common.hpp"

#include "conflux/crypto/secret.hpp"

namespace conflux::crypto {

std::string_view to_string(HandshakeError e) noexcept {
  switch (e) {
    case HandshakeError::BadLength: return "bad handshake length";
    case HandshakeError::WrongNodeId: return "handshake names another node id";
    case HandshakeError::UnknownKeyId: return "unknown onion key id";
    case HandshakeError::DegenerateDh: return "degenerate Diffie-Hellman result";
    case HandshakeError::BadMac: return "client message MAC mismatch";
    case HandshakeError::BadAuth: return "server AUTH mismatch";
    case HandshakeError::Rejected: return "client message rejected";
  }
  return "unknown handshake error";
}

KeyMaterial& KeyMaterial::operator=(KeyMaterial&& other) noexcept {
  if (this != &other) {
    wipe();
    bytes_ = std::move(other.bytes_);
    other.bytes_.clear();
  }
  return *this;
}

KeyMaterial::~KeyMaterial() { wipe(); }

void KeyMaterial::wipe() noexcept {
  if (!bytes_.empty()) secure_wipe(bytes_.data(), bytes_.size());
}

}  // namespace conflux::crypto
