#include "conflux/dirnet/authority_service.hpp"

#include <algorithm>
#include <utility>

#include "conflux/dir/authority.hpp"
#include "conflux/dir/paths.hpp"
#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dirnet/bandwidth_file_reader.hpp"
#include "conflux/dirnet/consensus_fetcher.hpp"
#include "conflux/dirnet/http_client.hpp"
#include "conflux/dirnet/tor_consensus_fetch.hpp"

namespace conflux::dirnet {
namespace asio = net::asio;
using net::awaitable;
using net::use_nothrow;

namespace {

constexpr std::chrono::milliseconds kDefaultProbeTimeout{5000};

// Waits for a set of spawned coroutines: each calls done(), the last one
// wakes the waiter.
struct Countdown {
  explicit Countdown(asio::any_io_executor ex) : timer(std::move(ex)) {}
  asio::steady_timer timer;
  std::size_t pending = 0;
  void done() {
    if (--pending == 0) timer.cancel();
  }
  awaitable<void> wait() {
    if (pending == 0) co_return;
    timer.expires_at(asio::steady_timer::time_point::max());
    co_await timer.async_wait(use_nothrow);
  }
};

}  // namespace

std::shared_ptr<AuthorityService> AuthorityService::create(asio::any_io_executor ex, const net::Clock& clock,
                                                           AuthorityState& state, AuthorityServiceOptions options,
                                                           ReachabilityProbe probe) {
  return std::make_shared<AuthorityService>(std::move(ex), clock, state, std::move(options), std::move(probe));
}

AuthorityService::AuthorityService(asio::any_io_executor ex, const net::Clock& clock, AuthorityState& state,
                                   AuthorityServiceOptions options, ReachabilityProbe probe)
    : ex_(ex),
      clock_(clock),
      state_(state),
      options_(std::move(options)),
      probe_(probe ? std::move(probe) : make_tls_probe(kDefaultProbeTimeout)),
      tick_timer_(ex) {
  if (options_.parallel_probes == 0) options_.parallel_probes = 1;
}

void AuthorityService::start() { asio::co_spawn(ex_, loop(), asio::detached); }

void AuthorityService::stop() {
  stopped_ = true;
  tick_timer_.cancel();
}

void AuthorityService::probe_soon(const crypto::Ed25519Public& identity) {
  if (stopped_ || soon_in_flight_ >= options_.parallel_probes) return;
  for (auto& t : state_.probe_targets()) {
    if (t.identity == identity) {
      ++soon_in_flight_;
      asio::co_spawn(ex_, probe_one(t),
                     [self = shared_from_this()](std::exception_ptr) { --self->soon_in_flight_; });
      return;
    }
  }
}

awaitable<void> AuthorityService::loop() {
  auto self = shared_from_this();
  const std::uint64_t interval = state_.options().params.interval;
  while (!stopped_) {
    const std::uint64_t now = clock_.unix_seconds();
    const std::uint64_t va = dir::valid_after_for(now, interval);
    if (built_va_ != va) {
      built_va_ = va;
      state_.expire(now);
      co_await probe_all();
      if (stopped_) co_return;
      build_and_send(va);
      if (on_built) on_built(va);
    }
    check_published();
    tick_timer_.expires_after(options_.tick);
    co_await tick_timer_.async_wait(use_nothrow);
  }
}

bool AuthorityService::is_self(const AuthorityPeer& peer) const {
  return options_.tor != nullptr && peer.v3ident == options_.tor->v3ident();
}

// Step 2 and 3: the body for VA, tor's documents written from it and our
// signatures on them, one POST per peer and flavor.
void AuthorityService::build_and_send(std::uint64_t va) {
  const dir::ConsensusBody& body =
      options_.bandwidth_file.empty()
          ? state_.compute(va)
          : state_.compute(va, read_bandwidth_file(options_.bandwidth_file, clock_.unix_seconds(), options_.log));
  TorAuthorityState* tor = options_.tor;
  if (tor == nullptr) return;
  const std::uint64_t now = clock_.unix_seconds();
  const std::string md_text = tor->build(body, now);
  const std::string ns_text = tor->build_ns(body, state_.tor_uploads().router_digests(), now);
  for (const AuthorityPeer& peer : options_.authorities) {
    if (is_self(peer)) continue;
    for (const std::string* t : {&md_text, &ns_text})
      if (!t->empty())
        asio::co_spawn(ex_, send_signature(peer, std::string(dir::kTorConsensusSignature), *t, va), asio::detached);
  }
  asio::co_spawn(ex_, catch_up_tor(va), asio::detached);
}

awaitable<void> AuthorityService::probe_all() {
  std::vector<ProbeTarget> relays = state_.probe_targets();
  for (std::size_t i = 0; i < relays.size() && !stopped_; i += options_.parallel_probes) {
    auto batch = std::make_shared<Countdown>(ex_);
    const std::size_t end = std::min(relays.size(), i + options_.parallel_probes);
    batch->pending = end - i;
    for (std::size_t j = i; j < end; ++j)
      asio::co_spawn(ex_, probe_one(std::move(relays[j])), [batch](std::exception_ptr) { batch->done(); });
    co_await batch->wait();
  }
}

awaitable<void> AuthorityService::probe_one(ProbeTarget t) {
  auto self = shared_from_this();
  const bool reachable = co_await probe_(t);
  if (stopped_) co_return;
  ++probes_;
  state_.observe(t.identity, clock_.unix_seconds(), reachable);
}

awaitable<void> AuthorityService::send_signature(AuthorityPeer peer, std::string path, std::string text,
                                                 std::uint64_t va) {
  auto self = shared_from_this();
  const auto max_delay = std::chrono::milliseconds(state_.options().params.interval * 1000 / 4 + 1);
  auto delay = options_.signature_retry;
  asio::steady_timer timer(ex_);
  while (!stopped_ && state_.current_valid_after() == va) {
    auto res = co_await http_post(peer.dir, path, text, options_.http);
    if (stopped_) co_return;
    if (res && res->status == 200) {
      ++delivered_;
      co_return;
    }
    // 409: the peer keeps it for when it builds this body (or computed
    // another one); 400: it refuses it. Sending again changes neither.
    if (res && (res->status == 409 || res->status == 400)) co_return;
    timer.expires_after(delay);
    co_await timer.async_wait(use_nothrow);
    delay = std::min(delay * 2, max_delay);
  }
}

// Step 4: from mid-interval, an authority that
// serves nothing for VA fetches the others' consensus (with their
// certificates and the microdescriptors) and serves it if a majority of the
// voters signed it; asked again every eighth of an interval until then.
awaitable<void> AuthorityService::catch_up_tor(std::uint64_t va) {
  auto self = shared_from_this();
  const std::uint64_t interval_ms = state_.options().params.interval * 1000;
  asio::steady_timer timer(ex_);
  timer.expires_after(std::chrono::milliseconds(interval_ms / 2));
  co_await timer.async_wait(use_nothrow);
  TorAuthorityState* tor = options_.tor;
  while (!stopped_ && state_.current_valid_after() == va && tor->published_valid_after() < va) {
    ConsensusQuery query;
    query.tor_authorities = tor->trusted();
    for (const AuthorityPeer& peer : options_.authorities)
      if (!is_self(peer)) query.sources.push_back(peer.dir);
    query.http.timeout = options_.http.timeout;
    TorDirCache cache;
    cache.certs = tor->certs();
    auto got = co_await fetch_tor_consensus(query, clock_, tor->published_valid_after(), cache);
    if (stopped_) co_return;
    if (got && tor->adopt(cache, clock_.unix_seconds())) {
      co_await catch_up_tor_ns(va);
      check_published();
      co_return;
    }
    timer.expires_after(std::chrono::milliseconds(interval_ms / 8 + 1));
    co_await timer.async_wait(use_nothrow);
  }
}

// With the microdesc consensus adopted, the ns one the same authorities
// signed (tor's relays fetch it as directory caches): from the first peer
// that serves one that verifies.
awaitable<void> AuthorityService::catch_up_tor_ns(std::uint64_t va) {
  auto self = shared_from_this();
  TorAuthorityState* tor = options_.tor;
  HttpLimits limits = options_.http;
  limits.max_body = dir::kMaxTorConsensusSize;
  for (const AuthorityPeer& peer : options_.authorities) {
    if (is_self(peer) || tor->ns_published_valid_after() >= va) continue;
    auto res = co_await http_get(peer.dir, std::string(dir::kTorConsensusNs), limits);
    if (stopped_) co_return;
    if (res && res->status == 200) (void)tor->adopt_ns(res->body, clock_.unix_seconds());
  }
}

void AuthorityService::check_published() {
  if (options_.tor != nullptr && options_.tor->published_valid_after() != tor_published_va_) {
    tor_published_va_ = options_.tor->published_valid_after();
    if (on_tor_published) on_tor_published(tor_published_va_);
  }
}

}  // namespace conflux::dirnet
