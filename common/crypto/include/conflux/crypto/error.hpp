#pragma once
#include <stdexcept>
#include <string>

namespace conflux::crypto {

// An OpenSSL call failed in a way that valid input cannot cause (allocation
// failure, missing algorithm). Bad peer input is reported by return values,
// never by this exception.
class CryptoError : public std::runtime_error {
 public:
  explicit CryptoError(const std::string& what);
};

}  // namespace conflux::crypto
