#include "conflux/client/directory_client.hpp"

#include "conflux/dir/tor_consensus.hpp"

#include <algorithm>
#include <fstream>

#include <sstream>
#include <system_error>

namespace conflux::client {

DirectoryClient::DirectoryClient(net::asio::io_context& io, const net::Clock& clock, Options options,
                                 net::LogSink log)
    : clock_(clock), options_(std::move(options)), log_(std::move(log)) {
  dirnet::ConsensusQuery q;
  q.sources = options_.authorities_at;
  q.tor_authorities = options_.tor_authorities;
  q.check = options_.check;
  if (options_.links != nullptr)
    q.begin_dir_sources = [relays = begin_dir_, links = options_.links, clock = &clock_] {
      std::vector<dirnet::DirSource> out;
      for (const auto& r : *relays) {
        dirnet::DirSource s;
        s.name = "BEGIN_DIR " + r.name;
        s.get = [links, clock, r](std::string target, dirnet::HttpLimits limits) {
          return begin_dir_get(*links, *clock, r, std::move(target), limits.max_body, limits.timeout);
        };
        out.push_back(std::move(s));
      }
      return out;
    };
  fetcher_ = dirnet::ConsensusFetcher::create(io.get_executor(), clock_, std::move(q));
  update_begin_dir(nullptr);
}

// Every authority and fallback, named by the RSA fingerprint of its line
// (the link proves it and learns the Ed25519 identity), with its Ed25519
// identity too once a consensus lists it.
void DirectoryClient::update_begin_dir(const dir::Consensus* c) {
  std::vector<DirRelay> relays;
  for (const auto& hint : options_.begin_dir_relays) {
    DirRelay relay{hint.at, crypto::Ed25519Public{}, hint.rsa_identity, hint.name};
    if (c != nullptr) {
      auto r = std::find_if(c->body.routers.begin(), c->body.routers.end(),
                            [&](const dir::RouterEntry& e) { return e.rsa_identity == hint.rsa_identity; });
      if (r != c->body.routers.end()) relay.identity = r->identity;
    }
    relays.push_back(std::move(relay));
  }
  *begin_dir_ = std::move(relays);
}

DirectoryClient::~DirectoryClient() { stop(); }

void DirectoryClient::write_atomically(const std::filesystem::path& path, const std::string& text) const {
  // Write then rename, so a crash never leaves half a document.
  auto tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.good()) {
      net::emit(log_, net::LogLevel::Warn, "Cannot write " + tmp.string());
      return;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) net::emit(log_, net::LogLevel::Warn, "Cannot replace " + path.string() + ": " + ec.message());
}

std::string DirectoryClient::read_small(const std::filesystem::path& path, std::size_t limit) const {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str().size() > limit ? std::string() : text.str();
}

std::optional<std::string> DirectoryClient::microdesc_text(const std::array<std::uint8_t, 32>& digest) const {
  const dirnet::TorDirCache* cache = fetcher_ ? fetcher_->tor_cache() : nullptr;
  if (cache == nullptr) return std::nullopt;
  const auto it = cache->microdescs.find(digest);
  if (it == cache->microdescs.end()) return std::nullopt;
  return it->second.text;
}

std::optional<dir::Consensus> DirectoryClient::load_tor_cache() {
  dirnet::TorDirFiles files{read_small(options_.data_directory / "cached-certs", dir::kMaxKeyCertsSize),
                            read_small(options_.data_directory / "cached-microdesc-consensus", dir::kMaxTorConsensusSize),
                            read_small(options_.data_directory / "cached-microdescs", dir::kMaxMicrodescsSize)};
  if (files.consensus.empty()) return std::nullopt;
  dirnet::ConsensusQuery q;
  q.tor_authorities = options_.tor_authorities;
  q.check = options_.check;
  auto c = dirnet::load_tor_files(q, files, clock_.unix_seconds(), *fetcher_->tor_cache());
  if (!c) net::emit(log_, net::LogLevel::Info, "The cached tor consensus is expired, incomplete or not signed by our authorities.");
  return c;
}

void DirectoryClient::save_tor_cache() const {
  const auto files = dirnet::files_of(*fetcher_->tor_cache());
  write_atomically(options_.data_directory / "cached-certs", files.certs);
  write_atomically(options_.data_directory / "cached-microdesc-consensus", files.consensus);
  write_atomically(options_.data_directory / "cached-microdescs", files.microdescs);
}

bool DirectoryClient::start() {
  auto cached = load_tor_cache();
  const bool usable = cached.has_value();
  fetcher_->on_consensus = [this](const dir::Consensus& c) {
    save_tor_cache();
    const std::string source = fetcher_->tor_cache()->consensus_source;
    update_begin_dir(&c);
    net::emit(log_, net::LogLevel::Info,
              "New consensus: " + std::to_string(c.body.routers.size()) + " relays, valid after " +
                  std::to_string(c.body.valid_after) + ", from " + source);
    if (on_consensus) on_consensus(c, source);
  };
  fetcher_->on_failure = [this](dirnet::FetchErrc e) {
    // "Not newer" is the normal answer just after fresh-until.
    if (e != dirnet::FetchErrc::NotNewer)
      net::emit(log_, net::LogLevel::Info, std::string("No consensus from the authorities this round: ") +
                                               std::string(dirnet::to_string(e)));
  };
  if (cached) {
    net::emit(log_, net::LogLevel::Notice,
              "Loaded the cached consensus (" + std::to_string(cached->body.routers.size()) + " relays).");
    fetcher_->seed(*cached);
    update_begin_dir(&*cached);
    if (on_consensus) on_consensus(*fetcher_->consensus(), "the cache");
  }
  fetcher_->start();
  return usable;
}

void DirectoryClient::stop() {
  if (fetcher_) fetcher_->stop();
}

const std::optional<dir::Consensus>& DirectoryClient::consensus() const {
  return fetcher_ ? fetcher_->consensus() : none_;
}

std::uint64_t DirectoryClient::fetched() const { return fetcher_->fetched(); }
std::uint64_t DirectoryClient::failed() const { return fetcher_->failed(); }

}  // namespace conflux::client
