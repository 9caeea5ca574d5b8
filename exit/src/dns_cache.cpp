#include "dns_cache.hpp"

#include <utility>

namespace conflux::exit {

std::optional<CachedAnswer> DnsCache::find(const std::string& name, Clock::time_point now) {
  while (!expiries_.empty() && expiries_.begin()->first <= now) erase(entries_.find(expiries_.begin()->second));
  const auto it = entries_.find(name);
  if (it == entries_.end()) return std::nullopt;
  return it->second.answer;
}

void DnsCache::store(const std::string& name, CachedAnswer answer, Clock::time_point now,
                     std::chrono::seconds lifetime) {
  if (capacity_ == 0) return;
  if (auto it = entries_.find(name); it != entries_.end()) erase(it);
  while (entries_.size() >= capacity_) erase(entries_.find(expiries_.begin()->second));
  const auto when = expiries_.emplace(now + lifetime, name);
  entries_.emplace(name, Entry{std::move(answer), when});
}

void DnsCache::clear() {
  entries_.clear();
  expiries_.clear();
}

void DnsCache::erase(std::unordered_map<std::string, Entry>::iterator it) {
  expiries_.erase(it->second.by_expiry);
  entries_.erase(it);
}

}  // namespace conflux::exit
