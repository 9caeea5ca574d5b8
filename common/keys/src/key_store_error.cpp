#include "conflux/keys/key_store_error.hpp"

namespace conflux::keys {

std::string_view to_string(KeyStoreErrorKind k) noexcept {
  switch (k) {
    case KeyStoreErrorKind::Io: return "i/o error";
    case KeyStoreErrorKind::NotADirectory: return "not a directory";
    case KeyStoreErrorKind::WrongOwner: return "owned by another user";
    case KeyStoreErrorKind::InsecureDirectory: return "insecure directory permissions";
    case KeyStoreErrorKind::InsecureFile: return "insecure key file permissions";
    case KeyStoreErrorKind::BadKeyFile: return "malformed key file";
    case KeyStoreErrorKind::Mismatch: return "key files do not match";
  }
  return "unknown key store error";
}

std::string KeyStoreError::message() const {
  std::string m = path;
  m += ": ";
  m += detail.empty() ? std::string(to_string(kind)) : detail;
  return m;
}

}  // namespace conflux::keys
