#include "conflux/client/link_pool.hpp"

#include <algorithm>

namespace conflux::client {

struct LinkPool::Entry {
  std::uint64_t key = 0;
  Peer peer;  // asked for; completed from the CERTS cell once open
  std::unique_ptr<net::ClientLink> link;
  std::map<std::uint32_t, std::unique_ptr<Circuit>> circuits;
  bool open = false;
  bool closed = false;
  bool routed = false;  // through a LinkRoute (a transport's listener)
  std::optional<net::tcp::endpoint> address;  // the first one it connects to
};

namespace {

bool says(std::string_view why, std::string_view words) { return why.find(words) != std::string_view::npos; }

}  // namespace

// tor's words for why an OR connection ended (orconn_end_reason_to_control_string): from the
// handshake's verdict when it gave one, else from the socket error's text (strerror's).
std::string_view orconn_reason(const net::ClientLink& link, bool was_open, bool transport_down,
                               std::string_view why) {
  if (was_open) return says(why, "reset") ? "CONNECTRESET" : "DONE";
  if (transport_down) return "PT_MISSING";
  if (const auto f = link.failure())
    return *f == proto::LinkFailure::IdentityMismatch || *f == proto::LinkFailure::TlsCertMismatch ? "IDENTITY"
                                                                                                   : "MISC";
  if (says(why, "refused")) return "CONNECTREFUSED";
  if (says(why, "timed out")) return "TIMEOUT";
  if (says(why, "reset")) return "CONNECTRESET";
  if (says(why, "unreachable") || says(why, "No route")) return "NOROUTE";
  return "MISC";
}

bool LinkPool::Peer::same_as(const Peer& other) const {
  if (ed25519 && other.ed25519 && *ed25519 != *other.ed25519) return false;
  if (rsa && other.rsa && *rsa != *other.rsa) return false;
  return (ed25519 && other.ed25519) || (rsa && other.rsa);
}

LinkPool::Peer LinkPool::first_hop_of(const CircuitInfo& info) {
  Peer p;
  if (info.path.empty()) return p;
  const auto& t = info.path.front().target;
  if (std::any_of(t.identity.begin(), t.identity.end(), [](std::uint8_t b) { return b != 0; })) {
    Identity id{};
    std::copy(t.identity.begin(), t.identity.end(), id.begin());
    p.ed25519 = id;
  }
  for (const auto& spec : t.link_specs)
    if (const auto* legacy = std::get_if<cell::LinkSpecLegacyId>(&spec)) p.rsa = legacy->id;
  return p;
}

LinkPool::LinkPool(net::asio::io_context& io, net::asio::ssl::context& tls, net::Scheduler& scheduler,
                   const net::Clock& clock, net::ClientLink::Options options, Hooks hooks, net::LogSink log)
    : io_(io), tls_(tls), scheduler_(scheduler), clock_(clock), options_(options), hooks_(std::move(hooks)),
      log_(std::move(log)) {}

LinkPool::~LinkPool() { close_all(); }

LinkPool::Entry* LinkPool::find(const Peer& peer) {
  for (auto& [key, e] : links_)
    if (!e->closed && e->peer.same_as(peer)) return e.get();
  return nullptr;
}

LinkPool::Entry* LinkPool::find(std::uint64_t key) {
  auto it = links_.find(key);
  return it == links_.end() ? nullptr : it->second.get();
}

LinkPool::Entry* LinkPool::entry_for(const Peer& peer, const std::vector<net::tcp::endpoint>& at) {
  if (Entry* found = find(peer)) return found;
  if (!peer.ed25519 && !peer.rsa) return nullptr;
  auto route = hooks_.route ? hooks_.route(peer) : std::nullopt;
  if (route && !route->unavailable.empty()) {
    net::emit(log_, net::LogLevel::Info, "Not opening a channel to a first hop yet: " + route->unavailable);
    return nullptr;
  }
  auto e = std::make_unique<Entry>();
  Entry* raw = e.get();
  raw->key = next_key_++;
  raw->peer = peer;
  net::ClientLink::Callbacks cb;
  cb.on_open = [this, raw] { on_link_open(*raw); };
  cb.on_cell = [this, raw](const cell::CellView& c) { on_link_cell(*raw, c); };
  cb.on_unblocked = [raw](std::span<const CircId> circs) {
    // Looked up one by one: waking a circuit's streams may close another.
    for (const CircId circ : circs)
      if (auto c = raw->circuits.find(circ.value()); c != raw->circuits.end()) c->second->channel_unblocked();
  };
  cb.on_closed = [this, key = raw->key](std::string_view why) { on_link_closed(key, why); };
  e->link = std::make_unique<net::ClientLink>(io_, tls_, scheduler_, clock_, std::move(cb), options_, log_);
  links_.emplace(raw->key, std::move(e));
  net::ClientLink::Expected expected;
  if (peer.ed25519) {
    crypto::Ed25519Public ed{};
    std::copy(peer.ed25519->begin(), peer.ed25519->end(), ed.begin());
    expected.ed25519 = ed;
  }
  expected.rsa = peer.rsa;
  raw->routed = route.has_value();
  if (route && !route->connect_to.empty()) raw->address = route->connect_to.front();
  if (!route && !at.empty()) raw->address = at.front();
  report(*raw, LinkReport::Status::Launched);
  if (route)
    raw->link->connect(route->connect_to, expected, std::move(route->prelude));
  else
    raw->link->connect(at, expected);
  return raw;
}

void LinkPool::on_link_open(Entry& e) {
  e.open = true;
  // The handshake proved what was asked for; keep what it taught us too.
  if (auto ed = e.link->peer_identity()) {
    Identity id{};
    std::copy(ed->begin(), ed->end(), id.begin());
    e.peer.ed25519 = id;
  }
  if (auto rsa = e.link->peer_rsa_identity()) e.peer.rsa = *rsa;
  for (auto& [cid, c] : e.circuits) c->start();
  if (hooks_.link_open) hooks_.link_open(e.peer);
  report(e, LinkReport::Status::Connected);
}

Circuit* LinkPool::launch(CircuitInfo info, std::vector<net::tcp::endpoint> first_hop_at, Circuit::Hooks hooks) {
  Entry* found = entry_for(first_hop_of(info), first_hop_at);
  if (found == nullptr) return nullptr;
  Entry& e = *found;
  auto circ_id = e.link->allocate_circ_id();
  if (!circ_id) return nullptr;
  net::ClientLink* link = e.link.get();
  hooks.channel_state = [link, circ = *circ_id] { return link->channel_state(circ); };
  auto user_closed = std::move(hooks.closed);
  hooks.closed = [this, key = e.key, user_closed = std::move(user_closed)](Circuit& c, std::string_view why) {
    if (user_closed) user_closed(c, why);
    reap(key, c.id());
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

void LinkPool::on_link_closed(std::uint64_t key, std::string_view why) {
  Entry* found = find(key);
  if (found == nullptr) return;
  Entry& e = *found;
  const bool was_open = e.open;
  e.closed = true;
  e.open = false;
  std::vector<Circuit*> circuits;
  for (auto& [cid, c] : e.circuits) circuits.push_back(c.get());
  for (auto* c : circuits) c->link_closed(why);
  const bool transport_down = e.routed && !e.link->tcp_connected();
  if (hooks_.link_closed) hooks_.link_closed(e.peer, was_open, transport_down, why);
  report(e, was_open ? LinkReport::Status::Closed : LinkReport::Status::Failed, why,
         orconn_reason(*e.link, was_open, transport_down, why));
  // The link is inside its own callback: destroy it afterwards. A new link
  // to the same relay has a key of its own meanwhile.
  net::asio::post(io_, [this, life = std::weak_ptr<int>(life_), key] {
    if (!life.expired()) links_.erase(key);
  });
}

void LinkPool::reap(std::uint64_t key, CircId circ) {
  net::asio::post(io_, [this, life = std::weak_ptr<int>(life_), key, circ] {
    if (life.expired()) return;
    Entry* e = find(key);
    if (e == nullptr) return;
    auto c = e->circuits.find(circ.value());
    if (c == e->circuits.end() || c->second->phase() != Circuit::Phase::Closed) return;
    e->circuits.erase(c);
    if (!e->closed) e->link->release_circ_id(circ);
  });
}

std::size_t LinkPool::links_open() const {
  std::size_t n = 0;
  for (const auto& [key, e] : links_) if (e->open) ++n;
  return n;
}

LinkPool::LinkReport LinkPool::report_of(const Entry& e) {
  LinkReport r;
  r.status = e.open ? LinkReport::Status::Connected : LinkReport::Status::Launched;
  r.id = e.key;
  r.peer = e.peer;
  r.address = e.address;
  r.circuits = e.circuits.size();
  return r;
}

void LinkPool::report(const Entry& e, LinkReport::Status status, std::string_view why, std::string_view reason) {
  if (!hooks_.report) return;
  LinkReport r = report_of(e);
  r.status = status;
  r.why = why;
  r.reason = reason;
  hooks_.report(r);
}

std::size_t LinkPool::circuits() const {
  std::size_t n = 0;
  for (const auto& [key, e] : links_) n += e->circuits.size();
  return n;
}

void LinkPool::close_all() {
  for (auto& [key, e] : links_) {
    for (auto& [cid, c] : e->circuits) c->close(cell::DestroyReason::Finished, "shutting down");
    if (!e->closed) e->link->close("shutting down");
  }
}

}  // namespace conflux::client
