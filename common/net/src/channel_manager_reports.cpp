// ChannelManager's reports to its observer: ORCONN's moments and words
// (tor's connection_or.c and reasons.c), and the CREATE cells the relay's
// reachability self-test counts.
#include <algorithm>

#include "conflux/net/channel_manager.hpp"

namespace conflux::net {
namespace {

bool says(std::string_view text, std::string_view words) { return text.find(words) != std::string_view::npos; }

// tor's errno_to_orconn_end_reason, for a TCP connect that failed.
std::string_view connect_reason(const boost::system::error_code& ec) {
  if (ec == asio::error::connection_refused) return "CONNECTREFUSED";
  if (ec == asio::error::timed_out) return "TIMEOUT";
  if (ec == asio::error::connection_reset) return "CONNECTRESET";
  if (ec == asio::error::host_unreachable || ec == asio::error::network_unreachable) return "NOROUTE";
  return "MISC";
}

// A channel we launched that closed before its handshake finished: the
// handshake's verdict when it gave one (the wrong relay answered is
// IDENTITY, as tor's connection_or_client_learned_peer_id), else the socket's.
std::string_view handshake_reason(const LinkChannel& link, std::string_view why) {
  if (const auto f = link.failure())
    return *f == proto::LinkFailure::IdentityMismatch || *f == proto::LinkFailure::TlsCertMismatch ? "IDENTITY"
                                                                                                   : "MISC";
  if (link.timed_out()) return "TIMEOUT";
  if (says(why, "reset")) return "CONNECTRESET";
  return "MISC";
}

}  // namespace

ChannelReport ChannelManager::report_of(const Entry& e, ChannelReport::Status status) const {
  ChannelReport r;
  r.status = status;
  r.id = e.orconn_id;
  r.outbound = e.outbound;
  r.rsa = e.rsa;
  r.remote = e.remote;
  if (e.open && e.link->done()) r.our_address_seen_by_peer = e.link->done()->our_address_seen_by_peer;
  return r;
}

void ChannelManager::report(const Entry& e, ChannelReport::Status status, std::string_view reason,
                            std::size_t circuits) {
  if (!observer_.report) return;
  ChannelReport r = report_of(e, status);
  r.reason = reason;
  r.circuits = circuits;
  observer_.report(r);
}

ChannelReport ChannelManager::connect_report(const Connect& c, ChannelReport::Status status) {
  ChannelReport r;
  r.status = status;
  r.id = c.orconn_id;
  r.outbound = true;
  r.rsa = c.rsa;
  r.remote = c.first;
  return r;
}

void ChannelManager::report_connect(const Connect& c, ChannelReport::Status status, std::string_view reason) {
  if (!observer_.report) return;
  ChannelReport r = connect_report(c, status);
  r.reason = reason;
  r.circuits = c.requests.size();
  observer_.report(r);
}

void ChannelManager::report_connect_failed(const Connect& c, const boost::system::error_code& ec) {
  report_connect(c, ChannelReport::Status::Failed, connect_reason(ec));
}

void ChannelManager::report_closed(std::uint64_t id, const Entry& e, const LinkChannel& link, std::string_view why,
                                   std::size_t waiting) {
  if (e.open) {
    // tor: an open connection's close is DONE unless the socket was reset.
    report(e, ChannelReport::Status::Closed, says(why, "reset") ? "CONNECTRESET" : "DONE", switch_.circuits_on(id));
  } else if (e.outbound) {
    report(e, ChannelReport::Status::Failed, handshake_reason(link, why), waiting);
  }
  // An inbound channel that never opened is not told (tor's connection_or_about_to_close).
}

void ChannelManager::report_create(const Entry& e, const cell::CellView& c) {
  if (!observer_.inbound_create || e.outbound) return;
  if (c.command != cell::CellCommand::Create && c.command != cell::CellCommand::Create2 &&
      c.command != cell::CellCommand::CreateFast)
    return;
  observer_.inbound_create(report_of(e, ChannelReport::Status::Connected));
}

std::vector<ChannelReport> ChannelManager::channel_reports() const {
  std::vector<ChannelReport> out;
  for (const auto& [id, e] : channels_) {
    const auto status = e.open ? ChannelReport::Status::Connected
                               : e.outbound ? ChannelReport::Status::Launched : ChannelReport::Status::New;
    out.push_back(report_of(e, status));
  }
  for (const auto& [key, c] : connecting_) {
    if (!c.channel) out.push_back(connect_report(c, ChannelReport::Status::Launched));  // else listed above
  }
  std::sort(out.begin(), out.end(), [](const ChannelReport& a, const ChannelReport& b) { return a.id < b.id; });
  return out;
}

}  // namespace conflux::net
