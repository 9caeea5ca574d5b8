// The relay as a tor directory cache (tor's DirCache 1, its default): with
// DirAuthority lines (tor's form: a tor network's, or ours), it
// fetches the microdesc consensus, the authorities' key certificates and
// the microdescriptors, then the ns consensus and the server descriptors it
// names, from the authorities (verified as our client verifies them,
// refreshed after each consensus's fresh-until) and serves
// them over BEGIN_DIR (and its DirPort if it has one) at tor's paths; its
// descriptor then says tunnelled-dir-server, for which the authorities vote
// V2Dir, which stock clients require of a guard. Without a DirPort,
// BEGIN_DIR streams reach a DirServer on a loopback port of its own.
// What it serves is kept in DataDirectory under tor's file names, and
// served again at the next start while it still verifies.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dirnet/tor_dir_mirror.hpp"
#include "relay_process.hpp"

namespace conflux::relay {
namespace {

// tor's names for a cache's files, and each one's cap when read back.
struct MirrorFile {
  const char* name;
  std::string dirnet::TorDirFiles::*text;
  std::size_t cap;
};
constexpr MirrorFile kMirrorFiles[] = {
    {"cached-certs", &dirnet::TorDirFiles::certs, dir::kMaxKeyCertsSize},
    {"cached-microdesc-consensus", &dirnet::TorDirFiles::consensus, dir::kMaxTorConsensusSize},
    {"cached-microdescs", &dirnet::TorDirFiles::microdescs, dir::kMaxMicrodescsSize},
    {"cached-consensus", &dirnet::TorDirFiles::ns_consensus, dir::kMaxTorConsensusSize},
    {"cached-descriptors", &dirnet::TorDirFiles::descriptors, dir::kMaxTorServerDescriptorsSize},
};

std::string read_capped(const std::filesystem::path& path, std::size_t cap) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str().size() > cap ? std::string() : text.str();
}

}  // namespace

void RelayProcess::load_tor_mirror(const dirnet::ConsensusQuery& q) {
  dirnet::TorDirFiles files;
  for (const auto& f : kMirrorFiles)
    files.*f.text = read_capped(std::filesystem::path(config_.options.data_directory) / f.name, f.cap);
  if (files.consensus.empty()) return;
  auto c = dirnet::load_tor_files(q, files, clock_.unix_seconds(), *mirror_fetch_->tor_cache());
  if (!c || !tor_mirror_->update(*mirror_fetch_->tor_cache())) {
    log::write(log::Severity::Info, "Directory cache: the documents in DataDirectory are expired or do not verify");
    return;
  }
  mirror_fetch_->seed(std::move(*c));  // the first fetch asks only for a newer one
  log::write(log::Severity::Notice, "Directory cache: serving the microdesc consensus valid after " +
                                        std::to_string(tor_mirror_->valid_after()) + " and " +
                                        (tor_mirror_->has_ns_consensus() ? "the ns one" : "no ns one") +
                                        " from DataDirectory until a newer one is fetched");
}

// Written whole then renamed, so a crash never leaves half a document.
void RelayProcess::save_tor_mirror() const {
  const auto files = dirnet::files_of(*mirror_fetch_->tor_cache());
  for (const auto& f : kMirrorFiles) {
    const auto path = std::filesystem::path(config_.options.data_directory) / f.name;
    auto tmp = path;
    tmp += ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << files.*f.text;
      if (!out.good()) {
        log::write(log::Severity::Warn, "Couldn't save the directory cache to " + tmp.string());
        return;
      }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) log::write(log::Severity::Warn, "Couldn't replace " + path.string() + ": " + ec.message());
  }
}

bool RelayProcess::start_begin_dir_listener() {
  if (dir_server_) return true;
  auto server = dirnet::DirServer::create(io_.get_executor(), {net::asio::ip::address_v4::loopback(), 0}, routes_,
                                          clock_);
  if (!server) {
    log::write(log::Severity::Err, "Could not open the loopback listener for BEGIN_DIR: " + server.error().message());
    return false;
  }
  dir_server_ = *server;
  dir_server_->start();
  exit::DirPortTarget t;  // loopback
  t.port = dir_server_->local_endpoint().port();
  exit_.set_dir_port(t);
  return true;
}

// Our authorities write tor's documents (relay_tor_authority.cpp), so a
// relay of theirs mirrors them as it would a tor network's, and takes the
// consensus parameters (cc_*, DoS) from them.
void RelayProcess::start_tor_mirror(const std::vector<net::tcp::endpoint>& authority_dirs) {
  dirnet::ConsensusQuery q;
  q.sources = authority_dirs;
  for (const auto& a : config_.options.dir_authorities) {
    crypto::RsaFingerprint id{};
    std::copy(a.v3ident.begin(), a.v3ident.end(), id.begin());
    q.tor_authorities.push_back(id);
  }
  if (q.tor_authorities.empty()) return;
  if (tor_authority_ == nullptr) {  // an authority serves its own documents
    tor_mirror_ = std::make_unique<dirnet::TorDirMirror>();
    routes_.set_tor_mirror(tor_mirror_.get());
  }
  q.fetch_ns = tor_mirror_ != nullptr;  // the ns flavour and its descriptors too, as tor's caches
  dirnet::FetcherOptions f;
  f.retry_max = std::chrono::seconds(10);  // a new network has no consensus for a while
  const dirnet::ConsensusQuery query = q;
  mirror_fetch_ = dirnet::ConsensusFetcher::create(io_.get_executor(), clock_, std::move(q), f);
  if (tor_mirror_) load_tor_mirror(query);
  mirror_fetch_->on_consensus = [this](const dir::Consensus& c) {
    if (tor_mirror_ && tor_mirror_->update(*mirror_fetch_->tor_cache())) {
      save_tor_mirror();
      log::write(log::Severity::Notice,
                 "Directory cache: serving the microdesc consensus valid after " + std::to_string(c.body.valid_after) +
                     " with " + std::to_string(tor_mirror_->microdesc_count()) + " microdescriptors (from " +
                     mirror_fetch_->tor_cache()->consensus_source + ")");
    }
    apply_consensus(c);
  };
  mirror_fetch_->on_ns = [this] {
    const dirnet::TorDirCache& cache = *mirror_fetch_->tor_cache();
    if (!tor_mirror_ || !tor_mirror_->update(cache)) return;
    save_tor_mirror();
    // The cache holds only descriptors the consensus names: held of listed.
    const auto ns = dir::parse_tor_consensus(cache.ns_consensus_text);
    log::write(log::Severity::Notice, "Directory cache: serving the ns consensus valid after " +
                                          std::to_string(tor_mirror_->ns_valid_after()) + " with the server descriptors of " +
                                          std::to_string(cache.server_descriptors.size()) + " of its " +
                                          std::to_string(ns ? ns->routers.size() : 0) + " relays (from " +
                                          cache.ns_source + ")");
  };
  consensus_ = mirror_fetch_;  // its counts in the metrics
  mirror_fetch_->start();
}

}  // namespace conflux::relay
