#pragma once
// The relay's DoS defences, sans-I/O (tor's dos.c): the runtime tells it of
// client connections, CREATE cells and BEGIN/RESOLVE requests with their
// time, and it answers whether to refuse them.
//
//   - Connections (DoSConnection*): a client address with more than
//     MaxConcurrentCount open connections, or one that opened connections
//     faster than ConnectRate/ConnectBurst (and is then marked for
//     ConnectDefenseTimePeriod), has its new connections closed at accept.
//   - Circuit creation (DoSCircuitCreation*): each CREATE from a client
//     address takes a token of its bucket (Rate per second, up to Burst);
//     an address with an empty bucket and at least MinConnections open
//     connections is marked for DefenseTimePeriod (plus a random part up to
//     half of it, so the end is not predictable), and its CREATE cells are
//     answered with DESTROY while it is marked. Filling a circuit's queue
//     (circ_max_cell_queue_size) dos_num_circ_max_outq times marks it too.
//   - Stream creation (DoSStreamCreation*, exit side, tor 0.4.9): each
//     circuit's BEGIN and RESOLVE take a token of its own bucket; an empty
//     bucket refuses the stream or closes the circuit.
//
// Only clients are counted: a peer that authenticated as a relay, or whose
// address is a relay's in the consensus (set_relay_addresses), is left
// alone, as tor does. Per-address state is bounded (max_addresses): when
// full, the addresses with no open connection that were seen least
// recently are forgotten first (tor's geoip cache is trimmed by its OOM
// handler in the same spirit). Times are whole seconds of a monotonic clock.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "conflux/proto/dos_params.hpp"

namespace conflux::proto {

// An IPv6 address, or an IPv4 one mapped into IPv6 (::ffff:a.b.c.d).
using DosAddress = std::array<std::uint8_t, 16>;
[[nodiscard]] DosAddress dos_address_v4(const std::array<std::uint8_t, 4>& v4) noexcept;

// tor's token_bucket_ctr: whole tokens refilled per elapsed second.
class SecondsBucket {
 public:
  void reset(std::uint32_t rate, std::uint32_t burst, std::uint64_t now) noexcept;
  void refill(std::uint32_t rate, std::uint32_t burst, std::uint64_t now) noexcept;
  [[nodiscard]] std::uint32_t tokens() const noexcept { return tokens_; }
  void take() noexcept {
    if (tokens_ > 0) --tokens_;
  }

 private:
  std::uint32_t tokens_ = 0;
  std::uint64_t last_ = 0;
};

enum class StreamDosVerdict : std::uint8_t { Allow, Refuse, CloseCircuit };

// What tor_relay_dos_total reports (its "type" labels).
struct DosStats {
  std::uint64_t circuit_rejected = 0;         // CREATE cells refused
  std::uint64_t marked_address = 0;           // addresses marked for circuit creation
  std::uint64_t marked_address_maxq = 0;      // ... for filling circuit queues
  std::uint64_t conn_rejected = 0;            // connections closed: address marked for its connect rate
  std::uint64_t concurrent_conn_rejected = 0; // connections closed: too many at once
  std::uint64_t stream_rejected = 0;          // BEGIN/RESOLVE refused or circuits closed for them
  std::uint64_t addresses_forgotten = 0;      // per-address state dropped at max_addresses (ours)
};

class DosGuard {
 public:
  // `random(lo, hi)` returns a number in [lo, hi] (the marking's random
  // part); unset: always lo.
  using Random = std::function<std::uint32_t(std::uint32_t lo, std::uint32_t hi)>;

  explicit DosGuard(DosParams params = {}, std::size_t max_addresses = 65536, Random random = {});

  // New parameters (SIGHUP, SETCONF, a consensus). Counts and marks stay.
  void set_params(const DosParams& params);
  [[nodiscard]] const DosParams& params() const noexcept { return params_; }
  // The relays' addresses from the consensus: never treated as clients.
  void set_relay_addresses(std::vector<DosAddress> addresses);
  [[nodiscard]] bool is_relay_address(const DosAddress& a) const { return relays_.count(a) != 0; }

  // A connection arrives from `a` (before its handshake): false = close it
  // (tor's dos_conn_addr_get_defense_type).
  [[nodiscard]] bool accept_connection(const DosAddress& a, std::uint64_t now);
  // A client connection (not a relay's) finished its handshake; true if it
  // is counted, and then client_connection_closed() must follow once.
  bool client_connection_opened(const DosAddress& a, std::uint64_t now);
  void client_connection_closed(const DosAddress& a);

  // A CREATE/CREATE2/CREATE_FAST from a client connection of `a`: true =
  // refuse it (DESTROY RESOURCELIMIT). Counts it either way.
  [[nodiscard]] bool refuse_create(const DosAddress& a, std::uint64_t now);
  // A circuit of a client connection of `a` filled its queue.
  void circuit_queue_filled(const DosAddress& a, std::uint64_t now);

  // A BEGIN or RESOLVE on `circuit` (this relay is its exit).
  [[nodiscard]] StreamDosVerdict stream_request(std::uint64_t circuit, std::uint64_t now);
  void circuit_closed(std::uint64_t circuit);

  [[nodiscard]] const DosStats& stats() const noexcept { return stats_; }
  [[nodiscard]] std::size_t addresses() const noexcept { return clients_.size(); }
  [[nodiscard]] std::size_t circuits() const noexcept { return circuits_.size(); }
  [[nodiscard]] std::uint32_t concurrent(const DosAddress& a) const;

 private:
  struct Client {
    std::uint32_t concurrent = 0;
    SecondsBucket circuits;
    std::uint64_t circuits_refilled = 0;  // 0: never filled (tor's last_circ_bucket_refill_ts)
    std::uint64_t cc_marked_until = 0;
    SecondsBucket connects;
    std::uint64_t conn_marked_until = 0;
    std::uint32_t max_outq_hits = 0;
    std::uint64_t last_seen = 0;
  };
  struct AddressHash {
    std::size_t operator()(const DosAddress& a) const noexcept;
  };

  Client* find(const DosAddress& a);
  Client* find_or_add(const DosAddress& a, std::uint64_t now);
  void forget_idle();
  void refill_circuits(Client& c, std::uint64_t now) const;
  [[nodiscard]] std::uint64_t mark_until(std::uint64_t now, std::uint32_t period) const;

  DosParams params_;
  std::size_t max_addresses_;
  Random random_;
  std::unordered_map<DosAddress, Client, AddressHash> clients_;
  std::unordered_set<DosAddress, AddressHash> relays_;
  std::unordered_map<std::uint64_t, SecondsBucket> circuits_;  // stream buckets, by circuit
  DosStats stats_;
};

}  // namespace conflux::proto
