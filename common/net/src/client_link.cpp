#include "conflux/net/client_link.hpp"

#include <algorithm>
#include <string>

namespace conflux::net {

ClientLink::ClientLink(asio::io_context& io, asio::ssl::context& tls, Scheduler& scheduler, const Clock& clock,
                       Callbacks callbacks, Options options, LogSink log)
    : io_(io),
      tls_(tls),
      scheduler_(scheduler),
      clock_(clock),
      callbacks_(std::move(callbacks)),
      options_(options),
      log_(std::move(log)),
      ids_(proto::ChannelRole::Initiator, options.max_circuits) {}

ClientLink::~ClientLink() {
  life_.reset();
  link_.reset();  // closes the connection without calling back
}

void ClientLink::connect(std::vector<tcp::endpoint> endpoints, const crypto::Ed25519Public& identity,
                         Prelude prelude) {
  connect(std::move(endpoints), Expected{identity, std::nullopt}, std::move(prelude));
}

void ClientLink::connect(std::vector<tcp::endpoint> endpoints, Expected expected, Prelude prelude) {
  if (state_ != State::Idle) return;
  state_ = State::Connecting;
  if (!expected.ed25519 && !expected.rsa) {
    closed("no identity to expect");
    return;
  }
  asio::co_spawn(io_, run_connect(life_, std::move(endpoints), expected, std::move(prelude)), asio::detached);
}

std::optional<crypto::Ed25519Public> ClientLink::peer_identity() const {
  if (!link_ || !link_->done()) return std::nullopt;
  return link_->peer_identity();
}

std::optional<crypto::RsaFingerprint> ClientLink::peer_rsa_identity() const {
  if (!link_ || !link_->done()) return std::nullopt;
  return link_->peer_rsa_identity();
}

// The prelude, bounded by what is left of the connect timeout: at the
// deadline the socket is closed under it, which ends its reads and writes.
awaitable<ClientLink::PreludeResult> ClientLink::run_prelude(tcp::socket& socket, const Prelude& prelude,
                                                             std::chrono::steady_clock::time_point deadline) {
  struct Race {
    bool done = false;  // the prelude returned: the socket may be gone, leave it alone
    bool timed_out = false;
  };
  auto race = std::make_shared<Race>();
  asio::steady_timer timer(io_);
  timer.expires_at(deadline);
  timer.async_wait([socket_ptr = &socket, race](const boost::system::error_code& ec) {
    if (ec || race->done) return;
    race->timed_out = true;
    boost::system::error_code ignored;
    socket_ptr->close(ignored);
  });
  auto r = co_await prelude(socket);
  race->done = true;
  timer.cancel();
  if (race->timed_out) r = {asio::error::timed_out, "timed out"};
  co_return r;
}

awaitable<void> ClientLink::run_connect(std::weak_ptr<int> life, std::vector<tcp::endpoint> endpoints,
                                        Expected expected, Prelude prelude) {
  const auto deadline = std::chrono::steady_clock::now() + options_.connect_timeout;
  auto [ec, socket] = co_await connect_tcp(std::move(endpoints), options_.connect_timeout, options_.bind_address);
  if (life.expired() || state_ != State::Connecting) co_return;
  if (ec) {
    closed("connect failed: " + ec.message());
    co_return;
  }
  tcp_connected_ = true;
  if (prelude) {
    auto r = co_await run_prelude(socket, prelude, deadline);
    if (life.expired() || state_ != State::Connecting) co_return;
    if (r.error) {
      closed("connect failed: " + (r.why.empty() ? r.error.message() : r.why));
      co_return;
    }
  }
  LinkChannel::Params p;
  p.role = Channel::Role::Initiator;
  p.expected_peer = expected.ed25519;
  p.expected_rsa = expected.rsa;
  p.handshake_timeout = options_.handshake_timeout;
  p.channel_limits = options_.channel_limits;
  state_ = State::Handshaking;
  link_ = LinkChannel::create(TlsStream(std::move(socket), tls_), scheduler_, clock_, *this, std::move(p), log_);
  link_->start();
}

bool ClientLink::send(CircId circ, cell::CellCommand cmd, bytes::ByteSpan payload) {
  if (!is_open() || !link_) return false;
  if (cmd == cell::CellCommand::Destroy) return link_->send_control(circ, cmd, payload);
  auto encoded = cell::encode_cell(link_->channel().link_version(), circ, cmd, payload);
  if (!encoded || encoded->size() != proto::kWireCellLen) return false;
  proto::WireCell w{};
  std::copy(encoded->begin(), encoded->end(), w.begin());
  return link_->send_cell(circ, w) == proto::MuxPush::Queued;
}

proto::CcChannelState ClientLink::channel_state(CircId circ) const {
  if (!is_open() || !link_) return {};
  const auto& mux = link_->channel().mux();
  return proto::CcChannelState{mux.circuit_blocked(circ), mux.queued_cells(circ)};
}

bool ClientLink::send_destroy(CircId circ, cell::DestroyReason reason) {
  if (!is_open() || !link_) return false;
  link_->channel().mux().detach(circ);
  auto body = cell::encode_destroy_cell(cell::DestroyCell{reason});
  return link_->send_control(circ, cell::CellCommand::Destroy, body);
}

void ClientLink::close(std::string_view reason) {
  if (link_) {
    auto keep = link_;
    keep->close(reason);
  } else if (state_ != State::Closed && state_ != State::Idle) {
    closed(reason);  // still connecting: the connect's result is ignored
  }
}

void ClientLink::on_link_open(LinkChannel&) {
  state_ = State::Open;
  if (callbacks_.on_open) callbacks_.on_open();
}

void ClientLink::on_link_cell(LinkChannel&, const cell::CellView& c) {
  if (callbacks_.on_cell) callbacks_.on_cell(c);
}

void ClientLink::on_link_unblocked(LinkChannel&, std::span<const CircId> circs) {
  if (callbacks_.on_unblocked) callbacks_.on_unblocked(circs);
}

void ClientLink::on_link_closed(LinkChannel& link, std::string_view reason) {
  failure_ = link.failure();
  closed(reason);
}

void ClientLink::closed(std::string_view reason) {
  if (state_ == State::Closed) return;
  state_ = State::Closed;
  close_reason_ = std::string(reason);
  if (log_) log_(LogLevel::Info, "client link closed: " + close_reason_);
  if (callbacks_.on_closed) callbacks_.on_closed(reason);
}

}  // namespace conflux::net
