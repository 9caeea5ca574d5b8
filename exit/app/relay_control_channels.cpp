// The relay's channels and ORPort self-test on its ControlPort: ORCONN
// events and orconn-status for every channel, inbound and outbound
// (control-spec 4.1.3, 3.9; control::orconn_event words them as tor), and
// GETINFO status/reachability-succeeded[/or|/dir].
#include <string>

#include "conflux/control/orconn_event.hpp"
#include "relay_control.hpp"

namespace conflux::relay {
namespace {

control::OrConnStatus status_of(net::ChannelReport::Status s) {
  switch (s) {
    case net::ChannelReport::Status::New: return control::OrConnStatus::New;
    case net::ChannelReport::Status::Launched: return control::OrConnStatus::Launched;
    case net::ChannelReport::Status::Connected: return control::OrConnStatus::Connected;
    case net::ChannelReport::Status::Failed: return control::OrConnStatus::Failed;
    case net::ChannelReport::Status::Closed: return control::OrConnStatus::Closed;
  }
  return control::OrConnStatus::Closed;
}

}  // namespace

// tor's orconn_target_get_name: the relay by its RSA identity (with the
// consensus's nickname) once it is known, else the peer's address.
std::string RelayControl::orconn_target(const net::ChannelReport& r) const {
  control::OrConnTarget t;
  if (r.rsa) {
    t.rsa = *r.rsa;
    t.nickname = ns_.nickname_of(*r.rsa);
  }
  if (r.remote) {
    const auto a = r.remote->address();
    t.address = (a.is_v6() ? "[" + a.to_string() + "]" : a.to_string()) + ":" + std::to_string(r.remote->port());
  } else {
    t.address = "0.0.0.0:0";  // the socket had no peer address to give
  }
  return control::orconn_target_name(t);
}

void RelayControl::orconn(const net::ChannelReport& r) {
  if (port_) port_->publish("ORCONN", control::orconn_event(orconn_target(r), status_of(r.status), r.reason,
                                                            r.circuits, r.id));
}

void RelayControl::add_channel_info() {
  using V = std::optional<std::string>;
  auto& info = program_.info();
  info.add("orconn-status", "A list of current OR connections.", [this](std::string_view) {
    std::string out;
    if (src_.channels)
      for (const auto& r : src_.channels()) out += control::orconn_status_line(orconn_target(r), status_of(r.status)) + "\n";
    return V(out);
  });
  const auto reach = [this]() -> const control::ReachabilityStatus* {
    return src_.reachability ? src_.reachability() : nullptr;
  };
  info.add("status/reachability-succeeded/or", "Whether we've found our ORPort reachable.",
           [reach](std::string_view) { return V(reach() && reach()->all_reachable() ? "1" : "0"); });
  info.add("status/reachability-succeeded/dir", "Whether we've found our DirPort reachable.",
           [](std::string_view) { return V("1"); });
  info.add("status/reachability-succeeded", "Whether we've found our ORPort and DirPort reachable.",
           [reach](std::string_view) { return V(reach() ? reach()->summary() : std::string("OR=0 DIR=1")); });
}

}  // namespace conflux::relay
