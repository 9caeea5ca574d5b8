#pragma once
// Where first hops come from: the guard set, or with UseBridges the bridges.
// build_path asks through this interface so it never mixes the two.
#include <cstdint>
#include <functional>
#include <optional>

#include "conflux/bytes/result.hpp"
#include "conflux/path/hop.hpp"
#include "conflux/path/net_view.hpp"
#include "conflux/path/path_error.hpp"
#include "conflux/path/random.hpp"

namespace conflux::path {

// Whether a candidate first hop fits the rest of the path being built.
using HopFilter = std::function<bool(const Hop&)>;

class FirstHopSource {
 public:
  virtual ~FirstHopSource() = default;
  // The first hop for a new path among those `fits` accepts.
  [[nodiscard]] virtual Result<Hop, PathError> choose_first_hop(const NetView& net, const HopFilter& fits,
                                                                const Rng& rng, std::uint64_t now) = 0;
  // A specific first hop (to retry a Conflux leg through the same guard), if
  // it is one of ours, usable and not waiting for a retry.
  [[nodiscard]] virtual std::optional<Hop> find_first_hop(const NetView& net, const crypto::Ed25519Public& id,
                                                          std::uint64_t now) = 0;
};

}  // namespace conflux::path
