// The relay's ORPort self-test, as far as this relay can know it (tor's
// selftest.c and relay_periodic.c). tor's relays build testing circuits
// through the network back to themselves; ours build no circuits, so two
// outside facts count instead, neither of them a guess:
//   - tor's own rule (circuitbuild_relay.c, onionskin_answer): a CREATE on a
//     channel a peer made to us, whose NETINFO says it reached us at the
//     address we advertise, over that address family; a peer on a private
//     address counts only with TestingTorNetwork (tor's
//     ExtendAllowPrivateAddresses, which TestingTorNetwork turns on);
//   - the consensus listing us Running at the advertised IPv4 address and
//     ORPort: the authorities' own reachability test reached that port.
// Testing "begins" with the first consensus (tor tests once it has the
// directory information to build its circuits), or at start for a relay
// that fetches none; after 20 minutes without
// success, and every 20 minutes, a warning and REACHABILITY_FAILED.
#include <algorithm>

#include "conflux/dir/fields.hpp"
#include "conflux/proto/exit_policy.hpp"
#include "relay_process.hpp"

namespace conflux::relay {
namespace {

// tor's TIMEOUT_UNTIL_UNREACHABILITY_COMPLAINT.
constexpr auto kComplaint = std::chrono::minutes(20);

// tor's private ranges, as the exit policy's "private" names them.
bool is_private(const net::asio::ip::address& a) {
  if (a.is_v4()) return proto::is_private_address(cell::RelayIpAddr(a.to_v4().to_bytes()));
  const auto v6 = a.to_v6();
  if (v6.is_v4_mapped()) return is_private(net::asio::ip::make_address_v4(net::asio::ip::v4_mapped, v6));
  return proto::is_private_address(cell::RelayIpAddr(v6.to_bytes()));
}

}  // namespace

void RelayProcess::start_reachability() {
  const auto info = relay_info();
  if (!info) return;  // nothing advertised, nothing to test (tor: no routerinfo yet)
  const std::string port = ":" + std::to_string(info->or_port);
  reachability_.emplace(dir::format_ipv4(info->ipv4) + port,
                        info->ipv6 ? "[" + dir::format_ipv6(*info->ipv6) + "]" + port : std::string());
  // A relay that fetches no consensus (a bridge given no authorities) has
  // nothing to wait for.
  if (!consensus_ && !mirror_fetch_) reachability_checking();
  reachability_timer_.expires_after(kComplaint);
  reachability_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec && !stopped_) reachability_overdue();
  });
}

void RelayProcess::reachability_events(const std::vector<control::ReachabilityStatus::Event>& events) {
  for (const auto& e : events)
    if (control_) control_->server_status(e.severity, e.text);
}

void RelayProcess::reachability_checking() {
  if (!reachability_) return;
  const auto events = reachability_->start_checking();
  for (const bool ipv6 : {false, true}) {
    if (reachability_->reachable(ipv6) || events.empty()) continue;
    // Appended piece by piece: GCC 12 at -O2 reports a chain of + over a
    // temporary as out of bounds (-Warray-bounds, a known false positive).
    std::string line = "Now checking whether ";
    line += ipv6 ? "IPv6" : "IPv4";
    line += " ORPort ";
    line += reachability_->address(ipv6);
    line += " is reachable... (this may take up to 20 minutes -- look for log messages indicating success)";
    log::write(log::Severity::Notice, line);
  }
  reachability_events(events);
}

void RelayProcess::reachability_found(bool ipv6, std::string_view how) {
  if (!reachability_) return;
  const auto events = reachability_->found(ipv6);
  if (events.empty()) return;
  log::write(log::Severity::Notice, "Self-testing indicates your ORPort " + reachability_->address(ipv6) +
                                        " is reachable from the outside. Excellent. (" + std::string(how) + ")");
  reachability_events(events);
}

void RelayProcess::reachability_create(const net::ChannelReport& r) {
  if (!reachability_ || !r.our_address_seen_by_peer || !r.remote) return;
  if (!config_.options.testing_tor_network && is_private(r.remote->address())) return;
  const auto info = relay_info();
  if (!info) return;
  if (const auto* v4 = std::get_if<cell::NetinfoIpv4>(&*r.our_address_seen_by_peer)) {
    const auto peer = r.remote->address();
    const bool peer_v4 = peer.is_v4() || (peer.is_v6() && peer.to_v6().is_v4_mapped());
    if (v4->octets == info->ipv4 && peer_v4) reachability_found(false, "a CREATE cell from a peer that reached it");
  } else if (const auto* v6 = std::get_if<cell::NetinfoIpv6>(&*r.our_address_seen_by_peer)) {
    if (info->ipv6 && v6->octets == *info->ipv6 && r.remote->address().is_v6() &&
        !r.remote->address().to_v6().is_v4_mapped())
      reachability_found(true, "a CREATE cell from a peer that reached it");
  }
}

void RelayProcess::reachability_consensus(const dir::ConsensusBody& body) {
  if (!reachability_) return;
  reachability_checking();
  const auto info = relay_info();
  if (!info) return;
  const auto rsa = keys_.rsa_fingerprint();
  const auto me = std::find_if(body.routers.begin(), body.routers.end(), [&](const dir::RouterEntry& r) {
    return r.identity == keys_.identity() || r.rsa_identity == rsa;
  });
  if (me != body.routers.end() && me->flags.running && me->ipv4 == info->ipv4 && me->or_port == info->or_port)
    reachability_found(false, "the consensus lists it Running");
}

void RelayProcess::reachability_overdue() {
  const auto events = reachability_->overdue();
  if (!events.empty()) {
    std::string where;
    for (const bool ipv6 : {false, true})
      if (!reachability_->reachable(ipv6)) where += (where.empty() ? "" : " and ") + reachability_->address(ipv6);
    log::write(log::Severity::Warn, "Your server has not managed to confirm reachability for its ORPort(s) at " +
                                        where + ". Please check your firewalls, ports, address, /etc/hosts file, etc.");
    reachability_events(events);
  }
  reachability_timer_.expires_after(kComplaint);
  reachability_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec && !stopped_) reachability_overdue();
  });
}

}  // namespace conflux::relay
