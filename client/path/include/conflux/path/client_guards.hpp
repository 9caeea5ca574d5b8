#pragma once
// Guards per client inside one proxy (PerClientGuards 1, docs/PATHS.md).
//
// tor's client model is one guard selection per tor process. An experiment
// that runs many emulated clients through one proxy process would make them
// all share that selection, so the network would see a few guards carry
// every client. With this, each client keeps its own GuardSet, drawn and
// kept by exactly the rules of the process's one (sampled and primary
// guards, confirmation, retry schedules).
//
// A client is named by its SOCKS username, up to the first '/': "web7" and
// "web7/probe-12" are one client (its probe downloads take fresh usernames
// for fresh circuits, and keep its guards). A stream without a username
// (or whose username starts with '/') has no client: it uses the process's
// guards, as without the option.
//
// Bounded: at most `max_clients` clients. A new client past the bound is
// refused (admit() false: the SOCKS request gets a general failure), not
// given the guards of a client forgotten to make room: handing a client new
// guards behind its back is what tor's guard design exists to prevent.
//
// Not persisted: the names are whatever applications put in the username
// (Tor Browser puts the first-party site there for isolation), so a file of
// them would be a record of where the user went. The process's own guard
// set is persisted as before.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "conflux/path/guard_set.hpp"

namespace conflux::path {

// The client a SOCKS username names: the part before its first '/'.
[[nodiscard]] std::string_view guard_client_name(std::string_view socks_username) noexcept;

class ClientGuards {
 public:
  ClientGuards(GuardParams params, std::size_t max_clients);

  // True when `client` has a guard set (made now if there is room).
  bool admit(std::string_view client);
  // The client's guard set; null when admit() never accepted it.
  [[nodiscard]] GuardSet* find(std::string_view client);
  [[nodiscard]] const GuardSet* find(std::string_view client) const;

  // Every client's set: the consensus changed.
  void update(const NetView& net, std::uint64_t now);
  // A channel to `id` failed: every client that samples it sees it down.
  void mark_failed(const crypto::Ed25519Public& id, std::uint64_t now);

  [[nodiscard]] std::size_t size() const noexcept { return clients_.size(); }
  [[nodiscard]] std::size_t max_clients() const noexcept { return max_clients_; }
  [[nodiscard]] const std::map<std::string, GuardSet, std::less<>>& clients() const noexcept { return clients_; }

 private:
  GuardParams params_;
  std::size_t max_clients_;
  std::map<std::string, GuardSet, std::less<>> clients_;
};

}  // namespace conflux::path
