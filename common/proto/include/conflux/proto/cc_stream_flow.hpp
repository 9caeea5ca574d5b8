#pragma once
// Stream flow control on circuits with congestion control: XOFF and XON
// (prop 324 section 4), as tor 0.4.9's congestion_control_flow.c does it.
// They replace stream SENDMEs, which are a protocol violation on such a
// circuit. Each stream has both halves, one per direction of its data.
//
// StreamDeliverFlow, at the edge that writes received DATA to its socket
// (the client's SOCKS side, the exit's TCP side):
//   - XOFF when the edge's output buffer holds more than the limit
//     (cc_xoff_client at clients and onion services, cc_xoff_exit at exits)
//     and still does 5 ms after it first did (tor 0.4.8.19's grace period,
//     which lets a buffer filled by one burst of cells drain first); the
//     drain-rate estimate is dropped, being wrong if it came to this;
//   - while data is buffered it measures how fast the socket drains, in
//     batches of more than cc_xon_rate bytes, and smooths the rate with an
//     N-EWMA (cc_xon_ewma_cnt) in units of 1000 bytes/s;
//   - XON when the buffer has emptied after an XOFF, carrying that rate; and
//     an advisory XON without an XOFF when the rate moved more than
//     cc_xon_change_pct percent from the one last sent; after a further
//     cc_xon_rate bytes drained with the buffer empty, the rate doubles.
// StreamPackageFlow, at the edge that reads from its socket and packages
// DATA: XOFF stops reading, XON resumes it and sets the advisory rate limit
// of its read token bucket (0 = unlimited), as tor's circuit_process_stream_xon
// adjusts the edge connection's bucket: rate and burst both the XON's rate,
// so a reader keeps up with the peer's measured drain rate, one second ahead
// at most. A second XOFF is ignored. Clients
// check that XOFF/XON do not outnumber the bytes they sent (a dropmark side
// channel): an excess one is still obeyed but reported, never fatal, as tor
// only withholds it from the "valid data" count.
//
// Time is passed in (microseconds of the steady clock, as cc_rtt.hpp).
// Counters are tor's widths, halved before they saturate.
#include <cstdint>
#include <optional>
#include <variant>

#include "conflux/cell/relay_flow_msgs.hpp"
#include "conflux/proto/cc_params.hpp"
#include "conflux/proto/cc_rtt.hpp"
#include "conflux/proto/token_bucket.hpp"

namespace conflux::proto {

// Which edge a stream is, for the limits: a client's SOCKS stream to an
// exit, either side of an onion-service stream, or an exit's TCP stream.
enum class StreamEdge : std::uint8_t { ClientToExit, OnionService, Exit };

// tor's XOFF_GRACE_PERIOD_USEC and MAX_EXPECTED_CELL_BURST.
inline constexpr std::uint64_t kXoffGracePeriodUsec = 5000;
inline constexpr std::uint32_t kMaxExpectedCellBurst = 32;

using StreamFlowMsg = std::variant<cell::XoffMsg, cell::XonMsg>;

class StreamDeliverFlow {
 public:
  StreamDeliverFlow(const CcParams& params, StreamEdge edge, const ClockHealth& clock) noexcept;

  // DATA was appended to the edge's output buffer, which now holds
  // `buffered` bytes. Returns the XOFF or advisory XON to send, if any.
  [[nodiscard]] std::optional<StreamFlowMsg> on_data_buffered(CcClock::time_point now, std::uint64_t buffered);
  // `written` bytes went from the buffer to the socket; `buffered` remain.
  [[nodiscard]] std::optional<StreamFlowMsg> on_drained(CcClock::time_point now, std::uint64_t written,
                                                        std::uint64_t buffered);

  [[nodiscard]] bool xoff_sent() const noexcept { return xoff_sent_; }
  [[nodiscard]] std::uint32_t drain_rate_kbps() const noexcept { return ewma_drain_rate_; }
  [[nodiscard]] std::uint32_t last_sent_rate_kbps() const noexcept { return ewma_rate_last_sent_; }
  [[nodiscard]] std::uint64_t xoffs_sent() const noexcept { return xoffs_sent_; }
  [[nodiscard]] std::uint64_t xons_sent() const noexcept { return xons_sent_; }
  [[nodiscard]] std::uint32_t xoff_limit_bytes() const noexcept { return xoff_limit_; }

