// The proxy's ORCONN events and orconn-status (control-spec 4.1.3, 3.9):
// each channel to a first hop, named "$FINGERPRINT~nickname" as tor names it
// when the relay is known, else by the address it connects to.
#include <string>

#include "conflux/bytes/hex.hpp"
#include "conflux/client/proxy_control.hpp"

namespace conflux::client {
namespace {

std::string_view status_word(LinkPool::LinkReport::Status s) {
  switch (s) {
    case LinkPool::LinkReport::Status::Launched: return "LAUNCHED";
    case LinkPool::LinkReport::Status::Connected: return "CONNECTED";
    case LinkPool::LinkReport::Status::Failed: return "FAILED";
    case LinkPool::LinkReport::Status::Closed: return "CLOSED";
  }
  return "CLOSED";
}

}  // namespace

std::string ProxyControl::orconn_target(const LinkPool::LinkReport& r) const {
  if (r.peer.rsa) {
    std::string name = "$" + bytes::to_hex(*r.peer.rsa, true);
    if (auto nick = ns_.nickname_of(*r.peer.rsa)) name += "~" + *nick;
    return name;
  }
  if (r.address) {
    const auto& a = r.address->address();
    return (a.is_v6() ? "[" + a.to_string() + "]" : a.to_string()) + ":" + std::to_string(r.address->port());
  }
  return "$" + bytes::to_hex(r.peer.ed25519.value_or(LinkPool::Identity{}), true);
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
  std::string body = "ORCONN " + target + " " + std::string(status_word(r.status));
  if (r.status == S::Failed || r.status == S::Closed) {
    body += " REASON=" + std::string(r.reason);
    if (r.circuits > 0) body += " NCIRCS=" + std::to_string(r.circuits);
  }
  body += " ID=" + std::to_string(r.id);
  port_->publish("ORCONN", body);
}

std::string ProxyControl::orconn_status() const {
  std::string out;
  for (const auto& [id, r] : orconns_) out += orconn_target(r) + " " + std::string(status_word(r.status)) + "\n";
  return out;
}

}  // namespace conflux::client
