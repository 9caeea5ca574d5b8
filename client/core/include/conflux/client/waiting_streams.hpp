#pragma once
// Streams waiting for a carrier (a circuit or a Conflux set), by the group
// that one carrier can serve: streams of one isolation group to one port.
// A carrier that opens goes to one stream, takes that stream's isolation,
// and then suits every other stream of the group, so a pool launches one
// build per group waiting, not one per stream: a page's 60 requests to one
// site would otherwise build 60 (issue 13), and evict other sites' sets to
// make room for them.
#include <cstddef>
#include <map>
#include <string>

#include "conflux/client/stream_pool.hpp"
#include "conflux/client/wakeup.hpp"

namespace conflux::client {

class WaitingStreams {
 public:
  void add(Wakeup& w, const StreamNeeds& needs) {
    std::string key = needs.isolation;
    key.push_back('\n');
    if (needs.port) key += std::to_string(*needs.port);
    key += '\n' + needs.guard_client;
    if (!waiters_.emplace(&w, Entry{key, needs.guard_client}).second) return;
    if (++groups_[key] == 1) ++client_groups_[needs.guard_client];
  }
  void remove(Wakeup& w) {
    auto it = waiters_.find(&w);
    if (it == waiters_.end()) return;
    if (auto g = groups_.find(it->second.key); g != groups_.end() && --g->second == 0) {
      groups_.erase(g);
      if (auto c = client_groups_.find(it->second.client); c != client_groups_.end() && --c->second == 0)
        client_groups_.erase(c);
    }
    waiters_.erase(it);
  }
  [[nodiscard]] std::size_t size() const noexcept { return waiters_.size(); }
  // Distinct (isolation, port, guard client) among the waiting streams.
  [[nodiscard]] std::size_t groups() const noexcept { return groups_.size(); }
  // The same among the streams of one guard client (PerClientGuards): only
  // carriers built through that client's guards can serve them, so a stream
  // launches builds against its client's groups, not everyone's (else each
  // of N waiting clients built up to N circuits of its own).
  [[nodiscard]] std::size_t groups(const std::string& guard_client) const {
    auto it = client_groups_.find(guard_client);
    return it == client_groups_.end() ? 0 : it->second;
  }
  void notify_all() {
    for (auto& [w, entry] : waiters_) w->notify();
  }

 private:
  struct Entry {
    std::string key;     // the group
    std::string client;  // its guard client
  };
  std::map<Wakeup*, Entry> waiters_;
  std::map<std::string, std::size_t> groups_;         // key -> streams waiting
  std::map<std::string, std::size_t> client_groups_;  // guard client -> groups waiting
};

}  // namespace conflux::client
