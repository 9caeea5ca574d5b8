#include "conflux/crypto/error.hpp"

#include <openssl/err.h>

namespace conflux::crypto {
namespace {
std::string with_openssl_reason(const std::string& what) {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return what;
  char buf[256];
  ERR_error_string_n(code, buf, sizeof buf);
  return what + ": " + buf;
}
}  // namespace

CryptoError::CryptoError(const std::string& what) : std::runtime_error(with_openssl_reason(what)) {}

}  // namespace conflux::crypto
