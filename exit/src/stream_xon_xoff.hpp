#pragma once
// Private to the StreamPump: the XON/XOFF flow control of one exit stream on
// a circuit with congestion control (prop 324 section 4), where it replaces
// stream SENDMEs. Two halves, one per direction:
//
//   - up (client -> server): the bytes waiting for the server's socket. Past
//     cc_xoff_exit for the 5 ms grace period we send XOFF; once they drain
//     we send XON with the measured drain rate (proto::StreamDeliverFlow).
//   - down (server -> client): an XOFF from the client stops our reads of
//     the server's socket and the packaging of what was read; XON resumes
//     them (proto::StreamPackageFlow). The rate an XON carries sets the
//     token bucket the stream's reads of the server take their size from,
//     as tor's exit does with its edge connection's read bucket.
#include <cstdint>
#include <optional>
#include <variant>

#include "conflux/cell/relay_msg.hpp"
#include "conflux/proto/cc_params.hpp"
#include "conflux/proto/cc_rtt.hpp"
#include "conflux/proto/cc_stream_flow.hpp"

namespace conflux::exit {

class StreamXonXoff {
 public:
  StreamXonXoff(const proto::CcParams& params, const proto::ClockHealth& clock)
      : up_(params, proto::StreamEdge::Exit, clock), down_(params, proto::StreamEdge::Exit) {}

  // The client's DATA was queued for the server, which now waits for
  // `buffered` bytes: the XOFF (or advisory XON) to send, if any.
  [[nodiscard]] std::optional<cell::RelayMsg> on_queued(proto::CcClock::time_point now, std::uint64_t buffered) {
    return as_relay(up_.on_data_buffered(now, buffered));
  }
  // `written` bytes reached the server; `buffered` remain.
  [[nodiscard]] std::optional<cell::RelayMsg> on_written(proto::CcClock::time_point now, std::uint64_t written,
                                                         std::uint64_t buffered) {
    return as_relay(up_.on_drained(now, written, buffered));
  }

  [[nodiscard]] bool may_package() const noexcept { return down_.may_package(); }
  void on_packaged(std::uint32_t len) noexcept { down_.on_data_packaged(len); }
  // The client's XOFF / XON. The exit does not run tor's dropmark check
  // (that is a client's defence), so the verdict is not needed here.
  void on_xoff() noexcept { (void)down_.on_xoff(); }
  void on_xon(const cell::XonMsg& msg, proto::CcClock::time_point now) noexcept { (void)down_.on_xon(msg, now); }
  // What a read of the server may take now, of `wanted` bytes, and how long
  // until `n` bytes may be read.
  [[nodiscard]] std::uint64_t read_allowance(proto::CcClock::time_point now, std::uint64_t wanted) noexcept {
    return down_.read_allowance(now, wanted);
  }
  [[nodiscard]] proto::CcClock::duration read_wait(std::uint64_t n) const noexcept { return down_.read_wait(n); }

  [[nodiscard]] const proto::StreamDeliverFlow& up() const noexcept { return up_; }
  [[nodiscard]] const proto::StreamPackageFlow& down() const noexcept { return down_; }

 private:
  static std::optional<cell::RelayMsg> as_relay(std::optional<proto::StreamFlowMsg> m) {
    if (!m) return std::nullopt;
    return std::visit([](const auto& v) { return cell::RelayMsg{v}; }, *m);
  }

  proto::StreamDeliverFlow up_;
  proto::StreamPackageFlow down_;
};

}  // namespace conflux::exit
