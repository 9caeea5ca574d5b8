// Lookups: the hostname of a BEGIN, and RESOLVE requests (forward and PTR).
//
// Asio's resolver runs getaddrinfo/getnameinfo on a background thread and
// cannot abandon a lookup; the timeout here answers the client on time and
// the late result is ignored (the stream is closed by then).
#include <string>

#include "exit_impl.hpp"

namespace conflux::exit {

namespace {

LookupFailure classify(const boost::system::error_code& ec) {
  // EAI_NONAME and EAI_NODATA: the name does not exist or has no address.
  if (ec == asio::error::host_not_found) return LookupFailure::NotFound;
  return LookupFailure::Transient;
}

struct Addresses {
  std::vector<cell::Ipv4Bytes> v4;
  std::vector<cell::Ipv6Bytes> v6;
};

Addresses collect(const tcp::resolver::results_type& results) {
  Addresses a;
  for (const auto& entry : results) {
    const asio::ip::address addr = entry.endpoint().address();
    if (addr.is_v4()) {
      a.v4.push_back(addr.to_v4().to_bytes());
    } else if (addr.to_v6().is_v4_mapped()) {
      a.v4.push_back(asio::ip::make_address_v4(asio::ip::v4_mapped, addr.to_v6()).to_bytes());
    } else {
      a.v6.push_back(addr.to_v6().to_bytes());
    }
  }
  return a;
}

}  // namespace

void ExitStreams::Impl::dns_done(const StreamPtr& s) {
  if (!s->dns_counted) return;
  s->dns_counted = false;
  --dns_pending;
}

void ExitStreams::Impl::dns_timed_out(StreamPtr s) {
  ++counters.dns_failures;
  dns_done(s);
  log(LogLevel::Info, "DNS lookup timed out");
  if (s->resolve_only) return answer_resolve(s, resolved_error(LookupFailure::Transient, cfg.dns_ttl));
  fail(s, cell::EndReason::ResolveFailed);
}

void ExitStreams::Impl::start_lookup(StreamPtr s, const std::string& host) {
  s->phase = Phase::Resolving;
  s->dns_counted = true;
  ++dns_pending;
  arm_timer(s, cfg.timeouts.dns, &Impl::dns_timed_out);
  s->resolver.async_resolve(host, std::to_string(s->port), tcp::resolver::numeric_service,
                            [this, s](const boost::system::error_code& ec, tcp::resolver::results_type results) {
                              if (s->closed || s->phase != Phase::Resolving) return;
                              on_lookup(s, ec, results);
                            });
}

void ExitStreams::Impl::on_lookup(StreamPtr s, const boost::system::error_code& ec,
                                  const tcp::resolver::results_type& results) {
  dns_done(s);
  s->timer.cancel();
  if (ec) {
    ++counters.dns_failures;
    log(LogLevel::Info, "DNS lookup failed: " + ec.message());
    if (s->resolve_only) return answer_resolve(s, resolved_error(classify(ec), cfg.dns_ttl));
    return fail(s, cell::EndReason::ResolveFailed);
  }
  const Addresses found = collect(results);
  if (s->resolve_only) return answer_resolve(s, resolved_addresses(found.v4, found.v6, cfg.dns_ttl));
  auto chosen = choose_address(found.v4, found.v6, family_choice(s->flags, cfg.ipv6_exit));
  if (!chosen) {
    // Names with addresses only of families the client (or we) refuse.
    log(LogLevel::Info, "DNS lookup found no usable address");
    return fail(s, cell::EndReason::ResolveFailed);
  }
  s->addr = *chosen;
  s->ttl = cfg.dns_ttl;
  connect_checked(s);
}

void ExitStreams::Impl::connect_checked(StreamPtr s) {
  const bool v6 = std::holds_alternative<cell::Ipv6Bytes>(s->addr);
  if ((v6 && !cfg.ipv6_exit) || cfg.policy.check(s->addr, s->port) == proto::PolicyAction::Reject) {
    log(LogLevel::Info, "BEGIN refused by the exit policy");
    // tor's END EXITPOLICY names the address it refused and its TTL.
    return fail(s, cell::EndReason::ExitPolicy, cell::RelayAddrTtl{s->addr, s->ttl});
  }
  start_connect(s);
}

void ExitStreams::Impl::start_resolve_request(StreamPtr s, const std::string& name) {
  // An address resolves to itself, as in tor.
  if (auto literal = parse_ip_literal(name)) {
    if (auto* v4 = std::get_if<cell::Ipv4Bytes>(&*literal)) {
      return answer_resolve(s, resolved_addresses(std::span(v4, 1), {}, cfg.literal_ttl));
    }
    return answer_resolve(s, resolved_addresses({}, std::span(&std::get<cell::Ipv6Bytes>(*literal), 1),
                                                cfg.literal_ttl));
  }
  const auto reverse = parse_reverse_name(name);
  if (!reverse && (cell::is_reverse_lookup_name(name) || is_unresolvable_name(name))) {
    return answer_resolve(s, resolved_error(LookupFailure::NotFound, cfg.dns_ttl));
  }
  if (dns_pending >= cfg.limits.max_pending_dns) {
    return answer_resolve(s, resolved_error(LookupFailure::Transient, cfg.dns_ttl));
  }
  s->dns_counted = true;
  ++dns_pending;
  arm_timer(s, cfg.timeouts.dns, &Impl::dns_timed_out);
  if (!reverse) {
    s->resolver.async_resolve(name, "", [this, s](const boost::system::error_code& ec,
                                                  tcp::resolver::results_type results) {
      if (s->closed || s->phase != Phase::Resolving) return;
      on_lookup(s, ec, results);
    });
    return;
  }
  const tcp::endpoint target = to_endpoint(*reverse, 0);
  s->resolver.async_resolve(target, [this, s, target](const boost::system::error_code& ec,
                                                      tcp::resolver::results_type results) {
    if (s->closed || s->phase != Phase::Resolving) return;
    dns_done(s);
    s->timer.cancel();
    // getnameinfo falls back to the numeric form when there is no PTR record.
    const std::string host = (ec || results.empty()) ? std::string() : results.begin()->host_name();
    if (ec || host.empty() || host == target.address().to_string()) {
      ++counters.dns_failures;
      const LookupFailure why = ec ? classify(ec) : LookupFailure::NotFound;
      return answer_resolve(s, resolved_error(why, cfg.dns_ttl));
    }
    answer_resolve(s, resolved_hostname(host, cfg.dns_ttl));
  });
}

void ExitStreams::Impl::answer_resolve(StreamPtr s, const cell::ResolvedMsg& answer) {
  if (send(s, answer)) finish(s);
}

}  // namespace conflux::exit
