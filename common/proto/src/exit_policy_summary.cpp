// The port summary of an exit policy (dir-spec "p" / "p6" lines), computed
// exactly as tor's policy_summarize() so that authorities and clients that
// compare summaries agree with tor's.
//
// A port counts as accepted when an "accept *:port" rule is reached before
// rejects for that port cover more than two IPv4 /8s (IPv6: more than one
// /16, counting /64s). Rejects of exactly one of the private networks are
// ignored, because "reject private:*" alone would otherwise cross that line.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "conflux/proto/exit_policy.hpp"

namespace conflux::proto {

namespace {

struct Item {
  std::uint32_t lo;
  std::uint32_t hi;
  std::uint64_t reject_count;
  bool accepted;
};

constexpr std::size_t kMaxSummaryLen = 1000;

// Splits items so that one starts at lo and one ends at hi; returns the index
// of the item starting at lo.
std::size_t split(std::vector<Item>& items, std::uint32_t lo, std::uint32_t hi) {
  std::size_t i = 0;
  while (items[i].hi < lo) ++i;
  if (items[i].lo != lo) {
    Item tail = items[i];
    tail.lo = lo;
    items[i].hi = lo - 1;
    items.insert(items.begin() + static_cast<std::ptrdiff_t>(i) + 1, tail);
    ++i;
  }
  const std::size_t start = i;
  while (items[i].hi < hi) ++i;
  if (items[i].hi != hi) {
    Item tail = items[i];
    tail.lo = hi + 1;
    items[i].hi = hi;
    items.insert(items.begin() + static_cast<std::ptrdiff_t>(i) + 1, tail);
  }
  return start;
}

std::uint64_t reject_cutoff(AddrFamily f) {
  return f == AddrFamily::Ipv4 ? (std::uint64_t{1} << 25) : (std::uint64_t{1} << 48);
}

void summary_accept(std::vector<Item>& items, const PolicyRule& r) {
  std::size_t i = split(items, r.ports.lo, r.ports.hi);
  const std::uint64_t cutoff = reject_cutoff(r.family);
  for (; i < items.size() && items[i].hi <= r.ports.hi; ++i) {
    if (!items[i].accepted && items[i].reject_count <= cutoff) items[i].accepted = true;
  }
}

void summary_reject(std::vector<Item>& items, const PolicyRule& r) {
  std::size_t i = split(items, r.ports.lo, r.ports.hi);
  // IPv4 counts addresses; IPv6 counts /64s and ignores anything smaller.
  const int addr_bits = r.family == AddrFamily::Ipv4 ? 32 : 128;
  const int scale = r.family == AddrFamily::Ipv4 ? 0 : 64;
  if (r.prefix_len > addr_bits - scale) return;
  const int shift = addr_bits - scale - r.prefix_len;
  const std::uint64_t count =
      shift >= 64 ? std::numeric_limits<std::uint64_t>::max() : (std::uint64_t{1} << shift);
  for (; i < items.size() && items[i].hi <= r.ports.hi; ++i) {
    const std::uint64_t room = std::numeric_limits<std::uint64_t>::max() - items[i].reject_count;
    items[i].reject_count = count <= room ? items[i].reject_count + count
                                          : std::numeric_limits<std::uint64_t>::max();
  }
}

bool is_exactly_private_net(const PolicyRule& r) {
  for (const PrivateNet& n : private_nets()) {
    if (n.family == r.family && n.prefix_len == r.prefix_len && n.addr == r.addr) return true;
  }
  return false;
}

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts) {
    if (!s.empty()) s += ',';
    s += p;
  }
  return s;
}

}  // namespace

std::string ExitPolicy::summary(AddrFamily family) const {
  std::vector<Item> items{{1, 65535, 0, false}};
  for (const PolicyRule& r : rules_) {
    if (r.family != family) continue;
    if (r.action == PolicyAction::Accept) {
      if (r.prefix_len == 0) summary_accept(items, r);
    } else if (!is_exactly_private_net(r)) {
      summary_reject(items, r);
    }
  }

  // Merge neighbouring items with the same outcome into one range each.
  std::vector<std::string> accepts;
  std::vector<std::string> rejects;
  std::uint32_t start = 1;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const bool last = i + 1 == items.size();
    if (!last && items[i].accepted == items[i + 1].accepted) continue;
    std::string range = std::to_string(start);
    if (start != items[i].hi) range += "-" + std::to_string(items[i].hi);
    (items[i].accepted ? accepts : rejects).push_back(std::move(range));
    if (!last) start = items[i + 1].lo;
  }

  if (accepts.empty()) return "reject 1-65535";
  if (rejects.empty()) return "accept 1-65535";
  std::string accept_str = join(accepts);
  const std::string reject_str = join(rejects);
  const std::size_t room = kMaxSummaryLen - 7;  // "accept " / "reject "
  if (reject_str.size() > room && accept_str.size() > room) {
    // Both too long: tor keeps the accept list, cut at the last comma that
    // leaves it within the limit.
    const auto comma = accept_str.rfind(',', room);
    accept_str.resize(comma == std::string::npos ? 0 : comma);
    return "accept " + accept_str;
  }
  if (reject_str.size() < accept_str.size()) return "reject " + reject_str;
  return "accept " + accept_str;
}

}  // namespace conflux::proto
