#pragma once
// The runtime of a relay: it owns every channel, the circuit switch and the
// write scheduler, listens on the ORPort, opens channels for EXTEND2, and
// carries out the switch's actions.
//
//   - Inbound channels: TLS with the relay's link certificate, link handshake
//     as responder. An initiator that authenticated counts as a channel to
//     its identity and is reused for our own extends (one channel per pair
//     of relays, both directions).
//   - Outbound channels (OpenChannel): reuse an open channel to that Ed25519 (or RSA)
//     identity, join a connect already under way, or connect (link specifier
//     addresses in order, each with a timeout), then run the handshake as an
//     authenticated relay expecting that identity. A different identity
//     answers OR_IDENTITY, anything else CONNECTFAILED.
//   - A closing channel is reported to the switch at once, so the DESTROYs
//     for its circuits are queued in the same event-loop turn.
//   - Channels without circuits for `idle_timeout` are closed.
//   - Actions run in the order the switch produced them (cells are already
//     encrypted in that order), also when the exit handler answers from
//     inside a callback.
//
// Implements proto::CircuitOutput for the exit module.
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <unordered_map>
#include <vector>

#include "conflux/keys/relay_keys.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/net/clock.hpp"
#include "conflux/net/link_channel.hpp"
#include "conflux/net/log_sink.hpp"
#include "conflux/net/scheduler.hpp"
#include "conflux/proto/circuit_switch.hpp"
#include "conflux/proto/dos_guard.hpp"
#include "conflux/proto/queue_memory.hpp"
#include "conflux/proto/exit_interface.hpp"
#include "conflux/proto/token_bucket.hpp"

namespace conflux::net {

// The options the runtime needs, filled by the program from RelayOptions.
struct ChannelManagerConfig {
  std::size_t max_channels = 4096;              // MaxChannels (open + opening, both directions)
  std::size_t max_circuits_per_channel = 1024;  // MaxCircuitsPerChannel
  std::size_t max_pending_extends = 4096;
  std::chrono::milliseconds idle_timeout = std::chrono::minutes(3);
  std::chrono::milliseconds handshake_timeout = std::chrono::seconds(10);  // TLS + link handshake
  std::chrono::milliseconds connect_timeout = std::chrono::seconds(10);    // per TCP connect attempt
  std::uint64_t bandwidth_rate = 0;   // BandwidthRate, bytes/s; 0 = unlimited
  std::uint64_t bandwidth_burst = 0;  // BandwidthBurst, bytes
  std::vector<cell::NetinfoAddress> advertised_addresses;  // our addresses in NETINFO
  Channel::Limits channel_limits{};  // .priority: CircuitPriorityHalflife
  SchedulerConfig scheduler{};       // Schedulers, KISTSchedRunInterval
  // Congestion control (prop 324) for the circuits we are the edge of:
  // tor's defaults until the consensus's cc_* parameters are read.
  proto::CcParams congestion_control{};
  // The process's one ClockHealth (shared with the exit); null: the switch's own.
  proto::ClockHealth* clock_health = nullptr;
  // MaxMemInQueues in bytes (proto::choose_max_mem_in_queues); 0: no limit.
  std::uint64_t max_mem_in_queues = 0;
  // The DoS defences (DoS* options and consensus parameters), and how many
  // client addresses they keep state for.
  proto::DosParams dos{};
  std::size_t dos_max_addresses = 65536;
};

// Counters for metrics and logs. Gauges are the state now; the rest only grow.
// Every circuit the switch frees appears in circuits_destroyed_by_reason, so a
// leak shows as circuits_created - circuits_closed != circuits.
struct RuntimeCounters {
  static constexpr std::size_t kReasonSlots = 14;  // DESTROY reasons 0..12, then "other"

