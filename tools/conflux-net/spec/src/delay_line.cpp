#include "conflux/netspec/delay_line.hpp"

#include <algorithm>
#include <utility>

namespace conflux::netspec {

DelayLine::DelayLine(const LinkParams& params, std::uint64_t seed) : params_(params), rng_(seed) {}

double DelayLine::uniform01() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

EmuTime DelayLine::delay_for_next() {
  EmuTime delay = params_.latency;
  if (params_.jitter.count() > 0) {
    const double spread = static_cast<double>(EmuTime(params_.jitter).count());
    delay += EmuTime(static_cast<std::int64_t>((uniform01() * 2.0 - 1.0) * spread));
  }
  return std::max(delay, EmuTime{0});
}

PushResult DelayLine::push(EmuTime now, std::vector<std::uint8_t> packet) {
  ++counters_.received;
  // Both draws happen for every packet, before the queue is looked at, so the same seed loses
  // the same packets whatever the queue did.
  const bool lost = params_.loss > 0.0 && uniform01() < params_.loss;
  const EmuTime delay = delay_for_next();
  if (lost) {
    ++counters_.lost;
    return PushResult::Lost;
  }
  if (queue_.size() >= params_.queue_packets || queued_bytes_ + packet.size() > params_.queue_bytes) {
    ++counters_.overflow;
    return PushResult::Overflow;
  }
  EmuTime departure = now;
  if (params_.rate > 0) {
    sent_until_ = std::max(now, sent_until_) +
                  EmuTime(static_cast<std::int64_t>(packet.size() * 1'000'000'000ULL / params_.rate));
    departure = sent_until_;
  }
  // FIFO: never before the packet ahead of it (the header says why).
  const EmuTime release = std::max(departure + delay, last_release_);
  last_release_ = release;
  queued_bytes_ += packet.size();
  queue_.push_back(Held{release, std::move(packet)});
  return PushResult::Queued;
}

std::optional<EmuTime> DelayLine::next_release() const {
  if (queue_.empty()) return std::nullopt;
  return queue_.front().release;
}

std::optional<std::vector<std::uint8_t>> DelayLine::pop_due(EmuTime now) {
  if (queue_.empty() || queue_.front().release > now) return std::nullopt;
  std::vector<std::uint8_t> packet = std::move(queue_.front().packet);
  queue_.pop_front();
  queued_bytes_ -= packet.size();
  ++counters_.delivered;
  counters_.delivered_bytes += packet.size();
  return packet;
}

}  // namespace conflux::netspec
