#pragma once
// Fake running digests and the v1 SENDMEs that echo them, for the SENDME
// tests of fixed windows and of congestion control.
#include <algorithm>
#include <cstdint>

#include "conflux/cell/relay_circuit_msgs.hpp"
#include "conflux/crypto/relay_crypto_types.hpp"

namespace conflux::test {

// A distinct fake running digest per cell number.
inline crypto::SendmeDigest digest_for(std::uint64_t n) {
  crypto::SendmeDigest d{};
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<std::uint8_t>((n >> (8 * (i % 4))) + i);
  return d;
}

inline cell::SendmeMsg v1(const crypto::SendmeDigest& d) {
  cell::SendmeTag t;
  std::copy(d.begin(), d.end(), t.bytes.begin());
  t.len = 20;
  return cell::SendmeMsg{t};
}

}  // namespace conflux::test
