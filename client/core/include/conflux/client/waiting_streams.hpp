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
    if (waiters_.emplace(&w, key).second) ++groups_[key];
  }
  void remove(Wakeup& w) {
    auto it = waiters_.find(&w);
    if (it == waiters_.end()) return;
    if (auto g = groups_.find(it->second); g != groups_.end() && --g->second == 0) groups_.erase(g);
    waiters_.erase(it);
  }
  [[nodiscard]] std::size_t size() const noexcept { return waiters_.size(); }
  // Distinct (isolation, port, guard client) among the waiting streams.
  [[nodiscard]] std::size_t groups() const noexcept { return groups_.size(); }
  void notify_all() {
    for (auto& [w, key] : waiters_) w->notify();
  }

 private:
  std::map<Wakeup*, std::string> waiters_;
  std::map<std::string, std::size_t> groups_;  // key -> streams waiting
};

}  // namespace conflux::client