 private:
  [[nodiscard]] std::optional<StreamFlowMsg> decide_xon(std::uint64_t now, std::uint64_t written,
                                                        std::uint64_t buffered);
  void update_drain_rate(std::uint64_t now, std::uint64_t buffered);
  [[nodiscard]] std::uint32_t compute_drain_rate(std::uint64_t now) const noexcept;
  [[nodiscard]] bool drain_rate_changed() const noexcept;
  [[nodiscard]] cell::XonMsg make_xon();

  std::uint32_t xoff_limit_;
  std::uint32_t xon_rate_bytes_;
  std::uint32_t xon_change_pct_;
  std::uint32_t xon_ewma_cnt_;
  const ClockHealth* clock_;

  bool xoff_sent_ = false;
  std::optional<std::uint64_t> grace_start_;
  std::optional<std::uint64_t> drain_start_;
  std::uint32_t drained_bytes_ = 0;
  std::uint32_t prev_drained_bytes_ = 0;
  std::uint32_t ewma_drain_rate_ = 0;
  std::uint32_t ewma_rate_last_sent_ = 0;
  std::uint64_t xoffs_sent_ = 0;
  std::uint64_t xons_sent_ = 0;
};

// Whether an XOFF/XON counts as valid protocol data (tor's return value of
// circuit_process_stream_xoff/xon). Either way the cell has been applied,
// except a repeated XOFF, which changes nothing.
enum class FlowCellVerdict : std::uint8_t { Valid, Suspicious };

class StreamPackageFlow {
 public:
  StreamPackageFlow(const CcParams& params, StreamEdge edge) noexcept;

  // May the edge be read and its data packaged? False between XOFF and XON.
  [[nodiscard]] bool may_package() const noexcept { return !xoff_received_; }
  // Bytes per second the edge's token bucket should allow, from the last
  // XON; INT32_MAX (tor's "no rate") before any XON or after XON 0.
  [[nodiscard]] std::uint32_t rate_limit_bytes_per_s() const noexcept { return rate_; }
  // How many of `wanted` bytes the edge may read now, by that bucket (all of
  // them while no XON set a rate), and how long until `n` bytes may be.
  [[nodiscard]] std::uint64_t read_allowance(CcClock::time_point now, std::uint64_t wanted) noexcept;
  [[nodiscard]] CcClock::duration read_wait(std::uint64_t n) const noexcept;

  // A DATA cell carrying `len` bytes was packaged from this stream (its
  // bytes leave the bucket: a reader packages all it read before it reads
  // again, so this is tor's charge at read time).
  void on_data_packaged(std::uint32_t len) noexcept;
  [[nodiscard]] FlowCellVerdict on_xoff() noexcept;
  [[nodiscard]] FlowCellVerdict on_xon(const cell::XonMsg& msg, CcClock::time_point now) noexcept;

  [[nodiscard]] std::uint32_t bytes_sent() const noexcept { return total_bytes_xmit_; }
  // What the read bucket holds (as of its last refill); nothing while no XON set a rate.
  [[nodiscard]] std::optional<std::uint64_t> bucket_tokens() const noexcept {
    return bucket_ ? std::optional<std::uint64_t>(bucket_->tokens()) : std::nullopt;
  }
  [[nodiscard]] std::uint8_t xoffs_received() const noexcept { return num_xoff_recv_; }
  [[nodiscard]] std::uint8_t xons_received() const noexcept { return num_xon_recv_; }

 private:
  void scale_down() noexcept;

  bool check_dropmark_;
  std::uint32_t xoff_limit_;  // what the peer's XOFF threshold is
  std::uint32_t xon_limit_;   // at least this many bytes per XON
  bool xoff_received_ = false;
  std::uint32_t rate_ = 0x7fffffff;
  std::optional<TokenBucket> bucket_;  // none: no rate (tor's INT32_MAX)
  std::uint32_t total_bytes_xmit_ = 0;
  std::uint8_t num_xoff_recv_ = 0;
  std::uint8_t num_xon_recv_ = 0;
};

}  // namespace conflux::proto
