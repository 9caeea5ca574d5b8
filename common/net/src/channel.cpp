#include "conflux/net/channel.hpp"

#include <algorithm>
#include <atomic>
#include <utility>
#include <variant>

#include "conflux/net/scheduler.hpp"

namespace conflux::net {
namespace {
std::uint64_t next_channel_id() {
  static std::atomic<std::uint64_t> next{1};
  return next++;
}
proto::CircuitMuxLimits mux_limits(const Channel::Limits& limits) {
  proto::CircuitMuxLimits m;
  m.gauge = limits.gauge;
  return m;
}

}  // namespace

Channel::Channel(TlsStream stream, Role role, Scheduler& scheduler, Events& events, Limits limits)
    : stream_(std::move(stream)),
      role_(role),
      scheduler_(scheduler),
      events_(events),
      limits_(limits),
      id_(next_channel_id()),
      mux_(mux_limits(limits), limits.priority) {
  mux_.set_sampling(limits.cell_sample_every);
}

Channel::~Channel() {
  closed_ = true;
  account_buffers();
}

void Channel::account_buffers() noexcept {
  const std::size_t held = closed_ ? 0 : inbuf_.size() + staged_.size() + (writing_ ? outbuf_.size() : 0);
  if (limits_.gauge) {
    auto& total = limits_.gauge->channel_buffer_bytes;
    total = total - std::min(total, accounted_) + held;
  }
  accounted_ = held;
}

awaitable<void> Channel::run() {
  auto self = shared_from_this();  // keeps the channel alive while the coroutine runs
  auto [ec] = co_await stream_.async_handshake(
      role_ == Role::Initiator ? asio::ssl::stream_base::client : asio::ssl::stream_base::server, use_nothrow);
  if (ec) {
    close("TLS handshake failed");
    co_return;
  }
  if (closed_) co_return;
  events_.on_tls_ready(*this);
  co_await read_loop();
}

awaitable<void> Channel::read_loop() {
  std::vector<std::uint8_t> chunk(limits_.read_chunk);
  while (!closed_) {
    auto [ec, n] = co_await stream_.async_read_some(asio::buffer(chunk), use_nothrow);
    if (ec) {
      close(ec == asio::error::eof || ec == asio::ssl::error::stream_truncated ? "closed by peer" : "read error");
      co_return;
    }
    bytes::ByteSpan got(chunk.data(), n);
    events_.on_raw_bytes(*this, got, true);
    // Cells are framed where they lie: in the chunk itself when no partial
    // cell is left from the last read (the usual case on a busy channel), so
    // a cell is not copied into inbuf_ first; else in inbuf_, after the rest.
    const bool in_chunk = inbuf_.empty();
    if (!in_chunk) inbuf_.insert(inbuf_.end(), got.begin(), got.end());
    const bytes::ByteSpan data = in_chunk ? got : bytes::ByteSpan(inbuf_);
    account_buffers();

    std::size_t used = 0;
    while (!closed_) {
      auto framed = cell::frame_cell(data.subspan(used), link_, cell::FramerLimits{limits_.max_var_payload});
      if (std::holds_alternative<cell::NeedMore>(framed)) break;
      if (auto* err = std::get_if<cell::FrameError>(&framed)) {
        // A cell we cannot frame means the peer does not speak our protocol:
        // that closes this channel only.
        (void)err;
        close("unframeable cell");
        co_return;
      }
      auto& ok = std::get<cell::Framed>(framed);
      current_cell_ = data.subspan(used, ok.consumed);
      used += ok.consumed;
      events_.on_cell(*this, ok.cell);
      current_cell_ = {};
    }
    if (in_chunk) {
      inbuf_.assign(data.begin() + static_cast<std::ptrdiff_t>(used), data.end());
    } else {
      inbuf_.erase(inbuf_.begin(), inbuf_.begin() + static_cast<std::ptrdiff_t>(used));
    }
    account_buffers();
  }
}

void Channel::cells_queued() {
  if (!closed_) scheduler_.notify(shared_from_this());
}

bool Channel::send_control(CircId circ, cell::CellCommand cmd, bytes::ByteSpan payload) {
  if (closed_) return false;
  // Before VERSIONS completes the channel speaks 2-byte circuit IDs.
  auto encoded = cell::encode_cell(link_, circ, cmd, payload);
  if (!encoded || mux_.push_control(*encoded) != proto::MuxPush::Queued) return false;
  cells_queued();
  return true;
}

std::size_t Channel::flush_from_mux(std::size_t budget, proto::MuxTime now) {
  if (closed_ || writing_) return 0;
  std::size_t limit = std::min(budget, limits_.max_batch_bytes);
  std::size_t moved = 0;
  // Whole cells only while a whole cell still fits the budget: the bucket
  // cannot go below zero, so overshooting here would raise the real rate.
  // (The scheduler calls with at least one cell's worth.)
  do {
    std::size_t n = pop_one(now);
    if (n == 0) break;
    moved += n;
  } while (moved + proto::kWireCellLen <= limit);
  start_write();
  return moved;
}

std::size_t Channel::stage_one(proto::MuxTime now) {
  if (closed_) return 0;
  return pop_one(now);
}

std::size_t Channel::pop_one(proto::MuxTime now) {
  std::size_t n = mux_.pop_into(staged_, now);
  account_buffers();
  // Bounded: at most one sample per staged cell.
  if (auto queued = mux_.last_popped_sample()) staged_samples_.push_back(*queued);
  if (auto circ = mux_.last_popped_unblocked()) {
    // Posted: the owner's answer queues cells and wakes the scheduler, which
    // is in the middle of its run now.
    if (unblocked_.empty())
      asio::post(stream_.get_executor(), [self = shared_from_this()] { self->report_unblocked(); });
    unblocked_.push_back(*circ);
  }
  return n;
}

void Channel::report_unblocked() {
  auto circs = std::exchange(unblocked_, {});
  if (!closed_ && !circs.empty()) events_.on_circuits_unblocked(*this, circs);
}

void Channel::start_write() {
  if (closed_ || writing_ || staged_.empty()) return;
  outbuf_.swap(staged_);
  staged_.clear();
  events_.on_raw_bytes(*this, outbuf_, false);

  writing_ = true;
  account_buffers();
  asio::async_write(stream_, asio::buffer(outbuf_),
                    [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
                      self->on_write_done(ec, n);
                    });
  if (!staged_samples_.empty()) {
    // Sampled cells leave the relay now (asio tries the send at once, so the
    // bytes are normally in the kernel already): the scheduler notes their
    // wait and follows this write through the kernel.
    scheduler_.cells_leaving(*this, staged_samples_);
    staged_samples_.clear();
  }
}

int Channel::native_socket() noexcept {
  if (closed_ || !stream_.lowest_layer().is_open()) return -1;
  return stream_.lowest_layer().native_handle();
}

void Channel::on_write_done(const boost::system::error_code& ec, std::size_t) {
  writing_ = false;
  account_buffers();
  // A closed channel never calls its scheduler or owner again: both may be
  // gone by the time a write completes.
  if (closed_) return;
  if (ec) {
    close("write error");
    return;
  }
  if (!staged_.empty()) {
    start_write();
    return;
  }
  if (!mux_.empty()) scheduler_.notify(shared_from_this());
}

void Channel::close(std::string_view reason) {
  if (closed_) return;
  closed_ = true;
  account_buffers();
  boost::system::error_code ignored;
  // Shut the TCP socket directly: a TLS close_notify would need another
  // round trip with a peer we are giving up on.
  stream_.lowest_layer().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.lowest_layer().close(ignored);
  events_.on_closed(*this, reason);
}

}  // namespace conflux::net
