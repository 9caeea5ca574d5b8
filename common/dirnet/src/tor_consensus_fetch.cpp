#include "conflux/dirnet/tor_consensus_fetch.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "conflux/bytes/base64.hpp"
#include "conflux/crypto/random.hpp"
#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dir/tor_to_consensus.hpp"
#include "tor_fetch_common.hpp"

namespace conflux::dirnet {
namespace asio = net::asio;
using net::awaitable;

namespace {

constexpr std::string_view kMicrodescConsensus = "/tor/status-vote/current/consensus-microdesc";
constexpr std::string_view kAllKeys = "/tor/keys/all";
constexpr std::string_view kMicrodescs = "/tor/micro/d/";

}  // namespace

namespace detail {
namespace {

void shuffle(std::vector<DirSource>& v) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[crypto::random_uniform(i)]);
}

}  // namespace

HttpLimits limits_for(const ConsensusQuery& q, std::size_t max_body) {
  HttpLimits l = q.http;
  l.max_body = max_body;
  return l;
}

namespace {

// A DirPort as a source: a plain HTTP GET.
DirSource dir_port(tcp::endpoint at) {
  DirSource s;
  s.name = "DirPort " + at.address().to_string() + ":" + std::to_string(at.port());
  s.get = [at](std::string target, HttpLimits limits) -> awaitable<Result<HttpResponse, std::string>> {
    auto res = co_await http_get(at, std::move(target), limits);
    if (!res) co_return Unexpected{std::string(to_string(res.error()))};
    co_return std::move(*res);
  };
  return s;
}

}  // namespace

std::vector<DirSource> sources_of(const ConsensusQuery& query) {
  std::vector<DirSource> sources;
  if (query.begin_dir_sources) sources = query.begin_dir_sources();
  shuffle(sources);
  std::vector<DirSource> dir_ports;
  for (const auto& at : query.sources) dir_ports.push_back(dir_port(at));
  shuffle(dir_ports);
  sources.insert(sources.end(), dir_ports.begin(), dir_ports.end());
  return sources;
}

awaitable<Result<std::string, FetchErrc>> get(const DirSource& from, std::string target, HttpLimits limits) {
  auto res = co_await from.get(std::move(target), limits);
  if (!res) co_return Unexpected{FetchErrc::Unreachable};
  if (res->status != 200) co_return Unexpected{FetchErrc::NotFound};
  co_return std::move(res->body);
}

// Certificates of trusted authorities from `from`, merged into the cache
// (newer ones for the same signing key replace nothing: a signing key is
// identified by its digest).
awaitable<void> refresh_certs(const ConsensusQuery& q, const DirSource& from, std::uint64_t now, TorDirCache& cache) {
  auto body = co_await get(from, std::string(kAllKeys), limits_for(q, dir::kMaxKeyCertsSize));
  if (!body) co_return;
  auto certs = dir::parse_key_certs(*body);
  if (!certs) co_return;
  std::erase_if(cache.certs, [now](const dir::AuthorityKeyCert& c) { return !dir::key_cert_current(c, now, 86400); });
  for (auto& c : *certs) {
    const bool trusted =
        std::find(q.tor_authorities.begin(), q.tor_authorities.end(), c.v3ident()) != q.tor_authorities.end();
    const bool known = std::any_of(cache.certs.begin(), cache.certs.end(), [&](const dir::AuthorityKeyCert& k) {
      return k.signing_key_digest() == c.signing_key_digest() && k.v3ident() == c.v3ident();
    });
    if (trusted && !known && dir::key_cert_current(c, now, 86400)) cache.certs.push_back(std::move(c));
  }
}

bool lacks_signer_cert(const dir::TorConsensus& c, const ConsensusQuery& q, const TorDirCache& cache) {
  return std::any_of(c.signatures.begin(), c.signatures.end(), [&](const dir::TorConsensusSignature& s) {
    const bool trusted =
        std::find(q.tor_authorities.begin(), q.tor_authorities.end(), s.v3ident) != q.tor_authorities.end();
    return trusted && std::none_of(cache.certs.begin(), cache.certs.end(), [&](const dir::AuthorityKeyCert& k) {
             return k.v3ident() == s.v3ident && k.signing_key_digest() == s.signing_key_digest;
           });
  });
}

awaitable<bool> verify_fetching_certs(const ConsensusQuery& q, const DirSource& from, const dir::TorConsensus& c,
                                      std::uint64_t now, TorDirCache& cache, bool every_signer) {
  auto verified = dir::verify_tor_consensus(c, cache.certs, q.tor_authorities, now, q.check.allowed_skew);
  if (!verified && verified.error().code == dir::DirErrc::NotEnoughSignatures) {
    co_await refresh_certs(q, from, now, cache);
    verified = dir::verify_tor_consensus(c, cache.certs, q.tor_authorities, now, q.check.allowed_skew);
  }
  if (!verified) co_return false;
  if (every_signer && lacks_signer_cert(c, q, cache)) co_await refresh_certs(q, from, now, cache);
  co_return true;
}

}  // namespace detail

