#include "conflux/net/link_channel.hpp"

#include <algorithm>
#include <string>

#include "conflux/crypto/secret.hpp"
#include "conflux/net/tls.hpp"

namespace conflux::net {
namespace {

std::optional<cell::NetinfoAddress> netinfo_address(const tcp::endpoint& ep) {
  const auto addr = ep.address();
  if (addr.is_v4()) return cell::NetinfoIpv4{addr.to_v4().to_bytes()};
  if (addr.is_v6()) {
    const auto v6 = addr.to_v6();
    if (v6.is_v4_mapped()) return cell::NetinfoIpv4{asio::ip::make_address_v4(asio::ip::v4_mapped, v6).to_bytes()};
    return cell::NetinfoIpv6{v6.to_bytes()};
  }
  return std::nullopt;
}

// Cells that belong to circuits; everything else after the handshake is
// channel-level and, for now, ignored (padding, a repeated NETINFO...).
bool is_circuit_cell(cell::CellCommand cmd) {
  using cell::CellCommand;
  switch (cmd) {
    case CellCommand::Create:
    case CellCommand::Created:
    case CellCommand::Relay:
    case CellCommand::Destroy:
    case CellCommand::CreateFast:
    case CellCommand::CreatedFast:
    case CellCommand::RelayEarly:
    case CellCommand::Create2:
    case CellCommand::Created2:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::shared_ptr<LinkChannel> LinkChannel::create(TlsStream stream, Scheduler& scheduler, const Clock& clock,
                                                 Owner& owner, Params params, LogSink log) {
  return std::shared_ptr<LinkChannel>(
      new LinkChannel(std::move(stream), scheduler, clock, owner, std::move(params), std::move(log)));
}

LinkChannel::LinkChannel(TlsStream stream, Scheduler& scheduler, const Clock& clock, Owner& owner, Params params,
                         LogSink log)
    : clock_(clock),
      owner_(owner),
      params_(std::move(params)),
      log_(std::move(log)),
      channel_(std::make_shared<Channel>(std::move(stream), params_.role, scheduler, *this, params_.channel_limits)),
      timeout_(channel_->stream().get_executor()) {}

LinkChannel::~LinkChannel() {
  dying_ = true;
  timeout_.cancel();
  channel_->close("shut down");
}

void LinkChannel::start() {
  timeout_.expires_after(params_.handshake_timeout);
  timeout_.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
    auto self = weak.lock();
    if (ec || !self || self->done_ || self->closed()) return;
    self->timed_out_ = true;
    self->close("link handshake timed out");
  });
  asio::co_spawn(channel_->stream().get_executor(), channel_->run(), asio::detached);
}

std::optional<crypto::Ed25519Public> LinkChannel::peer_identity() const {
  return done_ ? done_->peer_identity : std::nullopt;
}

std::optional<crypto::RsaFingerprint> LinkChannel::peer_rsa_identity() const {
  return done_ ? done_->peer_rsa_identity : std::nullopt;
}

proto::MuxPush LinkChannel::send_cell(CircId circ, const proto::WireCell& cell,
                                      std::optional<Clock::Monotonic::time_point> queued_at) {
  // Not yet open or already closed: the cell has nowhere to go. Reported as
  // a full queue so the caller closes the circuit rather than losing it quietly.
  if (!is_open()) return proto::MuxPush::CircuitQueueFull;
  auto pushed = channel_->mux().push(circ, cell, queued_at ? *queued_at : clock_.now());
  if (pushed == proto::MuxPush::Queued) channel_->cells_queued();
  return pushed;
}

bool LinkChannel::send_control(CircId circ, cell::CellCommand cmd, bytes::ByteSpan payload) {
  return is_open() && channel_->send_control(circ, cmd, payload);
}

void LinkChannel::close(std::string_view reason) {
  auto self = shared_from_this();
  timeout_.cancel();
  channel_->close(reason);
}

void LinkChannel::log(LogLevel level, std::string_view message) const {
  if (!log_) return;
  std::string line = "channel " + std::to_string(channel_->id()) + ": ";
  line += message;
  log_(level, line);
}

void LinkChannel::on_tls_ready(Channel& ch) {
  auto self = shared_from_this();
  const bool initiator = params_.role == Channel::Role::Initiator;
  auto& stream = ch.stream();
  // The responder's certificate: the one we saw (initiator) or presented.
  auto digest = initiator ? peer_certificate_digest(stream) : own_certificate_digest(stream);
  const bool named = params_.expected_peer || params_.expected_rsa;
  if (!digest || (initiator && !named) || (!initiator && !params_.credentials)) {
    close(!digest ? "TLS facts unavailable" : "link handshake misconfigured");
    return;
  }
  proto::TlsFacts facts;
  facts.responder_cert_digest = *digest;
  // AUTH0003's context (CID) is known only once the initiator's CERTS is;
  // hs_, which holds this, goes away before channel_ does.
  facts.exporter = [ch = channel_](std::span<const std::uint8_t> context) -> std::optional<crypto::Secret<32>> {
    auto v = tls_export_keying_material(ch->stream(), proto::kAuth0003ExporterLabel, context);
    if (!v) return std::nullopt;
    crypto::Secret<32> out{std::span<const std::uint8_t, 32>(*v)};
    crypto::secure_wipe(v->data(), v->size());
    return out;
  };

  proto::LinkAddresses addresses;
  boost::system::error_code ec;
  auto remote = stream.lowest_layer().remote_endpoint(ec);
  if (!ec) addresses.peer = netinfo_address(remote);
  addresses.ours = params_.our_addresses;

  if (initiator) {
    hs_.emplace(proto::LinkHandshake::initiator(proto::ExpectedPeer{params_.expected_peer, params_.expected_rsa},
                                                params_.credentials, std::move(facts),
                                                std::move(addresses), params_.link_limits));
  } else {
    hs_.emplace(proto::LinkHandshake::responder(*params_.credentials, std::move(facts), std::move(addresses),
                                                params_.link_limits));
  }
  hs_->start();
  flush_handshake();
  ch.set_max_var_payload(std::min(params_.channel_limits.max_var_payload, hs_->framer_limits().max_var_payload));
}

void LinkChannel::on_raw_bytes(Channel&, bytes::ByteSpan bytes, bool inbound) {
  if (dying_) return;
  auto self = shared_from_this();
  owner_.on_link_bytes(*this, bytes.size(), inbound);
}

void LinkChannel::on_cell(Channel& ch, const cell::CellView& c) {
  auto self = shared_from_this();
  if (!done_) return handshake_cell();
  if (is_circuit_cell(c.command)) return owner_.on_link_cell(*this, c);
  // PADDING and VPADDING are link padding; a second VERSIONS, CERTS,
  // NETINFO etc. after the handshake has no meaning and is dropped too.
  (void)ch;
  ++ignored_;
}

void LinkChannel::on_circuits_unblocked(Channel&, std::span<const CircId> circs) {
  if (dying_ || !done_) return;
  auto self = shared_from_this();
  owner_.on_link_unblocked(*this, circs);
}

void LinkChannel::handshake_cell() {
  if (!hs_) return close("cell before TLS was ready");
  hs_->on_cell(channel_->current_cell_bytes(), clock_.unix_seconds());
  flush_handshake();
  if (hs_->link_version() != channel_->link_version()) channel_->set_link_version(hs_->link_version());
  switch (hs_->state()) {
    case proto::LinkState::InProgress:
      channel_->set_max_var_payload(
          std::min(params_.channel_limits.max_var_payload, hs_->framer_limits().max_var_payload));
      return;
    case proto::LinkState::Failed:
      failure_ = hs_->failure();
      close(std::string("link handshake failed: ") +
            std::string(failure_ ? proto::to_string(*failure_) : std::string_view("unknown")));
      return;
    case proto::LinkState::Done:
      finish_handshake();
      return;
  }
}

void LinkChannel::flush_handshake() {
  auto out = hs_->take_output();
  if (out.empty()) return;
  if (channel_->mux().push_control(out) != proto::MuxPush::Queued) return close("control queue full");
  channel_->cells_queued();
}

void LinkChannel::finish_handshake() {
  done_ = hs_->done();
  hs_.reset();  // drops the exporter secret and the transcript digests
  timeout_.cancel();
  channel_->set_link_version(done_->link_version);
  channel_->set_max_var_payload(params_.channel_limits.max_var_payload);
  if (done_->clock_skew) {
    const auto skew = *done_->clock_skew;
    if (static_cast<std::uint64_t>(skew < 0 ? -skew : skew) > static_cast<std::uint64_t>(params_.skew_warning.count()))
      log(LogLevel::Notice, "peer clock differs from ours by " + std::to_string(skew) + " s");
  }
  log(LogLevel::Debug, "link open, version " + std::to_string(done_->link_version));
  owner_.on_link_open(*this);
}

void LinkChannel::on_closed(Channel&, std::string_view reason) {
  if (dying_) return;
  auto self = shared_from_this();
  timeout_.cancel();
  log(LogLevel::Debug, std::string("closed: ") + std::string(reason));
  owner_.on_link_closed(*this, reason);
}

void set_link_socket_options(tcp::socket& socket) {
  boost::system::error_code ignored;  // a socket that refuses it still works
  socket.set_option(tcp::no_delay(true), ignored);
}

awaitable<std::pair<boost::system::error_code, tcp::socket>> connect_tcp(std::vector<tcp::endpoint> endpoints,
                                                                         std::chrono::milliseconds per_attempt,
                                                                         std::optional<asio::ip::address> local) {
  auto exec = co_await asio::this_coro::executor;
  boost::system::error_code last = asio::error::host_not_found;
  for (const auto& ep : endpoints) {
    // Shared with the timer's handler, which may run after this frame moved on.
    auto sock = std::make_shared<tcp::socket>(exec);
    if (local) {
      if (local->is_v4() != ep.address().is_v4()) continue;
      boost::system::error_code bind_ec;
      sock->open(ep.protocol(), bind_ec);
      if (!bind_ec) sock->bind(tcp::endpoint(*local, 0), bind_ec);
      if (bind_ec) {
        last = bind_ec;
        continue;
      }
    }
    auto expired = std::make_shared<bool>(false);
    asio::steady_timer timer(exec);
    timer.expires_after(per_attempt);
    timer.async_wait([sock, expired](const boost::system::error_code& ec) {
      if (ec) return;
      *expired = true;
      boost::system::error_code ignored;
      sock->close(ignored);
    });
    auto [ec] = co_await sock->async_connect(ep, use_nothrow);
    timer.cancel();
    if (!ec && !*expired && sock->is_open()) {
      set_link_socket_options(*sock);
      co_return std::pair{ec, std::move(*sock)};
    }
    last = *expired ? boost::system::error_code(asio::error::timed_out) : ec;
  }
  co_return std::pair{last, tcp::socket(exec)};
}

}  // namespace conflux::net