  std::uint64_t channels_inbound = 0;      // gauge: open, the peer connected to us
  std::uint64_t channels_outbound = 0;     // gauge: open, we connected
  std::uint64_t channels_opening = 0;      // gauge: TLS or link handshake under way
  std::uint64_t connects_pending = 0;      // gauge: TCP connects under way
  std::uint64_t circuits = 0;              // gauge: circuits in the switch
  std::uint64_t channels_opened = 0;
  std::uint64_t channels_opened_outbound = 0;  // of those, the ones we connected (we initiated the handshake)
  std::uint64_t channels_closed = 0;       // every channel, open or not
  std::uint64_t channels_closed_idle = 0;
  std::uint64_t channels_rejected = 0;     // accepts refused at MaxChannels
  std::uint64_t handshake_failures = 0;    // channels closed before their link handshake finished
  std::uint64_t connect_failures = 0;      // OpenChannel answered with a failure
  std::uint64_t circuits_created = 0;
  std::uint64_t circuits_cc = 0;           // created with congestion control negotiated
  std::array<std::uint64_t, 4> cc_slow_start_exits{};  // by proto::SlowStartExit
  std::uint64_t circuits_closed = 0;
  std::uint64_t cells_in = 0;              // circuit cells received on open channels
  std::uint64_t cells_out = 0;             // circuit cells and DESTROYs queued for sending
  std::uint64_t bytes_in = 0;              // TLS payload bytes, handshakes included
  std::uint64_t bytes_out = 0;
  std::uint64_t circuit_queue_overflows = 0;  // circuits closed with RESOURCELIMIT for a full queue
  std::uint64_t queued_bytes = 0;          // gauge: bytes in every channel's cell queues (MaxMemInQueues)
  std::uint64_t exit_buffered_bytes = 0;   // gauge: client bytes the exit holds for servers, and its Conflux reorder queues (counted too)
  std::uint64_t channel_buffered_bytes = 0;  // gauge: the channels' input and output buffers (counted too)
  std::uint64_t max_mem_in_queues = 0;     // gauge: the limit (0: none)
  std::uint64_t oom_runs = 0;              // times the limit was reached
  std::uint64_t oom_circuits_killed = 0;   // circuits closed to get back under 90% of it
  std::uint64_t oom_bytes_removed = 0;     // queued bytes those closes freed (tor_relay_load_oom_bytes_total)
  std::uint64_t dos_connections_refused = 0;  // accepts closed by the DoS defence
  proto::DosStats dos{};
  std::array<std::uint64_t, kReasonSlots> circuits_destroyed_by_reason{};
};

// A channel as the ControlPort tells it (ORCONN and orconn-status,
// control-spec 4.1.3), at the moments tor's connection_or.c tells it: NEW
// when a peer's connection is accepted, LAUNCHED when we start connecting,
// CONNECTED once the link handshake is done, FAILED when one we launched
// never opened (an inbound one that never opened is not told, as in tor),
// CLOSED when an open one closes.
struct ChannelReport {
  enum class Status { New, Launched, Connected, Failed, Closed };
  Status status = Status::New;
  std::uint64_t id = 0;  // the manager's own, stable from launch or accept to close (ORCONN's ID)
  bool outbound = false;
  std::optional<crypto::RsaFingerprint> rsa;  // expected (we connect) or proven (once open)
  std::optional<tcp::endpoint> remote;        // the peer (while connecting: the first address tried)
  std::string_view reason;                    // Failed, Closed: tor's words (DONE, CONNECTREFUSED, ...)
  std::size_t circuits = 0;                   // Failed, Closed: circuits on it, or waiting for it
  // Open, from the peer's NETINFO: the address it reached us at (tor's
  // addr_according_to_peer, which its ORPort self-test trusts).
  std::optional<cell::NetinfoAddress> our_address_seen_by_peer;
};

// Who hears of channels: every report above, and each CREATE, CREATE2 or
// CREATE_FAST that arrives on an open channel a peer made to us (the
// relay's reachability self-test, as tor's onionskin_answer counts them).
struct ChannelObserver {
  std::function<void(const ChannelReport&)> report;
  std::function<void(const ChannelReport&)> inbound_create;
};

// Our side of the link handshake, from the relay's keys.
[[nodiscard]] proto::LinkCredentials link_credentials(const keys::RelayKeys& keys);
// The switch's CREATE2 keys: ntor and ntor-v3 on the same onion keys; the
// ntor (v1) node ID is the RSA fingerprint, as tor's (SHA-1 of the RSA
// identity's PKCS#1 DER); ntor-v3's is the Ed25519 identity.
[[nodiscard]] proto::CircuitSwitchKeys circuit_switch_keys(const keys::RelayKeys& keys);
// The switch's configuration from the runtime's, with `clock` (which must
// outlive the switch) as its time source and `channel_state` telling it a
// circuit's queue on its channel towards the client.
[[nodiscard]] proto::CircuitSwitchConfig switch_config(
    const ChannelManagerConfig& config, const Clock& clock,
    std::function<proto::CcChannelState(proto::ChannelId, CircId)> channel_state = {});

class ChannelManager final : public proto::CircuitOutput, private LinkChannel::Owner {
 public:
  // `keys` must outlive the manager (new channels read the current link
  // certificates). `exit` may be null (no exit: stream messages are dropped)
  // and may be set later; it must outlive the manager or be unset first.
  ChannelManager(asio::io_context& io, const Clock& clock, const keys::RelayKeys& keys, proto::ExitHandler* exit,
                 ChannelManagerConfig config, LogSink log = {});
  // Closes every channel (no callbacks into the exit handler): peers see the
  // connections drop and destroy their circuits.
  ~ChannelManager() override;
  ChannelManager(const ChannelManager&) = delete;
  ChannelManager& operator=(const ChannelManager&) = delete;

