#pragma once
// Classic fixed-window SENDME flow control (tor-spec 7.3, 7.4; no congestion
// control). Only DATA cells count against windows.
//
//   circuit: package and deliver windows start at 1000, a SENDME adds 100;
//   stream:  start at 500, a SENDME adds 50.
//
// The packaging side decrements its package window per DATA cell it sends and
// stops reading from its edges at 0; a SENDME adds one increment, and one
// that would take the window above its maximum is a protocol violation. The
// delivering side decrements its deliver window per DATA cell received (below
// zero is a violation) and owes a SENDME each time the window has fallen to
// start - increment (1000 -> 900 after the 100th cell), which restores one
// increment.
//
// Circuit-level authenticated SENDMEs (v1) are in flow_control_sendme.hpp.
#include <cstdint>

#include "conflux/bytes/result.hpp"
#include "conflux/bytes/strong_int.hpp"

namespace conflux::proto {

struct WindowParams {
  std::uint16_t start = 0;      // initial value, and the most a window may hold
  std::uint16_t increment = 0;  // one SENDME's worth
};

inline constexpr WindowParams kCircuitWindow{1000, 100};
inline constexpr WindowParams kStreamWindow{500, 50};

enum class FlowError : std::uint8_t {
  PackageWindowEmpty,      // local misuse: DATA sent with a package window of 0
  DeliverWindowUnderflow,  // the peer sent DATA beyond our deliver window
  UnexpectedSendme,        // a SENDME would take the package window above its maximum
  SendmeNoTagExpected,     // circuit SENDME while no SENDME-triggering cell is outstanding
  SendmeTagRequired,       // SENDME v0 where v1 is required
  SendmeTagBadLength,      // v1 tag that is not a 20-byte tor1 digest
  SendmeTagMismatch,       // v1 tag differs from the digest we recorded
  SendmeTagQueueFull,      // internal: more outstanding tags than the window allows
};

[[nodiscard]] const char* to_string(FlowError e) noexcept;
// Everything but local misuse is the peer's fault: tor closes the circuit
// with reason TORPROTOCOL.
[[nodiscard]] constexpr bool is_protocol_violation(FlowError e) noexcept {
  return e != FlowError::PackageWindowEmpty && e != FlowError::SendmeTagQueueFull;
}

// After sending a DATA cell: Exhausted means stop reading from the edge(s)
// until a SENDME arrives.
enum class WindowStatus : std::uint8_t { Open, Exhausted };

class PackageWindow {
 public:
  // 'initial' may be below params.start (tor's consensus circwindow); the
  // maximum a SENDME may raise the window to stays params.start.
  explicit PackageWindow(WindowParams params) noexcept : PackageWindow(params, params.start) {}
  PackageWindow(WindowParams params, std::uint16_t initial) noexcept
      : params_(params), window_(initial > params.start ? params.start : initial) {}

  [[nodiscard]] CellCount remaining() const noexcept { return CellCount{window_}; }
  [[nodiscard]] bool can_send() const noexcept { return window_ > 0; }
  // True if the next DATA cell is the one whose digest a v1 SENDME will
  // echo: the window is one above a multiple of the increment (tor's
  // sendme_cell_is_next).
  [[nodiscard]] bool next_cell_triggers_sendme() const noexcept {
    return window_ > 0 && (window_ - 1) % params_.increment == 0;
  }

  [[nodiscard]] Result<WindowStatus, FlowError> on_data_sent() noexcept;
  [[nodiscard]] Result<WindowStatus, FlowError> on_sendme() noexcept;

 private:
  WindowParams params_;
  std::uint32_t window_;
};

class DeliverWindow {
 public:
  explicit DeliverWindow(WindowParams params) noexcept : params_(params), window_(params.start) {}

  [[nodiscard]] CellCount remaining() const noexcept { return CellCount{window_}; }
  // Returns whether a SENDME is owed now (see sendme_due()).
  [[nodiscard]] Result<bool, FlowError> on_data_received() noexcept;
  // The window has fallen to start - increment or below. A stream may defer
  // its SENDME while the edge's output buffer is full (tor does); the
  // circuit sends it at once.
  [[nodiscard]] bool sendme_due() const noexcept {
    return window_ + params_.increment <= params_.start;
  }
  // Call when a SENDME is sent: adds one increment. False (and no change)
  // when none is due.
  bool take_sendme() noexcept;

 private:
  WindowParams params_;
  std::uint32_t window_;
};

}  // namespace conflux::proto
