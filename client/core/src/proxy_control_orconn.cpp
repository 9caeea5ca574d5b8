// The proxy's ORCONN events and orconn-status (control-spec 4.1.3, 3.9):
// each channel to a first hop, named "$FINGERPRINT~nickname" as tor names it
// when the relay is known, else by the address it connects to
// (control::orconn_event, shared with the relay).
#include <string>

#include "conflux/bytes/hex.hpp"
#include "conflux/client/proxy_control.hpp"
#include "conflux/control/orconn_event.hpp"

namespace conflux::client {
namespace {

control::OrConnStatus status_of(LinkPool::LinkReport::Status s) {
  switch (s) {
    case LinkPool::LinkReport::Status::Launched: return control::OrConnStatus::Launched;
    case LinkPool::LinkReport::Status::Connected: return control::OrConnStatus::Connected;
    case LinkPool::LinkReport::Status::Failed: return control::OrConnStatus::Failed;
    case LinkPool::LinkReport::Status::Closed: return control::OrConnStatus::Closed;
  }
  return control::OrConnStatus::Closed;
}

}  // namespace

std::string ProxyControl::orconn_target(const LinkPool::LinkReport& r) const {
  control::OrConnTarget t;
  if (r.peer.rsa) {
    t.rsa = *r.peer.rsa;
    t.nickname = ns_.nickname_of(*r.peer.rsa);
  } else if (r.address) {
    const auto& a = r.address->address();
    t.address = (a.is_v6() ? "[" + a.to_string() + "]" : a.to_string()) + ":" + std::to_string(r.address->port());
  } else {
    // Neither an RSA identity nor an address: the Ed25519 key asked for.
    t.address = "$" + bytes::to_hex(r.peer.ed25519.value_or(LinkPool::Identity{}), true);
  }
  return control::orconn_target_name(t);
}

void ProxyControl::orconn(const LinkPool::LinkReport& r) {
  using S = LinkPool::LinkReport::Status;
  const std::string target = orconn_target(r);
  if (r.status == S::Launched || r.status == S::Connected) {
    // Named when asked: the consensus that gives the nickname may come after the link.
    auto row = r;
    row.why = row.reason = {};
    orconns_[r.id] = row;
  } else {
    orconns_.erase(r.id);
  }
  if (!port_) return;
  const bool ended = r.status == S::Failed || r.status == S::Closed;
  port_->publish("ORCONN", control::orconn_event(target, status_of(r.status), ended ? r.reason : std::string_view(),
                                                 r.circuits, r.id));
}

std::string ProxyControl::orconn_status() const {
  std::string out;
  for (const auto& [id, r] : orconns_) out += control::orconn_status_line(orconn_target(r), status_of(r.status)) + "\n";
  return out;
}

}  // namespace conflux::client
