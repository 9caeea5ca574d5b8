#pragma once
// The verified consensus as path selection reads it: the relays, the
// bandwidth weights, and an index by identity. Built once per consensus.
#include <cstddef>
#include <map>
#include <optional>
#include <vector>

#include "conflux/dir/consensus.hpp"

namespace conflux::path {

class NetView {
 public:
  NetView() = default;
  explicit NetView(dir::ConsensusBody body);

  [[nodiscard]] const std::vector<dir::RouterEntry>& relays() const noexcept { return body_.routers; }
  [[nodiscard]] const std::optional<dir::BandwidthWeights>& weights() const noexcept {
    return body_.bandwidth_weights;
  }
  [[nodiscard]] const dir::RouterEntry* find(const crypto::Ed25519Public& id) const;
  [[nodiscard]] bool empty() const noexcept { return body_.routers.empty(); }
  [[nodiscard]] std::uint64_t valid_after() const noexcept { return body_.valid_after; }

 private:
  dir::ConsensusBody body_;
  std::map<crypto::Ed25519Public, std::size_t> index_;  // first entry wins on a (malformed) repeat
};

}  // namespace conflux::path
