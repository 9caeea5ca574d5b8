// A directory cache's second flavour. Stock relays, and clients with
// UseMicrodescriptors 0 (or their bridges' users), ask a cache for the ns
// consensus and the server descriptors it names; tor's caches fetch both
// after each consensus (directory_caches_dir_info), and so does ours.
#include <set>
#include <string>

#include "conflux/bytes/hex.hpp"
#include "conflux/dir/tor_consensus.hpp"
#include "tor_fetch_common.hpp"

namespace conflux::dirnet {
using net::awaitable;

namespace {

constexpr std::string_view kNsConsensus = "/tor/status-vote/current/consensus";
constexpr std::string_view kServerByDigest = "/tor/server/d/";

std::uint64_t held_valid_after(const TorDirCache& cache) {
  if (cache.ns_consensus_text.empty()) return 0;
  auto c = dir::parse_tor_consensus(cache.ns_consensus_text);
  return c ? c->valid_after : 0;
}

// The descriptors `c` names that the cache lacks, from `from` in batches;
// the cache then holds exactly the consensus's ones it could get. A batch
// with a descriptor that does not verify is dropped whole (the parser stops
// at the first); the next round asks for those again.
awaitable<void> refresh_descriptors(const ConsensusQuery& q, const DirSource& from, const dir::TorConsensus& c,
                                    std::uint64_t now, TorDirCache& cache) {
  std::set<crypto::RsaFingerprint> wanted;
  for (const auto& r : c.routers) wanted.insert(r.descriptor_digest);
  std::erase_if(cache.server_descriptors, [&](const auto& kv) { return !wanted.contains(kv.first); });
  std::vector<crypto::RsaFingerprint> missing;
  for (const auto& d : wanted)
    if (!cache.server_descriptors.contains(d)) missing.push_back(d);
  for (std::size_t at = 0; at < missing.size(); at += kServerDescriptorBatch) {
    std::string target(kServerByDigest);
    const std::size_t end = std::min(missing.size(), at + kServerDescriptorBatch);
    for (std::size_t i = at; i < end; ++i) target += (i == at ? "" : "+") + bytes::to_hex(missing[i], true);
    auto body = co_await detail::get(
        from, std::move(target), detail::limits_for(q, (end - at) * dir::kMaxTorServerDescriptorSize));
    if (!body) continue;
    auto descs = dir::parse_tor_server_descriptors(*body, now);
    if (!descs) continue;
    for (auto& d : *descs)
      if (wanted.contains(d.router_digest)) cache.server_descriptors.insert_or_assign(d.router_digest, std::move(d));
  }
}

awaitable<Result<std::uint64_t, FetchErrc>> ns_from(const ConsensusQuery& q, const DirSource& source,
                                                   const net::Clock& clock, std::uint64_t at_least,
                                                   std::uint64_t held, TorDirCache& cache) {
  auto body = co_await detail::get(source, std::string(kNsConsensus),
                                   detail::limits_for(q, dir::kMaxTorConsensusSize));
  if (!body) co_return Unexpected{body.error()};
  auto c = dir::parse_tor_consensus(*body);
  if (!c || c->flavor != dir::ConsensusFlavor::Ns) co_return Unexpected{FetchErrc::Invalid};
  if (c->valid_after < at_least || c->valid_after <= held) co_return Unexpected{FetchErrc::NotNewer};
  const std::uint64_t now = clock.unix_seconds();
  if (!co_await detail::verify_fetching_certs(q, source, *c, now, cache, true))
    co_return Unexpected{FetchErrc::Invalid};
  co_await refresh_descriptors(q, source, *c, now, cache);
  cache.ns_consensus_text = std::move(*body);
  cache.ns_source = source.name;
  co_return c->valid_after;
}

}  // namespace

awaitable<Result<std::uint64_t, FetchErrc>> fetch_tor_ns(const ConsensusQuery& query, const net::Clock& clock,
                                                        std::uint64_t at_least, TorDirCache& cache) {
  const std::uint64_t held = held_valid_after(cache);
  if (held != 0 && held >= at_least) co_return held;
  FetchErrc worst = FetchErrc::NoSource;
  for (const auto& source : detail::sources_of(query)) {
    auto got = co_await ns_from(query, source, clock, at_least, held, cache);
    if (got) co_return got;
    keep_most_telling(worst, got.error());
  }
  co_return Unexpected{worst};
}

}  // namespace conflux::dirnet
