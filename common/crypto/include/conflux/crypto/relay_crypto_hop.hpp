#pragma once
// The tor1 crypto state shared by a client and one hop of its circuit: a
// forward (client->exit: Kf, Df) and a backward (exit->client: Kb, Db) layer.
#include "conflux/crypto/relay_crypto_keys.hpp"
#include "conflux/crypto/relay_crypto_layer.hpp"

namespace conflux::crypto {

class RelayCryptoHop {
 public:
  explicit RelayCryptoHop(const RelayCryptoKeys& keys);

  [[nodiscard]] RelayCryptoLayer& forward() noexcept { return forward_; }
  [[nodiscard]] const RelayCryptoLayer& forward() const noexcept { return forward_; }
  [[nodiscard]] RelayCryptoLayer& backward() noexcept { return backward_; }
  [[nodiscard]] const RelayCryptoLayer& backward() const noexcept { return backward_; }

 private:
  RelayCryptoLayer forward_;
  RelayCryptoLayer backward_;
};

}  // namespace conflux::crypto
