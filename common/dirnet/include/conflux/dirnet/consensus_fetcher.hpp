#pragma once
// Keeping tor's microdesc consensus fresh (fetch_tor_consensus, from
// BEGIN_DIR sources first, then the authorities' DirPorts). Everything
// fetched is verified before it is used: against the configured
// authorities' v3idents (majority rule) and the clock.
//
// When to refetch: a consensus made at VA is fresh until FU = VA +
// interval, when the authorities make the next one, so asking before FU
// only returns the same document. As tor's caches do (dir-spec 5.1), the
// fetcher asks again shortly after FU, and retries with backoff until a
// newer one is out (the held one stays in use until valid-until).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "conflux/bytes/result.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/dir/consensus.hpp"
#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dirnet/http_client.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/net/clock.hpp"

namespace conflux::dirnet {

enum class FetchErrc : std::uint8_t {
  NoSource,     // nothing to ask
  Unreachable,  // every source failed at the HTTP level
  NotFound,     // sources answered, none had the document (non-200)
  Invalid,      // a document came but did not verify
  NotNewer,     // valid, but not newer than what we hold
};
[[nodiscard]] std::string_view to_string(FetchErrc e) noexcept;
// Keeps in `worst` the most telling of two failures (Invalid over NotNewer
// over NotFound over Unreachable over NoSource), across a fetch's sources.
void keep_most_telling(FetchErrc& worst, FetchErrc e) noexcept;

// A place tor's directory documents can come from besides a DirPort: a
// relay's ORPort over BEGIN_DIR, which the client layer provides as `get`
// (this layer has no circuits). `name` is for logs ("BEGIN_DIR moria1").
struct DirSource {
  std::string name;
  std::function<net::awaitable<Result<HttpResponse, std::string>>(std::string target, HttpLimits limits)> get;
};

struct ConsensusQuery {
  std::vector<tcp::endpoint> sources;                 // authorities' DirPorts
  // The authorities' v3idents: whose signatures count (tor_consensus_fetch.hpp).
  std::vector<crypto::RsaFingerprint> tor_authorities;
  dir::ConsensusCheck check;
  HttpLimits http{std::chrono::milliseconds(30000), 8192, dir::kMaxTorConsensusSize};
  // The BEGIN_DIR sources to ask first (called at each fetch, as they
  // depend on what the last consensus said); the DirPorts above are asked
  // only when none of these gave a consensus.
  std::function<std::vector<DirSource>()> begin_dir_sources{};
  // A directory cache's fetch: also the ns flavour and the server
  // descriptors it names, after each microdesc consensus, and the
  // certificate of every trusted signer (a client needs only a majority's;
  // a cache serves them all, as tor's caches do).
  bool fetch_ns = false;
};

struct FetcherOptions {
  std::chrono::milliseconds retry_initial{1000};
  std::chrono::milliseconds retry_max{60000};
  // The refetch after fresh-until waits this long plus a random part of up
  // to 1/8 of the interval, so clients do not all ask at once.
  std::chrono::milliseconds after_fresh{1000};
};

struct TorDirCache;

class ConsensusFetcher : public std::enable_shared_from_this<ConsensusFetcher> {
 public:
  static std::shared_ptr<ConsensusFetcher> create(net::asio::any_io_executor ex, const net::Clock& clock,
                                                  ConsensusQuery query, FetcherOptions options = {});
  ConsensusFetcher(net::asio::any_io_executor ex, const net::Clock& clock, ConsensusQuery query,
                   FetcherOptions options);

  // A consensus from a cache, already verified by the caller: held as if
  // fetched, so the first fetch asks only for a newer one. Before start().
  void seed(dir::Consensus c) { consensus_ = std::move(c); }
  // What is kept between fetches (certificates, microdescriptors, the
  // consensus as served), to save or to seed.
  [[nodiscard]] TorDirCache* tor_cache() noexcept { return tor_cache_.get(); }
  void start();
  void stop();

  // The newest consensus that verified (it may have passed valid-until if
  // no newer one could be fetched: check before use).
  [[nodiscard]] const std::optional<dir::Consensus>& consensus() const noexcept { return consensus_; }
  // Called with each newer consensus.
  std::function<void(const dir::Consensus&)> on_consensus;
  // query.fetch_ns: called when the ns consensus (and its descriptors) in
  // tor_cache() changed; it is asked for again after each microdesc one.
  std::function<void()> on_ns;
  // Called when a round of asking every source failed (NotNewer included).
  std::function<void(FetchErrc)> on_failure;

  [[nodiscard]] std::uint64_t fetched() const noexcept { return fetched_; }
  [[nodiscard]] std::uint64_t failed() const noexcept { return failed_; }

 private:
  net::awaitable<void> run();
  net::awaitable<void> follow_ns(std::uint64_t valid_after);

  const net::Clock& clock_;
  ConsensusQuery query_;
  FetcherOptions options_;
  net::asio::steady_timer timer_;
  std::shared_ptr<TorDirCache> tor_cache_;
  std::optional<dir::Consensus> consensus_;
  std::uint64_t fetched_ = 0, failed_ = 0;
  std::uint64_t ns_valid_after_ = 0;  // of the ns consensus on_ns last announced
  bool stopped_ = false;
};

}  // namespace conflux::dirnet
