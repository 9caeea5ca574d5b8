#pragma once
// Waiting until a starting network works, watching every process on the
// way: a process that ends, the deadline, or Ctrl-C ends the wait with a
// Failure naming the process to blame.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/rsa.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/net/clock.hpp"
#include "conflux/netspec/plan.hpp"

namespace conflux::netapp {

struct Failure {
  std::string process;  // empty when no one process is to blame
  std::string message;
  bool port_taken = false;  // it could not bind a port we found free: try again elsewhere
};

struct Watched {
  std::string name;
  netspec::Role role = netspec::Role::Relay;
  pid_t pid = 0;
  std::uint64_t start_time = 0;
  std::filesystem::path log, output, data_dir;
  crypto::Ed25519Public identity{};
  crypto::RsaFingerprint rsa_fingerprint{};  // relays: tor's fingerprint
  netspec::Ports ports;
  net::asio::ip::address_v4 address = net::asio::ip::make_address_v4("127.0.0.1");  // where it listens
  bool stock_tor = false;  // a relay run by stock tor: it logs its listeners tor's way
};

struct ReadinessInputs {
  std::chrono::steady_clock::time_point deadline;
  const volatile std::sig_atomic_t* interrupted = nullptr;
  std::vector<net::tcp::endpoint> authority_dirs;
  // The authorities' v3idents: the consensus checked is tor's microdesc one
  // (with its key certificates and microdescriptors) and each bridge's
  // descriptor tor's, what the relays and proxies read.
  std::vector<crypto::RsaFingerprint> tor_authorities;
  std::uint16_t file_port = 0;
  std::vector<Watched> watched;  // every started process
};

// Relays and bridges listening, the file server answering, a consensus
// (tor's, verified against tor_authorities)
// listing every relay as Running, Valid and Fast and every exit with a policy
// summary that allows the file server's port (what a client looks for),
// every bridge serving its descriptor (tor's at /tor/server/authority, as a
// tor client fetches it), and every stock tor relay's
// own consensus listing every relay (stock_tor_control.hpp: a stock exit
// refuses streams from a relay it does not know yet).
[[nodiscard]] std::optional<Failure> wait_for_network(net::asio::io_context& io, const net::Clock& clock,
                                                      const ReadinessInputs& in);

// Every watched proxy has logged "Bootstrapped 100%".
[[nodiscard]] std::optional<Failure> wait_for_proxies(net::asio::io_context& io, const ReadinessInputs& in);

}  // namespace conflux::netapp
