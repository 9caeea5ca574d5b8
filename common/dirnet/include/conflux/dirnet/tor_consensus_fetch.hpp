#pragma once
// Getting a tor network's directory over its authorities' DirPorts, as a
// tor client does (dir-spec 4, 5): the microdesc consensus
// (/tor/status-vote/current/consensus-microdesc), the authorities' key
// certificates when the consensus names signing keys we do not hold
// (/tor/keys/all), and the microdescriptors it lists that we do not have yet
// (/tor/micro/d/D1-D2-..., in batches). The consensus must be signed by a
// majority of the configured v3idents, each with a current certificate.
// The result is the consensus our path selection reads
// (dir::consensus_from_tor).
#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "conflux/dir/tor_key_cert.hpp"
#include "conflux/dir/tor_microdesc.hpp"
#include "conflux/dir/tor_server_descriptor.hpp"
#include "conflux/dirnet/consensus_fetcher.hpp"

namespace conflux::dirnet {

// What is kept between fetches: certificates of trusted authorities, and the
// microdescriptors of the last consensus (tor's microdesc cache).
struct TorDirCache {
  std::vector<dir::AuthorityKeyCert> certs;
  std::map<std::array<std::uint8_t, 32>, dir::TorMicrodesc> microdescs;
  std::string consensus_text;  // the last consensus that verified, as served
  std::string consensus_source;  // where it came from: "DirPort ADDR:PORT" or a DirSource's name
  // A directory cache's ns flavour (query.fetch_ns, tor_ns_fetch.hpp): the
  // last ns consensus that verified, and the server descriptors it names
  // that could be fetched, by tor's descriptor digest.
  std::string ns_consensus_text;
  std::string ns_source;
  std::map<crypto::RsaFingerprint, dir::TorServerDescriptor> server_descriptors;
};

// The cache as tor's files would hold it: certificates, the consensus and
// the microdescriptors, and a directory cache's ns consensus and server
// descriptors (empty for a client), each the documents concatenated as served.
struct TorDirFiles {
  std::string certs, consensus, microdescs;
  std::string ns_consensus{}, descriptors{};
};
[[nodiscard]] TorDirFiles files_of(const TorDirCache& cache);
// Saved files back into a cache, if the consensus in them still verifies at
// `now` with the saved certificates (the same checks as a fetch); the
// consensus for path selection with it. The ns consensus and its
// descriptors come along when they verify too (else the cache has none).
[[nodiscard]] std::optional<dir::Consensus> load_tor_files(const ConsensusQuery& query, const TorDirFiles& files,
                                                           std::uint64_t now, TorDirCache& into);

inline constexpr std::size_t kMicrodescBatch = 92;  // digests per request (tor asks for at most this many)

// `query.tor_authorities` are the trusted v3idents, `query.sources` their
// DirPorts, `query.begin_dir_sources` the ORPorts to try first (as a tor
// client does); a document and the certificates and microdescriptors it
// needs come from one source. NotNewer when the consensus is not newer
// than `newer_than`.
[[nodiscard]] net::awaitable<Result<dir::Consensus, FetchErrc>> fetch_tor_consensus(const ConsensusQuery& query,
                                                                                   const net::Clock& clock,
                                                                                   std::uint64_t newer_than,
                                                                                   TorDirCache& cache);

inline constexpr std::size_t kServerDescriptorBatch = 96;  // digests per request (tor's MAX_DL_PER_REQUEST)

// A directory cache's ns flavour (query.fetch_ns; tor_ns_fetch.cpp): the ns
// consensus (/tor/status-vote/current/consensus) from the first source that
// has one with valid-after at least `at_least` and newer than the one held,
// verified as the microdesc one (a majority of the configured v3idents, with
// the cache's certificates); then the server descriptors it names that the
// cache lacks (/tor/server/d/D1+D2..., tor's digests, in batches from the same
// source), each verified and kept only when the consensus names its digest.
// The valid-after of the ns consensus held afterwards (the held one's, with
// no fetch, when it is new enough); else the most telling failure.
[[nodiscard]] net::awaitable<Result<std::uint64_t, FetchErrc>> fetch_tor_ns(const ConsensusQuery& query,
                                                                          const net::Clock& clock,
                                                                          std::uint64_t at_least,
                                                                          TorDirCache& cache);

}  // namespace conflux::dirnet
