#include "conflux/proto/queue_memory.hpp"

#include <algorithm>

namespace conflux::proto {

std::uint64_t default_max_mem_in_queues(std::optional<std::uint64_t> total_ram) {
  constexpr std::uint64_t kMaxDefault = 8 * kOneGigabyte;  // MAX_DEFAULT_MEMORY_QUEUE_SIZE, 64-bit
  if (!total_ram) return kMaxDefault;
  const std::uint64_t ram = *total_ram;
  // With 8 GB or more, 40%: room for a second relay on the same host.
  const std::uint64_t avail = ram >= 8 * kOneGigabyte ? ram / 5 * 2 : ram / 4 * 3;
  return std::clamp(avail, kOneGigabyte / 4, kMaxDefault);
}

MaxMemChoice choose_max_mem_in_queues(std::uint64_t configured, std::optional<std::uint64_t> total_ram,
                                      bool testing) {
  if (configured == 0) return {default_max_mem_in_queues(total_ram), false, false};
  if (!testing && configured < kMinServerMaxMem) return {kMinServerMaxMem, true, true};
  return {configured, false, configured < kUnwarnedServerMaxMem};
}

OomPlan QueueLimit::plan(std::size_t total, std::vector<QueuedCircuit> queues) const {
  OomPlan p;
  p.target = target();
  if (total <= p.target) return p;
  // Oldest first; ties by channel and circuit, so the order is the same
  // whatever order the queues were listed in.
  std::sort(queues.begin(), queues.end(), [](const QueuedCircuit& a, const QueuedCircuit& b) {
    if (a.oldest != b.oldest) return a.oldest < b.oldest;
    if (a.channel != b.channel) return a.channel < b.channel;
    if (a.handle != b.handle) return a.handle < b.handle;
    return a.circ.value() < b.circ.value();
  });
  std::size_t freed = 0;
  for (auto& q : queues) {
    if (total - freed <= p.target) break;
    freed += std::min(q.cells * kQueuedCellCost + q.bytes, total - freed);
    p.victims.push_back(q);
  }
  return p;
}

}  // namespace conflux::proto
