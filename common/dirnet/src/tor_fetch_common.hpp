#pragma once
// What fetching tor's microdesc consensus (tor_consensus_fetch.cpp) and a
// cache's ns flavour (tor_ns_fetch.cpp) share: the sources in the order a
// tor client asks them, one GET, and the authorities' key certificates.
// Internal to conflux_dirnet.
#include <string>
#include <vector>

#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dirnet/tor_consensus_fetch.hpp"

namespace conflux::dirnet::detail {

[[nodiscard]] HttpLimits limits_for(const ConsensusQuery& q, std::size_t max_body);
// The BEGIN_DIR sources in random order, then the DirPorts in random order.
[[nodiscard]] std::vector<DirSource> sources_of(const ConsensusQuery& query);
// The body of a 200 answer; Unreachable or NotFound otherwise.
[[nodiscard]] net::awaitable<Result<std::string, FetchErrc>> get(const DirSource& from, std::string target,
                                                                HttpLimits limits);
// Certificates of trusted authorities from `from`, merged into the cache.
[[nodiscard]] net::awaitable<void> refresh_certs(const ConsensusQuery& q, const DirSource& from, std::uint64_t now,
                                                 TorDirCache& cache);

// Whether `c` carries a signature of a trusted authority whose certificate
// (v3ident and signing key) the cache lacks: a majority verified it, but a
// cache serves every signer's certificate, as tor's caches fetch them.
[[nodiscard]] bool lacks_signer_cert(const dir::TorConsensus& c, const ConsensusQuery& q, const TorDirCache& cache);

// Whether `c` verifies against the cache's certificates, fetched from `from`
// when too few signatures check; with `every_signer` (a cache), the
// certificates of signers it still lacks are fetched too.
[[nodiscard]] net::awaitable<bool> verify_fetching_certs(const ConsensusQuery& q, const DirSource& from,
                                                         const dir::TorConsensus& c, std::uint64_t now,
                                                         TorDirCache& cache, bool every_signer);

}  // namespace conflux::dirnet::detail