  // Opens the ORPort and starts accepting. Returns the bound endpoint (port 0
  // picks a free one), or nullopt with `ec` set.
  std::optional<tcp::endpoint> listen(const tcp::endpoint& where, boost::system::error_code& ec);
  void stop_listening();
  void set_exit_handler(proto::ExitHandler* exit) noexcept { exit_ = exit; }
  // Closes every channel now (shutdown, tests); circuits die with CHANNEL_CLOSED.
  void close_all_channels(std::string_view reason);

  [[nodiscard]] const crypto::Ed25519Public& identity() const noexcept { return keys_.identity(); }
  [[nodiscard]] RuntimeCounters counters() const;
  [[nodiscard]] const proto::CircuitSwitch& circuit_switch() const noexcept { return switch_; }
  [[nodiscard]] Scheduler& scheduler() noexcept { return scheduler_; }
  // CircuitPriorityHalflife changed (SIGHUP): every channel's mux, and
  // the channels opened from now on.
  void set_circuit_priority(proto::CircuitPriority priority);
  // Congestion-control parameters for circuits created from now on (the
  // relay read a consensus).
  void set_cc_params(const proto::CcParams& params);
  // An open channel to this relay identity, if any (the one extends reuse).
  [[nodiscard]] std::optional<std::uint64_t> channel_to(const crypto::Ed25519Public& identity) const;
  // The circuits that run Vegas at this hop (metrics): the switch's view.
  [[nodiscard]] proto::CcCircuitsView cc_circuits(std::size_t limit) const { return switch_.cc_circuits(limit); }
  // Closes one channel by ID (tests, operator action); false if unknown.
  bool close_channel(std::uint64_t id, std::string_view reason);
  // New DoS parameters (SIGHUP, SETCONF, a consensus); the relays' addresses
  // from the consensus, never counted as clients.
  void set_dos_params(const proto::DosParams& params);
  void set_relay_addresses(std::vector<proto::DosAddress> addresses);
  [[nodiscard]] const proto::DosGuard& dos_guard() const noexcept { return dos_; }
  // ORCONN and the reachability self-test (channel_manager_reports.cpp).
  void set_observer(ChannelObserver observer) { observer_ = std::move(observer); }
  // Every channel now, connects under way included (orconn-status): NEW,
  // LAUNCHED or CONNECTED.
  [[nodiscard]] std::vector<ChannelReport> channel_reports() const;
  // MaxMemInQueues changed (SIGHUP); 0: no limit.
  void set_max_mem_in_queues(std::uint64_t bytes);
  // BandwidthRate/BandwidthBurst changed (SIGHUP, SETCONF): the token bucket
  // takes them from now on (tor's token_bucket_rw_adjust). False when the
  // relay started unlimited (rate 0): that needs a restart.
  bool set_bandwidth(std::uint64_t rate, std::uint64_t burst);

