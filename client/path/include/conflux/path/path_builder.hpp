#pragma once
// build_path: the relays of one circuit. Order of choice: the first hop
// (guard or bridge), then the exit among relays compatible with it, then
// the middles compatible with both (docs/PATHS.md says why this differs from
// tor's exit-first order).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "conflux/bytes/result.hpp"
#include "conflux/path/first_hop.hpp"
#include "conflux/path/hop.hpp"
#include "conflux/path/net_view.hpp"
#include "conflux/path/path_error.hpp"
#include "conflux/path/random.hpp"
#include "conflux/path/relay_rules.hpp"

namespace conflux::path {

inline constexpr std::size_t kMaxHops = 8;

struct PathOptions {
  // The exit must allow this port; without one the exit is chosen for a
  // preemptive circuit (allowing 80 and 443 preferred).
  std::optional<std::uint16_t> port;
  std::set<crypto::Ed25519Public> exclude;        // in no position (e.g. other Conflux legs' guard and middle)
  std::set<crypto::Ed25519Public> exclude_exits;  // not as the exit (refused this stream already)
  std::optional<crypto::Ed25519Public> first_hop; // this guard/bridge (retry a leg through the same guard)
  std::optional<crypto::Ed25519Public> exit;      // this exit (Conflux: every leg ends at the same exit)
  // Relays that could not be reached from the hop before them lately: not
  // chosen as middle or exit while another relay fits.
  std::set<crypto::Ed25519Public> avoid;
  std::size_t num_hops = 3;                       // 1..kMaxHops; 1 = the first hop alone
  // A Conflux leg: the exit must take legs (usable_as_conflux_exit), as
  // tor's CRN_CONFLUX with NEED_UPTIME and NEED_CAPACITY.
  bool conflux = false;
};

struct Path {
  std::vector<Hop> hops;  // first hop .. exit
  [[nodiscard]] const Hop& first() const { return hops.front(); }
  [[nodiscard]] const Hop& last() const { return hops.back(); }
};

[[nodiscard]] Result<Path, PathError> build_path(const NetView& net, FirstHopSource& first_hops,
                                                 const PathOptions& options, const SelectionRules& rules,
                                                 const Rng& rng, std::uint64_t now);

// The exit step alone (also used by build_path): weighted among relays
// usable as exits for `port` (and Conflux legs, with `conflux`), not
// excluded, compatible with every hop in `with`.
[[nodiscard]] Result<Hop, PathError> choose_exit(const NetView& net, std::optional<std::uint16_t> port,
                                                 const std::set<crypto::Ed25519Public>& exclude,
                                                 const std::vector<Hop>& with, const SelectionRules& rules,
                                                 const Rng& rng, bool conflux = false);

}  // namespace conflux::path
