#pragma once
// With UseBridges the first hop is always a configured bridge whose
// descriptor was fetched, never a consensus relay. The runtime fetches the
// descriptors (client::BridgeDirectory) and hands them over with
// set_bridges; this class chooses among them and remembers failures with the
// primary-guard retry schedule. Bridge state is not persisted.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "conflux/dir/tor_server_descriptor.hpp"
#include "conflux/path/first_hop.hpp"
#include "conflux/path/retry_schedule.hpp"

namespace conflux::path {

// A Bridge line (tor's form: the bridge is named by its RSA fingerprint)
// and what the runtime learned of it.
struct BridgeInfo {
  crypto::RsaFingerprint rsa_identity{};  // from the Bridge line
  std::optional<BridgeAddress> address;   // from the Bridge line (where we connect)
  std::optional<dir::TorServerDescriptor> descriptor;  // the verified descriptor, once fetched
  std::string fetch_error;                // the runtime's words for why there is none
  // The Ed25519 identity its descriptor gave (all zero before): how paths
  // and the runtime name the first hop.
  [[nodiscard]] crypto::Ed25519Public identity() const noexcept;
};

// How a controller names a bridge (GETINFO entry-guards, GUARD): tor's
// "$FINGERPRINT~nickname" once its descriptor is known, "$FINGERPRINT"
// before.
[[nodiscard]] std::string controller_name(const BridgeInfo& b);

class BridgeSet final : public FirstHopSource {
 public:
  explicit BridgeSet(RetrySchedule retry = RetrySchedule::primary_guards());

  // Replaces the list; failure state is kept for identities still listed.
  void set_bridges(std::vector<BridgeInfo> bridges);

  // Uniform among the bridges that are usable, reachable and fit.
  [[nodiscard]] Result<Hop, PathError> choose_first_hop(const NetView& net, const HopFilter& fits, const Rng& rng,
                                                        std::uint64_t now) override;
  [[nodiscard]] std::optional<Hop> find_first_hop(const NetView& net, const crypto::Ed25519Public& id,
                                                  std::uint64_t now) override;

  bool mark_failed(const crypto::Ed25519Public& id, std::uint64_t now);
  bool mark_succeeded(const crypto::Ed25519Public& id, std::uint64_t now);
  void mark_all_retriable();

  // A bridge as a controller sees it (GETINFO entry-guards, where tor lists
  // its bridges with UseBridges 1), in the order of the Bridge lines.
  struct Status {
    const BridgeInfo* info = nullptr;  // good until the next set_bridges
    bool confirmed = false;            // a circuit was built through it
    bool usable = false;               // its descriptor verified
    bool reachable = false;            // not failing, or due for a retry
  };
  [[nodiscard]] std::vector<Status> status(std::uint64_t now) const;

  // Bridges that could be a first hop now.
  [[nodiscard]] std::size_t usable(std::uint64_t now) const;
  // One line per bridge that cannot be used now, and why (for the log when
  // none works). Names bridges by nickname and address as configured.
  [[nodiscard]] std::vector<std::string> unusable_reasons(std::uint64_t now) const;

 private:
  struct Entry {
    BridgeInfo info;
    std::optional<std::uint64_t> failing_since;
    std::uint64_t retry_at = 0;
    bool confirmed = false;  // mark_succeeded once
  };
  // Empty when usable (ignoring reachability), else why not.
  [[nodiscard]] static std::string defect(const BridgeInfo& b);
  [[nodiscard]] static std::string label(const BridgeInfo& b);
  [[nodiscard]] bool reachable(const Entry& e, std::uint64_t now) const noexcept;
  [[nodiscard]] static Hop to_hop(const BridgeInfo& b);
  Entry* find(const crypto::Ed25519Public& id);

  RetrySchedule retry_;
  std::vector<Entry> bridges_;
};

}  // namespace conflux::path