namespace {
using detail::get;
using detail::limits_for;

// The microdescriptors of `c` the cache lacks, fetched from `from` in
// batches; the cache then holds exactly the consensus's ones it could get.
awaitable<void> refresh_microdescs(const ConsensusQuery& q, const DirSource& from, const dir::TorConsensus& c,
                                   TorDirCache& cache) {
  std::set<std::array<std::uint8_t, 32>> wanted;
  for (const auto& r : c.routers) wanted.insert(r.microdesc_digest);
  std::erase_if(cache.microdescs, [&](const auto& kv) { return !wanted.contains(kv.first); });
  std::vector<std::array<std::uint8_t, 32>> missing;
  for (const auto& d : wanted)
    if (!cache.microdescs.contains(d)) missing.push_back(d);
  for (std::size_t at = 0; at < missing.size(); at += kMicrodescBatch) {
    std::string target(kMicrodescs);
    for (std::size_t i = at; i < std::min(missing.size(), at + kMicrodescBatch); ++i)
      target += (i == at ? "" : "-") + bytes::base64_encode(missing[i]);
    auto body = co_await get(from, std::move(target), limits_for(q, kMicrodescBatch * 4096));
    if (!body) continue;
    auto mds = dir::parse_tor_microdescs(*body);
    if (!mds) continue;
    for (auto& md : *mds)
      if (wanted.contains(md.digest)) cache.microdescs.emplace(md.digest, std::move(md));
  }
}

dir::Consensus converted(const dir::TorConsensus& c, const TorDirCache& cache) {
  std::vector<dir::TorMicrodesc> mds;
  mds.reserve(cache.microdescs.size());
  for (const auto& [d, md] : cache.microdescs) mds.push_back(md);
  auto conv = dir::consensus_from_tor(c, mds);
  return dir::Consensus{std::move(conv.body)};
}

awaitable<Result<dir::Consensus, FetchErrc>> from_source(const ConsensusQuery& q, const DirSource& source,
                                                         const net::Clock& clock, std::uint64_t newer_than,
                                                         TorDirCache& cache) {
  auto body = co_await get(source, std::string(kMicrodescConsensus), limits_for(q, dir::kMaxTorConsensusSize));
  if (!body) co_return Unexpected{body.error()};
  auto c = dir::parse_tor_consensus(*body);
  if (!c || c->flavor != dir::ConsensusFlavor::Microdesc) co_return Unexpected{FetchErrc::Invalid};
  if (c->valid_after <= newer_than) co_return Unexpected{FetchErrc::NotNewer};
  const std::uint64_t now = clock.unix_seconds();
  if (!co_await detail::verify_fetching_certs(q, source, *c, now, cache, q.fetch_ns))
    co_return Unexpected{FetchErrc::Invalid};
  co_await refresh_microdescs(q, source, *c, cache);
  cache.consensus_text = std::move(*body);
  cache.consensus_source = source.name;
  co_return converted(*c, cache);
}

}  // namespace

awaitable<Result<dir::Consensus, FetchErrc>> fetch_tor_consensus(const ConsensusQuery& query,
                                                                const net::Clock& clock, std::uint64_t newer_than,
                                                                TorDirCache& cache) {
  const std::vector<DirSource> sources = detail::sources_of(query);
  FetchErrc worst = FetchErrc::NoSource;
  for (const auto& source : sources) {
    auto got = co_await from_source(query, source, clock, newer_than, cache);
    if (got) co_return got;
    keep_most_telling(worst, got.error());
  }
  co_return Unexpected{worst};
}

TorDirFiles files_of(const TorDirCache& cache) {
  TorDirFiles f;
  for (const auto& c : cache.certs) f.certs += c.text;
  f.consensus = cache.consensus_text;
  for (const auto& [d, md] : cache.microdescs) f.microdescs += md.text;
  f.ns_consensus = cache.ns_consensus_text;
  for (const auto& [d, desc] : cache.server_descriptors) f.descriptors += desc.text;
  return f;
}

namespace {

// The ns half of load_tor_files, checked as fetch_tor_ns checks it; the
// descriptors kept are those the ns consensus names.
void load_ns_files(const ConsensusQuery& query, const TorDirFiles& files, std::uint64_t now, TorDirCache& into) {
  into.ns_consensus_text.clear();
  into.server_descriptors.clear();
  if (files.ns_consensus.empty()) return;
  auto ns = dir::parse_tor_consensus(files.ns_consensus);
  if (!ns || ns->flavor != dir::ConsensusFlavor::Ns ||
      !dir::verify_tor_consensus(*ns, into.certs, query.tor_authorities, now, query.check.allowed_skew))
    return;
  into.ns_consensus_text = files.ns_consensus;
  into.ns_source = "the cache";
  auto descs = dir::parse_tor_server_descriptors(files.descriptors, now);
  if (!descs) return;
  std::set<crypto::RsaFingerprint> named;
  for (const auto& r : ns->routers) named.insert(r.descriptor_digest);
  for (auto& d : *descs)
    if (named.contains(d.router_digest)) into.server_descriptors.insert_or_assign(d.router_digest, std::move(d));
}

}  // namespace

std::optional<dir::Consensus> load_tor_files(const ConsensusQuery& query, const TorDirFiles& files, std::uint64_t now,
                                             TorDirCache& into) {
  auto certs = dir::parse_key_certs(files.certs);
  auto c = dir::parse_tor_consensus(files.consensus);
  auto mds = dir::parse_tor_microdescs(files.microdescs);
  if (!certs || !c || !mds || c->flavor != dir::ConsensusFlavor::Microdesc ||
      !dir::verify_tor_consensus(*c, *certs, query.tor_authorities, now, query.check.allowed_skew))
    return std::nullopt;
  into.certs = std::move(*certs);
  into.microdescs.clear();
  for (auto& md : *mds) into.microdescs.emplace(md.digest, std::move(md));
  into.consensus_text = files.consensus;
  into.consensus_source = "the cache";
  load_ns_files(query, files, now, into);
  return converted(*c, into);
}

}  // namespace conflux::dirnet
