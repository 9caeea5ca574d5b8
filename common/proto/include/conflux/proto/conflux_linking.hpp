#pragma once
// Linking legs into a set (prop 329 section 2.4): the client sends LINK with
// the set's 32-byte nonce on each leg, the exit answers LINKED, the client
// answers LINKED_ACK. Time is injected: every call takes 'now', deadlines are
// values the caller polls with expired().
//
// ClientLinker: one per set at the client. Counts leg launches against a
// budget (legs + retries, tor's guard-discovery defence), checks each LINKED
// (on a leg that sent LINK and has no answer yet, nonce compared in constant
// time: tor compared 1 byte until 0.4.9.6), measures the LINK->LINKED RTT
// and gives the LINKED_ACK to send. A leg without LINKED by its deadline is
// reported by expired() (tor has no such timer).
//
// ExitLinkRegistry: one per exit. Finds or creates the set for each LINK by
// nonce (constant-time compare against every set), links the leg at once
// (BEGIN on a fast leg may overtake the slow leg's LINKED_ACK, prop 329
// 2.4.2), and caps sets and legs per origin (the caller's notion: the exit
// sees only the previous hop, so typically the channel the LINK came on),
// sets overall and legs per set. Exactly one LINKED_ACK per leg, before its
// deadline (tor accepts any number, whenever).
//
// The nonce is a secret: nothing here logs it, and there is no accessor that
// would tempt a caller to.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "conflux/cell/relay_conflux_msgs.hpp"
#include "conflux/proto/conflux_resync.hpp"
#include "conflux/proto/conflux_types.hpp"

namespace conflux::proto {

using ConfluxNonce = std::array<std::uint8_t, cell::kConfluxNonceLen>;

struct ClientLinkConfig {
  std::size_t legs_per_set = 2;            // cfx_num_legs_set
  std::size_t max_leg_retries = 3;         // cfx_max_unlinked_leg_retry
  std::size_t max_legs = 8;                // cfx_max_legs_set
  ConfluxClock::duration linked_timeout = std::chrono::seconds(30);
};

struct ClientLinked {
  LinkNumbers peer;
  cell::ConfluxUx peer_ux = cell::ConfluxUx::NoOpinion;
  // The exit is one of ours: it resends and takes relinks (its LINKED
  // said so). A tor exit does neither, and its set must not be used
  // before every leg linked (tor-reference.md 1.4.1).
  bool peer_resumes = false;
  ConfluxClock::duration rtt{};
  cell::ConfluxLinkedAckMsg ack;  // send it on the same leg
};

class ClientLinker {
 public:
  ClientLinker(const ConfluxNonce& nonce, ClientLinkConfig config = {}) noexcept
      : nonce_(nonce), config_(config) {}

  // Before building a leg's circuit (tor counts the launch first, bug 40811).
  ConfluxResult<ConfluxOk> note_launch() noexcept;
  [[nodiscard]] bool launch_budget_left() const noexcept;

  // The leg's circuit is open: the LINK to send on it.
  ConfluxResult<cell::ConfluxLinkMsg> start_leg(LegId leg, LinkNumbers ours, cell::ConfluxUx ux, ConfluxTime now);
  // A LINK again on a leg already linked into the set (a surviving leg that
  // is to carry a dead leg's cells): it waits for LINKED like a new leg, and
  // takes no launch.
  ConfluxResult<cell::ConfluxLinkMsg> start_relink(LegId leg, LinkNumbers ours, cell::ConfluxUx ux,
                                                   ConfluxTime now);
  ConfluxResult<ClientLinked> on_linked(LegId leg, const cell::ConfluxLinkedMsg& msg, ConfluxTime now);
  // Legs whose LINKED is overdue; they are forgotten here, the caller closes them.
  std::vector<LegId> expired(ConfluxTime now);
  [[nodiscard]] std::optional<ConfluxTime> next_deadline() const noexcept;
  void leg_closed(LegId leg) noexcept { legs_.erase(leg); }

  [[nodiscard]] std::size_t pending_legs() const noexcept;
  [[nodiscard]] std::size_t linked_legs() const noexcept;
  // All launched legs linked (tor's set finalisation on the client).
  [[nodiscard]] bool all_linked() const noexcept { return !legs_.empty() && pending_legs() == 0; }

