// ChannelManager's outbound connects for EXTEND2 (OpenChannel): reuse an
// open channel to the relay, join a connect under way, or connect to its
// link specifiers' addresses and run the handshake expecting its identity;
// the requests waiting are answered once it opens or fails.
#include "conflux/net/channel_manager.hpp"

namespace conflux::net {
namespace {

std::vector<tcp::endpoint> endpoints_of(const std::vector<cell::LinkSpec>& specs) {
  std::vector<tcp::endpoint> out;
  for (const auto& ls : specs) {
    if (const auto* v4 = std::get_if<cell::LinkSpecIpv4>(&ls)) {
      out.emplace_back(asio::ip::address_v4(v4->addr), v4->port);
    } else if (const auto* v6 = std::get_if<cell::LinkSpecIpv6>(&ls)) {
      out.emplace_back(asio::ip::address_v6(v6->addr), v6->port);
    }
  }
  return out;
}

// The key a connect for `o` is filed under: the Ed25519 identity if given.
auto connect_key(const proto::OpenChannel& o) {
  using Key = std::variant<crypto::Ed25519Public, crypto::RsaFingerprint>;
  return o.identity ? Key{*o.identity} : Key{*o.rsa};
}

}  // namespace

awaitable<void> ChannelManager::connect_relay(std::weak_ptr<int> life, proto::OpenChannel o,
                                              std::vector<tcp::endpoint> endpoints, Connect launched) {
  const RelayKey key = connect_key(o);
  auto [ec, socket] = co_await connect_tcp(std::move(endpoints), config_.connect_timeout);
  if (life.expired()) co_return;
  auto it = connecting_.find(key);
  if (it == connecting_.end()) {  // answered meanwhile (an inbound channel opened)
    launched.requests.clear();
    report_connect(launched, ChannelReport::Status::Closed, "DONE");
    co_return;
  }
  if (ec) {
    log(LogLevel::Info, "connect to relay failed: " + ec.message());
    report_connect_failed(it->second, ec);
    answer_waiters(key, std::nullopt, cell::DestroyReason::ConnectFailed);
    run_actions();
    co_return;
  }
  auto link = adopt(std::move(socket), true, launched.orconn_id, o.identity, o.rsa);
  if (auto again = connecting_.find(key); again != connecting_.end()) again->second.channel = link->id();
}

void ChannelManager::answer_waiters(const RelayKey& key, std::optional<std::uint64_t> chan,
                                    cell::DestroyReason failure) {
  auto it = connecting_.find(key);
  if (it == connecting_.end()) return;
  auto requests = std::move(it->second.requests);
  connecting_.erase(it);
  for (auto request : requests) {
    if (chan) {
      switch_.on_channel_ready(request, *chan);
    } else {
      ++counters_.connect_failures;
      switch_.on_channel_failed(request, failure);
    }
  }
}

void ChannelManager::open_channel(const proto::OpenChannel& o) {
  auto fail = [&](cell::DestroyReason reason) {
    ++counters_.connect_failures;
    switch_.on_channel_failed(o.request, reason);
  };
  if (!o.identity && !o.rsa) return fail(cell::DestroyReason::ConnectFailed);
  // An extend to ourselves.
  if (o.identity == keys_.identity() || o.rsa == keys_.rsa_fingerprint()) return fail(cell::DestroyReason::ConnectFailed);
  auto chan = o.identity ? channel_to(*o.identity) : channel_to_rsa(*o.rsa);
  if (chan) {
    // Named by both: the open channel must have proven both (tor checks the
    // RSA and Ed25519 identities of the channel it reuses alike).
    const Entry* e = find(*chan);
    if (o.identity && o.rsa && (e == nullptr || e->rsa != o.rsa)) return fail(cell::DestroyReason::OrIdentity);
    return switch_.on_channel_ready(o.request, *chan);
  }
  const RelayKey key = connect_key(o);
  if (auto it = connecting_.find(key); it != connecting_.end()) {
    it->second.requests.push_back(o.request);
    return;
  }
  auto endpoints = endpoints_of(o.link_specs);
  if (endpoints.empty()) return fail(cell::DestroyReason::ConnectFailed);
  if (channels_in_use() >= config_.max_channels) return fail(cell::DestroyReason::ResourceLimit);
  auto& c = connecting_[key];
  c.requests.push_back(o.request);
  c.orconn_id = next_orconn_id_++;
  c.rsa = o.rsa;
  c.first = endpoints.front();
  report_connect(c, ChannelReport::Status::Launched);
  asio::co_spawn(io_, connect_relay(life_, o, std::move(endpoints), c), asio::detached);
}

}  // namespace conflux::net