  // proto::CircuitOutput
  bool send_to_client(proto::CircuitHandle circuit, StreamId stream, const cell::RelayMsg& msg) override;
  [[nodiscard]] bool can_send_data(proto::CircuitHandle circuit) const override;
  [[nodiscard]] bool uses_congestion_control(proto::CircuitHandle circuit) const override;
  [[nodiscard]] bool blocked_on_channel(proto::CircuitHandle circuit) const override;
  [[nodiscard]] std::optional<proto::RelayCircuitFlowInfo> flow_info(proto::CircuitHandle circuit) const override;
  void close_circuit(proto::CircuitHandle circuit, cell::DestroyReason reason) override;
  [[nodiscard]] std::optional<proto::ChannelId> client_channel(proto::CircuitHandle circuit) const override;

 private:
  // What an outbound connect is filed under in connecting_: the Ed25519
  // identity when the EXTEND2 gave one, else the RSA fingerprint.
  using RelayKey = std::variant<crypto::Ed25519Public, crypto::RsaFingerprint>;
  struct Entry {
    std::shared_ptr<LinkChannel> link;
    bool outbound = false;
    bool open = false;
    std::optional<crypto::Ed25519Public> identity;  // expected (outbound) or proven
    std::optional<crypto::RsaFingerprint> rsa;      // likewise
    Clock::Monotonic::time_point last_active{};
    // A cell crossed the channel since the last idle check, which then
    // moves last_active to its own time (no clock read per cell; the idle
    // timeout is checked a few times per period anyway).
    bool active = false;
    std::optional<proto::DosAddress> peer;  // inbound: the address it came from
    bool client = false;                    // inbound and not authenticated as a relay
    bool dos_counted = false;               // counted by the DoS guard as an open client connection
    std::uint64_t orconn_id = 0;            // ChannelReport::id
    std::optional<tcp::endpoint> remote;
  };
  struct Connect {
    std::vector<std::uint64_t> requests;  // OpenChannel requests waiting for this identity
    std::optional<std::uint64_t> channel;  // set once TCP is up and the handshake runs
    std::uint64_t orconn_id = 0;           // ChannelReport::id, from the launch on
    std::optional<crypto::RsaFingerprint> rsa;
    tcp::endpoint first;                   // the first address tried
  };

  // LinkChannel::Owner
  void on_link_open(LinkChannel& link) override;
  void on_link_cell(LinkChannel& link, const cell::CellView& c) override;
  void on_link_unblocked(LinkChannel& link, std::span<const CircId> circs) override;
  void on_link_closed(LinkChannel& link, std::string_view reason) override;
  void on_link_bytes(LinkChannel& link, std::size_t n, bool inbound) override;

  awaitable<void> accept_loop(std::weak_ptr<int> life);
  // `launched`: the connect as ORCONN told it (its ID), for its last report.
  awaitable<void> connect_relay(std::weak_ptr<int> life, proto::OpenChannel o, std::vector<tcp::endpoint> endpoints,
                                Connect launched);
  LinkChannel::Params link_params(Channel::Role role, std::optional<crypto::Ed25519Public> expected,
                                  std::optional<crypto::RsaFingerprint> expected_rsa) const;
  std::shared_ptr<LinkChannel> adopt(tcp::socket socket, bool outbound, std::uint64_t orconn_id,
                                     std::optional<crypto::Ed25519Public> expected,
                                     std::optional<crypto::RsaFingerprint> expected_rsa = std::nullopt,
                                     std::optional<proto::DosAddress> peer = std::nullopt);
  // ChannelObserver's calls (channel_manager_reports.cpp).
  void report(const Entry& e, ChannelReport::Status status, std::string_view reason = {}, std::size_t circuits = 0);
  void report_connect(const Connect& c, ChannelReport::Status status, std::string_view reason = {});
  void report_connect_failed(const Connect& c, const boost::system::error_code& ec);
  void report_closed(std::uint64_t id, const Entry& e, const LinkChannel& link, std::string_view why,
                     std::size_t waiting);
  void report_create(const Entry& e, const cell::CellView& c);
  [[nodiscard]] ChannelReport report_of(const Entry& e, ChannelReport::Status status) const;
  [[nodiscard]] static ChannelReport connect_report(const Connect& c, ChannelReport::Status status);

