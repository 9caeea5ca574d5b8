// The relay as a tor directory cache (tor's DirCache 1, its default): with
// DirAuthority lines (tor's form: a tor network's, or ours), it
// fetches the microdesc consensus, the authorities' key certificates and
// the microdescriptors from the authorities (verified as our client
// verifies them, refreshed after each consensus's fresh-until) and serves
// them over BEGIN_DIR (and its DirPort if it has one) at tor's paths; its
// descriptor then says tunnelled-dir-server, for which the authorities vote
// V2Dir, which stock clients require of a guard. Without a DirPort,
// BEGIN_DIR streams reach a DirServer on a loopback port of its own.
#include <algorithm>

#include "conflux/dirnet/tor_dir_mirror.hpp"
#include "relay_process.hpp"

namespace conflux::relay {

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
    if (!a.v3ident) return;
    crypto::RsaFingerprint id{};
    std::copy(a.v3ident->begin(), a.v3ident->end(), id.begin());
    q.tor_authorities.push_back(id);
  }
  if (q.tor_authorities.empty()) return;
  if (tor_authority_ == nullptr) {  // an authority serves its own documents
    tor_mirror_ = std::make_unique<dirnet::TorDirMirror>();
    routes_.set_tor_mirror(tor_mirror_.get());
  }
  dirnet::FetcherOptions f;
  f.retry_max = std::chrono::seconds(10);  // a new network has no consensus for a while
  mirror_fetch_ = dirnet::ConsensusFetcher::create(io_.get_executor(), clock_, std::move(q), f);
  mirror_fetch_->on_consensus = [this](const dir::Consensus& c) {
    if (tor_mirror_ && tor_mirror_->update(*mirror_fetch_->tor_cache()))
      log::write(log::Severity::Notice,
                 "Directory cache: serving the microdesc consensus valid after " + std::to_string(c.body.valid_after) +
                     " with " + std::to_string(tor_mirror_->microdesc_count()) + " microdescriptors (from " +
                     mirror_fetch_->tor_cache()->consensus_source + ")");
    apply_consensus(c);
  };
  consensus_ = mirror_fetch_;  // its counts in the metrics
  mirror_fetch_->start();
}

}  // namespace conflux::relay
