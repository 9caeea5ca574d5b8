#pragma once
// Scheduler tests on real sockets: n TLS channels on 127.0.0.1 from one
// scheduler under test (the "relay") to receivers that only count cells, and
// a feeder that keeps circuits backlogged. The receivers have a scheduler of
// their own and the feeder its own clock, so the relay's clock and stats see
// nothing but the relay's work.
#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "conflux/net/channel.hpp"
#include "conflux/net/scheduler.hpp"
#include "conflux/net/tls.hpp"
#include "tls_test_identity.hpp"

namespace conflux::test {

struct CountingReceiver : net::Channel::Events {
  std::size_t cells = 0;
  bool ready = false;
  void on_tls_ready(net::Channel&) override { ready = true; }
  void on_cell(net::Channel&, const cell::CellView&) override { ++cells; }
  void on_closed(net::Channel&, std::string_view) override {}
};

inline proto::WireCell test_relay_cell(std::uint32_t circ) {
  std::array<std::uint8_t, 509> payload{};
  auto bytes = std::move(cell::encode_cell(5, CircId{circ}, cell::CellCommand::Relay, payload)).value();
  proto::WireCell w{};
  std::copy(bytes.begin(), bytes.end(), w.begin());
  return w;
}

class LoopbackLinks {
 public:
  // `send_buffer`: SO_SNDBUF for the relay's sockets (0: the kernel's default).
  LoopbackLinks(net::asio::io_context& io, net::Scheduler& relay, std::size_t n, net::Channel::Limits limits = {},
                int send_buffer = 0)
      : io_(io), receiver_sched_(io, receiver_clock_, nullptr, vanilla()) {
    for (std::size_t i = 0; i < n; ++i) {
      receiver_events_.push_back(std::make_unique<CountingReceiver>());
      sender_events_.push_back(std::make_unique<CountingReceiver>());
      net::tcp::socket s(io);
      s.open(net::tcp::v4());
      if (send_buffer > 0) s.set_option(net::asio::socket_base::send_buffer_size(send_buffer));
      s.connect(acceptor_.local_endpoint());
      net::tcp::socket r = acceptor_.accept();
      senders.push_back(std::make_shared<net::Channel>(net::TlsStream(std::move(s), client_ctx_),
                                                       net::Channel::Role::Initiator, relay, *sender_events_.back(),
                                                       limits));
      receivers.push_back(std::make_shared<net::Channel>(net::TlsStream(std::move(r), server_ctx_),
                                                         net::Channel::Role::Responder, receiver_sched_,
                                                         *receiver_events_.back(), net::Channel::Limits{}));
      net::asio::co_spawn(io, senders.back()->run(), net::asio::detached);
      net::asio::co_spawn(io, receivers.back()->run(), net::asio::detached);
    }
    for (int i = 0; i < 200 && !ready(); ++i) io.run_for(std::chrono::milliseconds(10));
    for (auto& c : senders) c->set_link_version(5);
    for (auto& c : receivers) c->set_link_version(5);
  }
  LoopbackLinks(const LoopbackLinks&) = delete;
  LoopbackLinks& operator=(const LoopbackLinks&) = delete;
  ~LoopbackLinks() {
    feed_.cancel();
    for (auto& c : senders) c->close("done");
    for (auto& c : receivers) c->close("done");
    io_.restart();
    io_.run_for(std::chrono::milliseconds(20));
  }

  [[nodiscard]] bool ready() const {
    auto up = [](const auto& e) { return e->ready; };
    return std::all_of(sender_events_.begin(), sender_events_.end(), up) &&
           std::all_of(receiver_events_.begin(), receiver_events_.end(), up);
  }
  [[nodiscard]] std::size_t cells_received() const {
    std::size_t n = 0;
    for (const auto& e : receiver_events_) n += e->cells;
    return n;
  }

  // Every `period`, tops up each sender's circuits 1..circuits to `depth`
  // cells in all and tells the scheduler.
  void feed(std::uint32_t circuits, std::size_t depth, std::chrono::microseconds period) {
    circuits_ = circuits;
    depth_ = depth;
    period_ = period;
    top_up();
  }

  std::vector<std::shared_ptr<net::Channel>> senders;
  std::vector<std::shared_ptr<net::Channel>> receivers;

 private:
  static net::SchedulerConfig vanilla() {
    net::SchedulerConfig c;
    c.preference = {net::SchedulerPolicy::Vanilla};
    return c;
  }
  void top_up() {
    for (auto& ch : senders) {
      bool pushed = false;
      for (std::uint32_t k = 0; ch->mux().queued_cells() < depth_; k = (k + 1) % circuits_) {
        if (ch->mux().push(CircId{k + 1}, test_relay_cell(k + 1), feeder_clock_.now()) != proto::MuxPush::Queued) break;
        pushed = true;
      }
      if (pushed) ch->cells_queued();
    }
    feed_.expires_after(period_);
    feed_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) top_up();
    });
  }

  net::asio::io_context& io_;
  net::SystemClock receiver_clock_;
  net::SystemClock feeder_clock_;
  net::Scheduler receiver_sched_;
  net::asio::ssl::context server_ctx_ = net::make_tls_server_context(test_tls_identity());
  net::asio::ssl::context client_ctx_ = net::make_tls_client_context();
  net::tcp::acceptor acceptor_{io_, net::tcp::endpoint(net::asio::ip::make_address("127.0.0.1"), 0)};
  std::vector<std::unique_ptr<CountingReceiver>> receiver_events_;
  std::vector<std::unique_ptr<CountingReceiver>> sender_events_;
  net::asio::steady_timer feed_{io_};
  std::uint32_t circuits_ = 1;
  std::size_t depth_ = 0;
  std::chrono::microseconds period_{1000};
};

}  // namespace conflux::test