  void run_actions();
  // The DoS defences and MaxMemInQueues (channel_manager_defences.cpp).
  [[nodiscard]] std::uint64_t dos_now() const;
  [[nodiscard]] bool dos_accept(const tcp::socket& socket, std::optional<proto::DosAddress>& peer);
  void dos_channel_open(Entry& e);
  [[nodiscard]] bool dos_refuse_create(std::uint64_t chan, const Entry& e, const cell::CellView& c);
  void dos_queue_filled(std::uint64_t chan, CircId circ);
  [[nodiscard]] bool dos_stream_allowed(const proto::DeliverStreamMessage& m);
  void check_queue_memory();
  // The channels' queued cells and the exit's stream buffers (MaxMemInQueues).
  [[nodiscard]] std::size_t queued_total() const;
  void execute(proto::SwitchAction& action);
  void send_cell(const proto::SendCell& s);
  void send_destroy(std::uint64_t chan, CircId circ, cell::DestroyReason reason);
  void open_channel(const proto::OpenChannel& o);
  void answer_waiters(const RelayKey& key, std::optional<std::uint64_t> chan, cell::DestroyReason failure);
  [[nodiscard]] std::optional<std::uint64_t> channel_to_rsa(const crypto::RsaFingerprint& rsa) const;
  // Registers an open channel under its proven identities (the first open
  // one per relay serves extends) and answers the connects waiting for it.
  void index_open_channel(std::uint64_t id, const Entry& e);
  void unindex_channel(std::uint64_t id, const Entry& e);
  void arm_idle_timer();
  void close_idle_channels();
  Entry* find(std::uint64_t id);
  // A circuit's queue on a channel, for congestion control (tor's
  // circuit_blocked_on_p_chan), with the consensus's cellq_high/cellq_low.
  [[nodiscard]] proto::CcChannelState channel_state(proto::ChannelId chan, CircId circ);
  void set_block_watermarks(proto::CircuitMux& mux) const;
  [[nodiscard]] std::size_t channels_in_use() const;
  void log(LogLevel level, std::string_view message) const;

  // Destroyed last: coroutines and handlers check it before touching `this`.
  std::shared_ptr<int> life_ = std::make_shared<int>(0);
  asio::io_context& io_;
  const Clock& clock_;
  const keys::RelayKeys& keys_;
  proto::ExitHandler* exit_;
  ChannelManagerConfig config_;
  LogSink log_;
  asio::ssl::context server_tls_;
  asio::ssl::context client_tls_;
  std::optional<proto::TokenBucket> bucket_;
  Scheduler scheduler_;
  std::shared_ptr<proto::QueueGauge> gauge_ = std::make_shared<proto::QueueGauge>();
  proto::QueueLimit queue_limit_;
  proto::DosGuard dos_;
  bool oom_running_ = false;
  proto::CircuitSwitch switch_;
  tcp::acceptor acceptor_;
  asio::steady_timer idle_timer_;

  std::unordered_map<std::uint64_t, Entry> channels_;
  std::map<crypto::Ed25519Public, std::uint64_t> by_identity_;  // open channels extends reuse
  std::map<crypto::RsaFingerprint, std::uint64_t> by_rsa_;       // the same, by RSA fingerprint
  std::map<RelayKey, Connect> connecting_;
  std::vector<proto::SwitchAction> actions_;  // run_actions' batch, in order
  // The clock read once per chunk a channel reads: the queue time of the
  // cells that chunk's cells make us send (one read per chunk, not per cell).
  Clock::Monotonic::time_point chunk_now_{};
  bool in_link_cell_ = false;  // on_link_cell is running: chunk_now_ holds
  bool draining_ = false;
  bool shutting_down_ = false;
  RuntimeCounters counters_;
  ChannelObserver observer_;
  std::uint64_t next_orconn_id_ = 1;
};

}  // namespace conflux::net
