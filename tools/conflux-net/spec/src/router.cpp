#include "conflux/netspec/router.hpp"

#include <utility>

namespace conflux::netspec {

std::optional<Ipv4Route> route_of(std::span<const std::uint8_t> packet) {
  if (packet.size() < 20 || (packet[0] >> 4) != 4) return std::nullopt;
  const std::size_t header = static_cast<std::size_t>(packet[0] & 0x0f) * 4;
  const std::size_t total = (static_cast<std::size_t>(packet[2]) << 8) | packet[3];
  if (header < 20 || header > packet.size() || total < header || total > packet.size()) return std::nullopt;
  auto be32 = [&](std::size_t at) {
    return (std::uint32_t{packet[at]} << 24) | (std::uint32_t{packet[at + 1]} << 16) |
           (std::uint32_t{packet[at + 2]} << 8) | std::uint32_t{packet[at + 3]};
  };
  return Ipv4Route{be32(12), be32(16)};
}

Router::Router(std::vector<RouterHost> hosts, std::uint64_t seed) : hosts_(std::move(hosts)) {
  up_.reserve(hosts_.size());
  down_.reserve(hosts_.size());
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    // Distinct, fixed streams per direction: one link's traffic does not move another's draws.
    const std::uint64_t base = seed ^ (0x9e3779b97f4a7c15ULL * (2 * i + 1));
    up_.emplace_back(hosts_[i].link, base);
    down_.emplace_back(hosts_[i].link, base ^ 0xd1b54a32d192ed03ULL);
  }
}

std::optional<std::size_t> Router::host_of(std::uint32_t address) const {
  for (std::size_t i = 0; i < hosts_.size(); ++i)
    if (hosts_[i].address == address) return i;
  return std::nullopt;
}

void Router::push(std::size_t from, EmuTime now, std::vector<std::uint8_t> packet) {
  if (from >= hosts_.size()) return;
  up_[from].push(now, std::move(packet));
}

std::optional<EmuTime> Router::next_release() const {
  std::optional<EmuTime> first;
  for (const auto* lines : {&up_, &down_})
    for (const auto& line : *lines)
      if (auto t = line.next_release(); t && (!first || *t < *first)) first = t;
  return first;
}

std::optional<Delivery> Router::pop_due(EmuTime now) {
  for (;;) {
    // The earliest due packet of any line; on a tie a downlink goes first (it was routed earlier).
    std::optional<EmuTime> best;
    std::size_t best_line = 0;
    bool best_down = false;
    for (std::size_t i = 0; i < hosts_.size(); ++i) {
      for (const bool down : {true, false}) {
        const auto t = (down ? down_ : up_)[i].next_release();
        if (!t || *t > now) continue;
        if (best && (*t > *best || (*t == *best && (best_down || !down)))) continue;
        best = t, best_line = i, best_down = down;
      }
    }
    if (!best) return std::nullopt;
    if (best_down) return Delivery{best_line, *down_[best_line].pop_due(now)};
    auto packet = *up_[best_line].pop_due(now);
    const auto route = route_of(packet);
    if (!route) {
      ++counters_.undecodable;
      continue;
    }
    const auto to = host_of(route->destination);
    if (!to) {
      ++counters_.no_route;
      continue;
    }
    down_[*to].push(*best, std::move(packet));
  }
}

}  // namespace conflux::netspec
