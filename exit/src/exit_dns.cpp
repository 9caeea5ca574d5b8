// Lookups: the hostname of a BEGIN, and RESOLVE requests (forward and PTR),
// through the exit's DnsResolver (c-ares on the io_context).
//
// tor's answers: a name the resolver could not find gets END RESOLVEFAILED
// (BEGIN) or RESOLVED ERROR / ERROR_TRANSIENT (RESOLVE); a stream whose
// lookup outlives ExitTimeouts::dns gets END TIMEOUT, as tor's pending
// resolves that expire do. The client is told the clipped TTL.
#include <memory>
#include <string>

#include "exit_impl.hpp"

namespace conflux::exit {

namespace {

LookupFailure failure_of(const DnsAnswer& a) {
  return a.status == DnsAnswer::Status::Transient ? LookupFailure::Transient : LookupFailure::NotFound;
}

}  // namespace

void ExitStreams::Impl::dns_done(const StreamPtr& s) {
  if (!s->dns_counted) return;
  s->dns_counted = false;
  --dns_pending;
}

void ExitStreams::Impl::dns_timed_out(StreamPtr s) {
  ++counters.dns_failures;
  ++counters.dns_timeouts;
  dns_done(s);
  log(LogLevel::Info, "DNS lookup timed out");
  if (s->resolve_only) return answer_resolve(s, resolved_error(LookupFailure::Transient, cfg.dns_ttl));
  fail(s, cell::EndReason::Timeout);
}

bool ExitStreams::Impl::ask(const StreamPtr& s, const std::string& name,
                            const std::optional<cell::RelayIpAddr>& reverse) {
  // The answer comes back through a weak reference: a stream that ended
  // meanwhile is not kept alive by its lookup.
  auto done = [this, w = std::weak_ptr<Stream>(s)](const DnsAnswer& a) {
    const StreamPtr live = w.lock();
    if (!live || live->closed || live->phase != Phase::Resolving) return;
    on_answer(live, a);
  };
  const bool asked = reverse ? dns.reverse(*reverse, std::move(done)) : dns.resolve(name, std::move(done));
  if (!asked) {
    ++counters.dns_refused_full;
    log(LogLevel::Info, "lookup refused: too many DNS queries in flight");
    return false;
  }
  s->dns_counted = true;
  ++dns_pending;
  arm_timer(s, cfg.timeouts.dns, &Impl::dns_timed_out);
  return true;
}

void ExitStreams::Impl::start_lookup(StreamPtr s, const std::string& host) {
  s->phase = Phase::Resolving;
  if (!ask(s, host, std::nullopt)) fail(s, cell::EndReason::ResourceLimit);
}

void ExitStreams::Impl::on_answer(StreamPtr s, const DnsAnswer& a) {
  dns_done(s);
  s->timer.cancel();
  if (a.from_cache) ++counters.dns_cache_hits;
  if (a.status != DnsAnswer::Status::Ok) {
    ++counters.dns_failures;
    log(LogLevel::Info, a.status == DnsAnswer::Status::Transient ? "DNS lookup failed (transient)"
                                                                 : "DNS lookup found no such name");
    if (s->resolve_only) return answer_resolve(s, resolved_error(failure_of(a), cfg.dns_ttl));
    return fail(s, cell::EndReason::ResolveFailed);
  }
  if (s->resolve_only) {
    if (!a.hostname.empty()) return answer_resolve(s, resolved_hostname(a.hostname, a.ttl));
    return answer_resolve(s, resolved_addresses(a.v4, a.v6, a.ttl));
  }
  auto chosen = choose_address(a.v4, a.v6, family_choice(s->flags, cfg.ipv6_exit));
  if (!chosen) {
    // Names with addresses only of families the client (or we) refuse.
    log(LogLevel::Info, "DNS lookup found no usable address");
    return fail(s, cell::EndReason::ResolveFailed);
  }
  s->addr = *chosen;
  s->ttl = a.ttl;
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
  if (!cfg.dns.allow_non_rfc953 && !is_rfc953_name(name)) {
    return answer_resolve(s, resolved_error(LookupFailure::NotFound, cfg.dns_ttl));
  }
  if (!ask(s, name, reverse)) return answer_resolve(s, resolved_error(LookupFailure::Transient, cfg.dns_ttl));
}

void ExitStreams::Impl::answer_resolve(StreamPtr s, const cell::ResolvedMsg& answer) {
  if (send(s, answer)) finish(s);
}

}  // namespace conflux::exit