 private:
  struct Leg {
    bool linked = false;
    ConfluxTime sent{};
    ConfluxTime deadline{};
  };
  ConfluxNonce nonce_;
  ClientLinkConfig config_;
  std::size_t launches_ = 0;
  std::map<LegId, Leg> legs_;
};

using OriginKey = std::uint64_t;

struct ExitLinkConfig {
  std::size_t max_sets = 4096;
  std::size_t max_sets_per_origin = 32;
  std::size_t max_legs_per_origin = 128;
  std::size_t max_legs_per_set = 8;  // cfx_max_legs_set
  // LINKs on legs already linked (a client moving a dead leg's cells onto a
  // surviving one): each resets a leg's numbering, so a set gets a bounded
  // number. A correct client needs one per leg it loses.
  std::size_t max_relinks_per_set = 64;
  ConfluxClock::duration linked_ack_timeout = std::chrono::seconds(30);
  // Say so in LINKED (cell::kConfluxExtResumption). Off only to play a tor
  // exit in tests.
  bool offer_resumption = true;
};

struct ExitLinked {
  SetId set{};
  bool new_set = false;  // the caller creates the set's sender and receiver
  bool relink = false;   // a leg already in the set: ConfluxSet::relink_leg
  LinkNumbers peer;
  cell::ConfluxUx peer_ux = cell::ConfluxUx::NoOpinion;
};

struct ExitLegRemoved {
  SetId set{};
  bool set_empty = false;  // the set is gone from the registry (never while held)
};

class ExitLinkRegistry {
 public:
  explicit ExitLinkRegistry(ExitLinkConfig config = {}) noexcept : config_(config) {}

  // LINK on 'leg' (exit circuit IDs are unique at the exit) from 'origin'.
  // On a leg already linked it is a relink: accepted once the leg's
  // LINKED_ACK came, with the set's own nonce, within max_relinks_per_set;
  // otherwise UnexpectedLink (NonceMismatch for another set's nonce).
  ConfluxResult<ExitLinked> on_link(OriginKey origin, LegId leg, const cell::ConfluxLinkMsg& msg);
  // The LINKED to send after on_link; starts the LINKED_ACK deadline.
  ConfluxResult<cell::ConfluxLinkedMsg> make_linked(LegId leg, LinkNumbers ours, ConfluxTime now);
  // Returns the LINKED->LINKED_ACK RTT.
  ConfluxResult<ConfluxClock::duration> on_linked_ack(LegId leg, ConfluxTime now);
  // Legs whose LINKED_ACK is overdue (still registered: the caller closes
  // them and calls remove_leg).
  [[nodiscard]] std::vector<LegId> expired(ConfluxTime now) const;
  std::optional<ExitLegRemoved> remove_leg(LegId leg);
  // Keeps the set (and its nonce) registered when its last leg is removed,
  // so that a replacement leg's LINK still finds it: the join point holds a
  // set while it waits for one. A held set still counts against its
  // creator's cap. forget_set() ends it.
  void hold(SetId set) noexcept;
  // Forgets the set and every leg still registered to it (the set closed).
  void forget_set(SetId set);

  [[nodiscard]] std::optional<SetId> set_of(LegId leg) const noexcept;
  [[nodiscard]] std::size_t set_count() const noexcept { return sets_.size(); }
  [[nodiscard]] std::size_t origin_sets(OriginKey origin) const noexcept;
  [[nodiscard]] std::size_t origin_legs(OriginKey origin) const noexcept;

 private:
  enum class AckState : std::uint8_t { NotSent, Awaiting, Acked };
  struct Leg {
    SetId set{};
    OriginKey origin = 0;
    AckState ack = AckState::NotSent;
    ConfluxTime linked_sent{};
    ConfluxTime deadline{};
  };
  struct Set {
    ConfluxNonce nonce{};
    OriginKey creator = 0;
    std::size_t legs = 0;
    bool held = false;
    std::size_t relinks = 0;
  };
  ConfluxResult<ExitLinked> on_relink(LegId leg, const cell::ConfluxLinkMsg& msg);
  std::optional<SetId> find_set(const ConfluxNonce& nonce) const noexcept;
  void erase_set(std::map<SetId, Set>::iterator it) noexcept;

  ExitLinkConfig config_;
  std::map<SetId, Set> sets_;
  std::map<LegId, Leg> legs_;
  std::map<OriginKey, std::size_t> origin_sets_;
  std::map<OriginKey, std::size_t> origin_legs_;
  std::uint64_t next_set_ = 1;
};

}  // namespace conflux::proto
