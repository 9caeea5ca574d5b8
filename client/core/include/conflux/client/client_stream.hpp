#pragma once
// One stream of the proxy, client side: the StreamMachine (tor-spec 6.2,
// 6.3) plus what crosses between its carrier (a circuit or a Conflux set)
// and the SOCKS connection. The circuit pushes relay messages in; the SOCKS
// session reads the outcome, the received bytes, and sends DATA while flow
// control allows. Flow control is chosen when the stream attaches:
//  - stream windows (500/50) on carriers with fixed windows: the received
//    bytes are bounded by the deliver window, as the exit cannot send more
//    before our SENDME, and that SENDME waits until the application took
//    the bytes (tor's edge-backlogged rule);
//  - XON/XOFF (prop 324, cc_stream_flow.hpp) on a circuit whose exit agreed
//    to congestion control: XOFF once more than cc_xoff_client waits for the
//    application, XON with the drain rate when it has caught up; the exit's
//    XOFF stops our sending until its XON. What the exit sends after our
//    XOFF is bounded by its cwnd; past kMaxBufferedBytes the exit ignored
//    XOFF and the stream closes.
// A flow message (XON, XOFF, stream SENDME) the carrier refuses (a Conflux
// set with no leg for it and its held queue full) stays owed and goes again
// at the next chance (retry_owed(), a wake-up, a cell for the stream): a lost
// XON or SENDME would leave the exit stopped for good while the circuit works.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "conflux/cell/relay_stream_msgs.hpp"
#include "conflux/client/stream_carrier.hpp"
#include "conflux/client/wakeup.hpp"
#include "conflux/net/clock.hpp"
#include "conflux/proto/cc_stream_flow.hpp"
#include "conflux/proto/stream_state.hpp"

namespace conflux::client {

class ClientStream final : public StreamEvents {
 public:
  // Above this many undelivered bytes the stream SENDME waits for the
  // SOCKS side to catch up (one stream window's worth of cells is 249 KB).
  static constexpr std::size_t kBackloggedBytes = 64 * 1024;
  // With XON/XOFF: more than this waiting for the application means the
  // exit did not stop at our XOFF.
  static constexpr std::size_t kMaxBufferedBytes = 32 * 1024 * 1024;

  // `clock` (XON/XOFF timing) must outlive the stream.
  ClientStream(const net::asio::any_io_executor& ex, proto::StreamKind kind, const net::Clock& clock);
  ~ClientStream() override;
  ClientStream(const ClientStream&) = delete;
  ClientStream& operator=(const ClientStream&) = delete;

  // Attaches to `c` and sends `opening` (BEGIN or RESOLVE). False if the
  // carrier refused (full, closing).
  bool open_on(StreamCarrier& c, const cell::RelayMsg& opening);
  // Leaves the circuit; sends END first when the stream is still open at
  // both ends (the application closed).
  void close(cell::EndReason why = cell::EndReason::Done);

  // Outcome so far.
  [[nodiscard]] bool connected() const noexcept { return connected_; }
  [[nodiscard]] const std::optional<cell::ResolvedMsg>& resolved() const noexcept { return resolved_; }
  [[nodiscard]] const std::optional<cell::EndReason>& peer_end() const noexcept { return peer_end_; }
  [[nodiscard]] const std::optional<std::string>& circuit_gone() const noexcept { return circuit_gone_; }
  [[nodiscard]] bool failed() const noexcept { return violation_ || circuit_gone_.has_value(); }
  [[nodiscard]] StreamCarrier* circuit() const noexcept { return circuit_; }
  [[nodiscard]] StreamId id() const noexcept { return id_; }

  // Received bytes, oldest first. take_received() hands them over and may
  // send the SENDME that was held back.
  [[nodiscard]] std::size_t pending_bytes() const noexcept { return inbound_bytes_; }
  std::vector<std::uint8_t> take_received(std::size_t max);

  // Sending: how many bytes may go right now (0: wait for the wakeup).
  [[nodiscard]] bool can_send_data() const;
  // One DATA cell (at most cell::kMaxDataLen bytes). False when the windows
  // are closed or the circuit is gone.
  bool send_data(bytes::ByteSpan data);

  // Every event wakes both: the side that writes to the application and the
  // side that reads from it (one timer each, so the two never cancel each
  // other's waits).
  [[nodiscard]] Wakeup& rx_wakeup() noexcept { return wake_; }
  [[nodiscard]] Wakeup& tx_wakeup() noexcept { return tx_wake_; }
  [[nodiscard]] std::uint64_t bytes_sent() const noexcept { return bytes_sent_; }
  [[nodiscard]] std::uint64_t bytes_received() const noexcept { return bytes_received_; }
  // Set on a congestion-controlled carrier: XON/XOFF counters.
  [[nodiscard]] const std::optional<proto::StreamDeliverFlow>& deliver_flow() const noexcept { return deliver_flow_; }
  [[nodiscard]] const std::optional<proto::StreamPackageFlow>& package_flow() const noexcept { return package_flow_; }

  // Its flow-control state and its carrier's on one line (a stalled
  // stream's debug log).
  [[nodiscard]] std::string describe() const;
  // A flow message the carrier refused waits to go again (see above).
  [[nodiscard]] bool flow_owed() const noexcept { return owed_flow_.has_value() || owed_sendmes_ > 0; }
  void retry_owed();

  // StreamEvents
  void on_stream_msg(const cell::RelayMsg& msg) override;
  void on_circuit_writable() override;
  void on_circuit_closed(std::string_view why) override;

 private:
  void act(const proto::StreamActions& a);
  void on_flow_msg(const cell::RelayMsg& msg);
  void send_flow(const std::optional<proto::StreamFlowMsg>& m);
  void send_sendmes(std::size_t n);
  void on_received(const cell::DataMsg& d);
  void notify() {
    wake_.notify();
    tx_wake_.notify();
  }
  void detach();

  proto::StreamKind kind_;
  const net::Clock& clock_;
  proto::StreamMachine machine_;
  std::optional<proto::StreamDeliverFlow> deliver_flow_;  // XON/XOFF, congestion-controlled carriers only
  std::optional<proto::StreamPackageFlow> package_flow_;
  // The latest XON/XOFF decided but refused by the carrier, and stream
  // SENDMEs owed; whether the exit's last one from us was an XOFF.
  std::optional<proto::StreamFlowMsg> owed_flow_;
  std::size_t owed_sendmes_ = 0;
  bool exit_stopped_ = false;
  Wakeup wake_;
  Wakeup tx_wake_;
  StreamCarrier* circuit_ = nullptr;
  StreamId id_{0};
  bool connected_ = false;
  bool violation_ = false;
  std::optional<cell::ResolvedMsg> resolved_;
  std::optional<cell::EndReason> peer_end_;
  std::optional<std::string> circuit_gone_;
  std::deque<std::vector<std::uint8_t>> inbound_;
  std::size_t inbound_bytes_ = 0;
  std::size_t front_offset_ = 0;
  std::uint64_t bytes_sent_ = 0, bytes_received_ = 0;
};

}  // namespace conflux::client
