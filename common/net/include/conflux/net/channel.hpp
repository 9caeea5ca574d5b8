#pragma once
// A channel: one TLS connection between two Tor nodes carrying cells.
//
// Reading: a coroutine reads, frames cells and hands each to the channel's
// owner (Events). Writing: nobody writes to the socket directly. Producers
// queue cells in the channel's CircuitMux and call cells_queued(); the
// Scheduler decides when the channel's turn comes and moves cells from the
// mux into the channel's output buffer (staged), then starts the write. One
// write is in flight at a time; bytes staged meanwhile follow it as soon as
// it completes, so a scheduler may stage cell by cell (KIST) while bounding
// the total with pending_output_bytes().
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/cell/cell_command.hpp"
#include "conflux/cell/channel_cell.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/proto/circuit_mux.hpp"

namespace conflux::net {

class Scheduler;

class Channel : public std::enable_shared_from_this<Channel> {
 public:
  enum class Role : std::uint8_t { Initiator, Responder };

  class Events {
   public:
    virtual ~Events() = default;
    // TLS is up; the link handshake (cells) starts now.
    virtual void on_tls_ready(Channel&) {}
    // Raw bytes as they cross the TLS layer, in both directions: the link
    // handshake keeps running digests of them (SLOG/CLOG).
    virtual void on_raw_bytes(Channel&, bytes::ByteSpan, bool /*inbound*/) {}
    virtual void on_cell(Channel&, const cell::CellView&) = 0;
    // Circuits whose queue drained to the low watermark (CircuitMux's
    // blocking): their edge may package DATA again. Told after the
    // scheduler's run, never from inside it.
    virtual void on_circuits_unblocked(Channel&, std::span<const CircId>) {}
    // Called once; the channel is unusable afterwards.
    virtual void on_closed(Channel&, std::string_view reason) = 0;
  };

  struct Limits {
    std::size_t read_chunk = 16 * 1024;
    std::size_t max_var_payload = 65535;
    std::size_t max_batch_bytes = 32 * proto::kWireCellLen;  // one Vanilla write at most
    proto::CircuitPriority priority{};                        // CircuitPriorityHalflife
    std::uint32_t cell_sample_every = 100;                    // cells timed for queue metrics (0: none)
    std::shared_ptr<proto::QueueGauge> gauge;                 // the relay's MaxMemInQueues count (null: none)
  };

  Channel(TlsStream stream, Role role, Scheduler& scheduler, Events& events, Limits limits);
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  ~Channel();

  // TLS handshake, then the read loop until the channel closes. Spawn it.
  awaitable<void> run();

  [[nodiscard]] Role role() const noexcept { return role_; }
  [[nodiscard]] std::uint64_t id() const noexcept { return id_; }
  [[nodiscard]] bool closed() const noexcept { return closed_; }
  [[nodiscard]] TlsStream& stream() noexcept { return stream_; }
  [[nodiscard]] cell::LinkVersion link_version() const noexcept { return link_; }
  // The link handshake sets this once VERSIONS are exchanged (and the framer
  // switches from 2-byte to 4-byte circuit IDs).
  void set_link_version(cell::LinkVersion v) noexcept { link_ = v; }
  // Longest variable-length payload the framer accepts from now on (the link
  // handshake lowers it to what its byte budget still allows).
  void set_max_var_payload(std::size_t n) noexcept { limits_.max_var_payload = n; }
  // The exact bytes of the cell being delivered, valid only inside
  // Events::on_cell (the link handshake digests them).
  [[nodiscard]] bytes::ByteSpan current_cell_bytes() const noexcept { return current_cell_; }

  [[nodiscard]] proto::CircuitMux& mux() noexcept { return mux_; }
  // Tell the scheduler this channel has something to send.
  void cells_queued();
  // Encodes and queues a channel-level cell (handshake, DESTROY, padding).
  [[nodiscard]] bool send_control(CircId circ, cell::CellCommand cmd, bytes::ByteSpan payload);

  void close(std::string_view reason);

  // The Scheduler's side of the write path.
  [[nodiscard]] bool writing() const noexcept { return writing_; }
  // Vanilla: moves up to `budget` bytes (whole cells, at most one batch)
  // from the mux into the output buffer and starts a write. Returns the
  // bytes moved (0 while a write is in flight).
  std::size_t flush_from_mux(std::size_t budget, proto::MuxTime now);
  // KIST: moves the mux's next unit (one cell, or the queued control bytes)
  // into the output buffer without writing. Returns the bytes moved.
  std::size_t stage_one(proto::MuxTime now);
  // Hands the output buffer to the kernel (after the write in flight, if any).
  void start_write();
  // Bytes we hold that the kernel has not accepted yet (staged + in flight).
  [[nodiscard]] std::size_t pending_output_bytes() const noexcept {
    return staged_.size() + (writing_ ? outbuf_.size() : 0);
  }
  // The TCP socket's descriptor for kernel queries (-1 once closed).
  [[nodiscard]] int native_socket() noexcept;

 private:
  awaitable<void> read_loop();
  std::size_t pop_one(proto::MuxTime now);
  void report_unblocked();
  void on_write_done(const boost::system::error_code& ec, std::size_t n);
  // Brings the gauge's channel_buffer_bytes to what this channel's buffers
  // hold now (nothing once closed).
  void account_buffers() noexcept;

  TlsStream stream_;
  Role role_;
  Scheduler& scheduler_;
  Events& events_;
  Limits limits_;
  std::uint64_t id_;
  cell::LinkVersion link_ = cell::kLinkNotNegotiated;
  proto::CircuitMux mux_;
  std::vector<std::uint8_t> inbuf_;
  bytes::ByteSpan current_cell_;
  std::vector<std::uint8_t> outbuf_;  // the batch being written
  std::vector<std::uint8_t> staged_;  // waiting for the write in flight
  std::vector<proto::CellSample> staged_samples_;  // the sampled cells in staged_
  std::vector<CircId> unblocked_;  // since the last report_unblocked (at most one per cell popped)
  bool writing_ = false;
  bool closed_ = false;
  std::size_t accounted_ = 0;  // this channel's share of limits_.gauge->channel_buffer_bytes
};

}  // namespace conflux::net
