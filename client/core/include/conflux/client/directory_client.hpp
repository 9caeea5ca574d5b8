#pragma once
// The proxy's view of the network: tor's microdesc consensus and its
// microdescriptors, fetched from the authorities and caches and verified
// (a majority of the configured authorities' v3idents, with their key
// certificates; time window), kept fresh by dirnet::ConsensusFetcher, and
// cached in the DataDirectory as tor keeps them so a restart can build
// circuits at once. A cached document is used only if it still verifies.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conflux/client/begin_dir.hpp"
#include "conflux/dirnet/consensus_fetcher.hpp"
#include "conflux/dirnet/tor_consensus_fetch.hpp"
#include "conflux/net/log_sink.hpp"

namespace conflux::client {

class DirectoryClient {
 public:
  struct Options {
    std::filesystem::path data_directory;
    std::vector<net::tcp::endpoint> authorities_at;
    // The authorities' v3idents (DirAuthority lines): tor's documents are
    // fetched (dirnet::fetch_tor_consensus) and cached as tor's files.
    std::vector<crypto::RsaFingerprint> tor_authorities;
    // tor's directory: relays (authorities, fallbacks) to ask over BEGIN_DIR
    // at their ORPorts, as a tor client does, from the first fetch on (the
    // link proves the RSA fingerprint of their lines); the DirPorts only
    // when they all fail. Null `links`: DirPorts only.
    struct OrPortRelay {
      crypto::RsaFingerprint rsa_identity{};
      net::tcp::endpoint at;
      std::string name;
    };
    std::vector<OrPortRelay> begin_dir_relays;
    LinkPool* links = nullptr;
    dir::ConsensusCheck check{};
  };

  DirectoryClient(net::asio::io_context& io, const net::Clock& clock, Options options, net::LogSink log);
  ~DirectoryClient();
  DirectoryClient(const DirectoryClient&) = delete;
  DirectoryClient& operator=(const DirectoryClient&) = delete;

  // Loads the cache (true if it held a usable consensus), then starts fetching.
  bool start();
  void stop();

  [[nodiscard]] const std::optional<dir::Consensus>& consensus() const;
  // Called with each newer consensus (also once for a usable cache), and
  // with where it came from ("the cache", "BEGIN_DIR moria1", "DirPort ...").
  std::function<void(const dir::Consensus&, std::string_view source)> on_consensus;

  // A microdescriptor of tor's directory by its digest (the consensus's
  // "m", RouterEntry::descriptor_digest), as served; nullopt when it is not
  // held.
  [[nodiscard]] std::optional<std::string> microdesc_text(const std::array<std::uint8_t, 32>& digest) const;

  [[nodiscard]] std::uint64_t fetched() const;
  [[nodiscard]] std::uint64_t failed() const;

 private:
  // A tor network's documents, as tor keeps them: cached-certs,
  // cached-microdesc-consensus and cached-microdescs in the DataDirectory.
  std::optional<dir::Consensus> load_tor_cache();
  void save_tor_cache() const;
  void write_atomically(const std::filesystem::path& path, const std::string& text) const;
  // The file's text, or "" if it is missing or longer than `limit`.
  std::string read_small(const std::filesystem::path& path, std::size_t limit) const;

  // The BEGIN_DIR sources: every authority and fallback, with the Ed25519
  // identities the consensus `c` gives (null: none yet).
  void update_begin_dir(const dir::Consensus* c);

  const net::Clock& clock_;
  Options options_;
  // Read by the fetcher at each fetch; replaced with each consensus.
  std::shared_ptr<std::vector<DirRelay>> begin_dir_ = std::make_shared<std::vector<DirRelay>>();
  net::LogSink log_;
  std::shared_ptr<dirnet::ConsensusFetcher> fetcher_;
  std::optional<dir::Consensus> none_;
};

}  // namespace conflux::client
