#pragma once
// The persistent guard set (guard-spec, simplified; docs/PATHS.md lists how).
//
// A sample of guards is drawn from the consensus by guard-position weight
// and kept in order across restarts. The primary guards are the first
// `num_primary` sampled guards that the current consensus lists as usable,
// confirmed guards (ones a circuit has been built through) ahead of the
// rest. A path's first hop is one of the first `num_entry_guards` primary
// guards that are reachable and fit the path; if no primary guard can be
// used, the next reachable sampled guard; only when too few sampled guards
// are listed and reachable does the sample grow. Constraints of one path
// never grow the sample (tor bug 40876: Conflux legs made clients use extra
// guards); they make choose_first_hop fail with NoCompatibleGuard instead.
//
// Reachability is not persisted (a restart retries every guard, as tor).
// A failed primary guard is retried on tor's primary schedule, others on
// the slower one.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "conflux/path/first_hop.hpp"
#include "conflux/path/retry_schedule.hpp"

namespace conflux::path {

struct GuardParams {
  std::size_t num_entry_guards = 1;         // NumEntryGuards
  std::size_t num_primary = 3;              // N_PRIMARY_GUARDS (raised to num_entry_guards if lower)
  std::size_t max_sample = 60;              // MAX_SAMPLE_SIZE
  std::uint64_t lifetime = 120 * 86400;     // GUARD_LIFETIME from added_on
  std::uint64_t confirmed_lifetime = 60 * 86400;  // kept this long after confirmation at least
  std::uint64_t remove_unlisted_after = 20 * 86400;  // REMOVE_UNLISTED_GUARDS_AFTER
  RetrySchedule primary_retry = RetrySchedule::primary_guards();
  RetrySchedule other_retry = RetrySchedule::other_guards();
};

// One sampled guard. The first four fields are persisted.
struct GuardRecord {
  crypto::Ed25519Public identity{};
  std::string nickname;                       // informational
  std::uint64_t added_on = 0;                 // randomised into the past, as guard-spec says
  std::optional<std::uint64_t> confirmed_on;  // first circuit built through it
  std::optional<std::uint64_t> unlisted_since;
  // Not persisted:
  std::optional<std::uint64_t> failing_since;
  std::uint64_t retry_at = 0;  // meaningful while failing_since is set
  std::uint32_t failures = 0;
  bool primary = false;  // as of the last update()
  friend bool operator==(const GuardRecord&, const GuardRecord&) = default;
};

struct GuardStatus {
  crypto::Ed25519Public identity{};
  std::string nickname;
  bool listed = false;     // usable as a guard in the current consensus
  bool primary = false;
  bool confirmed = false;
  bool reachable = false;  // listed, and not failing or due for a retry
  std::optional<std::uint64_t> retry_at;
};

class GuardSet final : public FirstHopSource {
 public:
  explicit GuardSet(GuardParams params = {});
  GuardSet(GuardParams params, std::vector<GuardRecord> records);

  // Refreshes which sampled guards the consensus lists and drops expired ones.
  void update(const NetView& net, std::uint64_t now);

  [[nodiscard]] Result<Hop, PathError> choose_first_hop(const NetView& net, const HopFilter& fits, const Rng& rng,
                                                        std::uint64_t now) override;
  [[nodiscard]] std::optional<Hop> find_first_hop(const NetView& net, const crypto::Ed25519Public& id,
                                                  std::uint64_t now) override;

  // choose_first_hop accepting every guard.
  [[nodiscard]] Result<Hop, PathError> choose_guard(const NetView& net, const Rng& rng, std::uint64_t now);

  // A channel or circuit through the guard failed / succeeded. False when
  // the identity is not a sampled guard.
  bool mark_failed(const crypto::Ed25519Public& id, std::uint64_t now);
  bool mark_succeeded(const crypto::Ed25519Public& id, std::uint64_t now);
  // Forget every failure (the network came back).
  void mark_all_retriable();

  [[nodiscard]] std::vector<GuardStatus> status(const NetView& net, std::uint64_t now) const;
  [[nodiscard]] std::vector<crypto::Ed25519Public> reachable(const NetView& net, std::uint64_t now) const;

  [[nodiscard]] const std::vector<GuardRecord>& records() const noexcept { return records_; }
  [[nodiscard]] const GuardParams& params() const noexcept { return params_; }
  // Increases whenever a persisted field changes: save when it moved.
  [[nodiscard]] std::uint64_t generation() const noexcept { return generation_; }

 private:
  [[nodiscard]] std::vector<std::size_t> ordered_listed(const NetView& net) const;
  [[nodiscard]] bool is_reachable(const GuardRecord& g, std::uint64_t now) const noexcept;
  void refresh_primary(const NetView& net);
  void grow_sample(const NetView& net, const Rng& rng, std::uint64_t now);
  void add_to_sample(const dir::RouterEntry& r, const Rng& rng, std::uint64_t now);
  // Adds one unsampled guard that `fits` accepts (by guard weight); nullopt
  // when none does or the sample is full.
  std::optional<Hop> grow_sample_fitting(const NetView& net, const HopFilter& fits, const Rng& rng,
                                         std::uint64_t now);
  GuardRecord* find(const crypto::Ed25519Public& id);

  GuardParams params_;
  std::vector<GuardRecord> records_;  // sample order
  std::uint64_t generation_ = 0;
};

}  // namespace conflux::path
