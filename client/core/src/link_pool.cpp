#include "conflux/client/link_pool.hpp"

namespace conflux::client {

struct LinkPool::Entry {
  std::unique_ptr<net::ClientLink> link;
  std::map<std::uint32_t, std::unique_ptr<Circuit>> circuits;
  bool open = false;
  bool closed = false;
  bool routed = false;  // through a LinkRoute (a transport's listener)
};

LinkPool::LinkPool(net::asio::io_context& io, net::asio::ssl::context& tls, net::Scheduler& scheduler,
                   const net::Clock& clock, net::ClientLink::Options options, Hooks hooks, net::LogSink log)
    : io_(io), tls_(tls), scheduler_(scheduler), clock_(clock), options_(options), hooks_(std::move(hooks)),
      log_(std::move(log)) {}

LinkPool::~LinkPool() { close_all(); }

LinkPool::Entry* LinkPool::entry_for(const Identity& id, const std::vector<net::tcp::endpoint>& at) {
  auto it = links_.find(id);
  if (it != links_.end() && !it->second->closed) return it->second.get();
  auto route = hooks_.route ? hooks_.route(id) : std::nullopt;
  if (route && !route->unavailable.empty()) {
    net::emit(log_, net::LogLevel::Info, "Not opening a channel to a first hop yet: " + route->unavailable);
    return nullptr;
  }
  auto e = std::make_unique<Entry>();
  Entry* raw = e.get();
  net::ClientLink::Callbacks cb;
  cb.on_open = [this, raw, id] {
    raw->open = true;
    for (auto& [cid, c] : raw->circuits) c->start();
    if (hooks_.link_open) hooks_.link_open(id);
  };
  cb.on_cell = [this, raw](const cell::CellView& c) { on_link_cell(*raw, c); };
  cb.on_unblocked = [raw](std::span<const CircId> circs) {
    // Looked up one by one: waking a circuit's streams may close another.
    for (const CircId circ : circs)
      if (auto c = raw->circuits.find(circ.value()); c != raw->circuits.end()) c->second->channel_unblocked();
  };
  cb.on_closed = [this, id](std::string_view why) { on_link_closed(id, why); };
  e->link = std::make_unique<net::ClientLink>(io_, tls_, scheduler_, clock_, std::move(cb), options_, log_);
  if (it != links_.end()) {
    // A closed entry not reaped yet (its circuits were already told). We may
    // be inside its link's callbacks: it dies later, not here.
    graveyard_.push_back(std::move(it->second));
    it->second = std::move(e);
    net::asio::post(io_, [this, life = std::weak_ptr<int>(life_)] {
      if (!life.expired()) graveyard_.clear();
    });
  } else {
    links_.emplace(id, std::move(e));
  }
  crypto::Ed25519Public ed{};
  std::copy(id.begin(), id.end(), ed.begin());
  raw->routed = route.has_value();
  if (route)
    raw->link->connect(route->connect_to, ed, std::move(route->prelude));
  else
    raw->link->connect(at, ed);
  return raw;
}

Circuit* LinkPool::launch(CircuitInfo info, std::vector<net::tcp::endpoint> first_hop_at, Circuit::Hooks hooks) {
  Identity id{};
  const auto& ident = info.path.front().target.identity;
  std::copy(ident.begin(), ident.end(), id.begin());
  Entry* found = entry_for(id, first_hop_at);
  if (found == nullptr) return nullptr;
  Entry& e = *found;
  auto circ_id = e.link->allocate_circ_id();
  if (!circ_id) return nullptr;
  net::ClientLink* link = e.link.get();
  hooks.channel_state = [link, circ = *circ_id] { return link->channel_state(circ); };
  auto user_closed = std::move(hooks.closed);
  hooks.closed = [this, id, user_closed = std::move(user_closed)](Circuit& c, std::string_view why) {
    if (user_closed) user_closed(c, why);
    reap(id, c.id());
  };
  auto circuit = std::make_unique<Circuit>(
      std::move(info), *circ_id,
      [link](CircId circ, cell::CellCommand cmd, bytes::ByteSpan p) { return link->send(circ, cmd, p); },
      std::move(hooks), clock_);
  Circuit* raw = circuit.get();
  e.circuits.emplace(circ_id->value(), std::move(circuit));
  if (e.open) raw->start();
  return raw;
}

void LinkPool::on_link_cell(Entry& e, const cell::CellView& c) {
  auto it = e.circuits.find(c.circ_id.value());
  if (it == e.circuits.end()) return;  // a circuit we already forgot: its DESTROY crossed ours
  it->second->on_cell(c);
}

void LinkPool::on_link_closed(const Identity& id, std::string_view why) {
  auto it = links_.find(id);
  if (it == links_.end()) return;
  Entry& e = *it->second;
  const bool was_open = e.open;
  e.closed = true;
  e.open = false;
  std::vector<Circuit*> circuits;
  for (auto& [cid, c] : e.circuits) circuits.push_back(c.get());
  for (auto* c : circuits) c->link_closed(why);
  const bool transport_down = e.routed && !e.link->tcp_connected();
  if (hooks_.link_closed) hooks_.link_closed(id, was_open, transport_down, why);
  // The link is inside its own callback: destroy it afterwards.
  net::asio::post(io_, [this, life = std::weak_ptr<int>(life_), id, raw = &e] {
    if (life.expired()) return;
    auto again = links_.find(id);
    if (again != links_.end() && again->second.get() == raw) links_.erase(again);
  });
}

void LinkPool::reap(const Identity& id, CircId circ) {
  net::asio::post(io_, [this, life = std::weak_ptr<int>(life_), id, circ] {
    if (life.expired()) return;
    auto it = links_.find(id);
    if (it == links_.end()) return;
    auto c = it->second->circuits.find(circ.value());
    if (c == it->second->circuits.end() || c->second->phase() != Circuit::Phase::Closed) return;
    it->second->circuits.erase(c);
    if (!it->second->closed) it->second->link->release_circ_id(circ);
  });
}

std::size_t LinkPool::links_open() const {
  std::size_t n = 0;
  for (const auto& [id, e] : links_) if (e->open) ++n;
  return n;
}

std::size_t LinkPool::circuits() const {
  std::size_t n = 0;
  for (const auto& [id, e] : links_) n += e->circuits.size();
  return n;
}

void LinkPool::close_all() {
  for (auto& [id, e] : links_) {
    for (auto& [cid, c] : e->circuits) c->close(cell::DestroyReason::Finished, "shutting down");
    if (!e->closed) e->link->close("shutting down");
  }
}

}  // namespace conflux::client
