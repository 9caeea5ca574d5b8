#pragma once
// The exit's answer cache: names looked up recently, kept until their
// expiry (tor: now + clip_dns_fuzzy_ttl(ttl), so an entry lives 1-9 min or
// 56-64 min whatever the server said), at most `capacity` entries. When full,
// the entry closest to expiry makes room. Sans-I/O: the caller gives `now`.
//
// Failures are cached too, as tor's make_pending_resolve_cached keeps a
// DONE_ERR answer: a name that does not exist, or whose server failed or
// did not answer, is not asked again for clip_dns_fuzzy_ttl(0), 1-9 minutes
// (tor's resolver reports a failure with TTL 0; c-ares 1.18 gives none).
// They share the one bound with the answers, as in tor's one cache map.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "conflux/cell/relay_addr.hpp"

namespace conflux::exit {

// tor's DNS TTL rules (connection_edge.c): a client is told one of two TTLs,
// so that the TTL does not reveal when we looked the name up; the cache keeps
// an entry for that TTL give or take kFuzzyDnsTtl.
inline constexpr std::uint32_t kMinDnsTtl = 5 * 60;
inline constexpr std::uint32_t kMaxDnsTtl = 60 * 60;
inline constexpr std::uint32_t kFuzzyDnsTtl = 4 * 60;

[[nodiscard]] constexpr std::uint32_t clip_dns_ttl(std::uint32_t ttl) noexcept {
  return ttl < kMinDnsTtl ? kMinDnsTtl : kMaxDnsTtl;
}
// `fuzz` is uniform in [0, 2 * kFuzzyDnsTtl] (values above are clamped).
[[nodiscard]] constexpr std::uint32_t clip_dns_fuzzy_ttl(std::uint32_t ttl, std::uint32_t fuzz) noexcept {
  const std::uint32_t f = fuzz > 2 * kFuzzyDnsTtl ? 2 * kFuzzyDnsTtl : fuzz;
  return clip_dns_ttl(ttl) + f - kFuzzyDnsTtl;
}

// What a lookup came to. Transient: the server failed or did not answer
// (tor's evdns_err_is_transient); NotFound: no such name, or no address.
enum class DnsStatus : std::uint8_t { Ok, NotFound, Transient };

struct CachedAnswer {
  DnsStatus status = DnsStatus::Ok;
  std::vector<cell::Ipv4Bytes> v4;
  std::vector<cell::Ipv6Bytes> v6;
  std::uint32_t ttl = 0;  // the server's (lowest) TTL, before clipping
};

// How long a failed lookup stays cached: tor's clip_dns_fuzzy_ttl of the
// TTL 0 its resolver reports with a failure.
[[nodiscard]] constexpr std::uint32_t negative_dns_lifetime(std::uint32_t fuzz) noexcept {
  return clip_dns_fuzzy_ttl(0, fuzz);
}

class DnsCache {
 public:
  using Clock = std::chrono::steady_clock;
  explicit DnsCache(std::size_t capacity) : capacity_(capacity) {}

  // `name` in lower case. Expired entries are dropped on the way.
  [[nodiscard]] std::optional<CachedAnswer> find(const std::string& name, Clock::time_point now);
  // Replaces any entry for `name`; `lifetime` from clip_dns_fuzzy_ttl.
  void store(const std::string& name, CachedAnswer answer, Clock::time_point now, std::chrono::seconds lifetime);
  void clear();
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

 private:
  struct Entry {
    CachedAnswer answer;
    std::multimap<Clock::time_point, std::string>::iterator by_expiry;
  };
  void erase(std::unordered_map<std::string, Entry>::iterator it);

  std::size_t capacity_;
  std::unordered_map<std::string, Entry> entries_;
  std::multimap<Clock::time_point, std::string> expiries_;
};

}  // namespace conflux::exit
