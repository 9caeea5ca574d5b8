#include "conflux/proto/leg_sched_rtt.hpp"

#include <algorithm>

namespace conflux::proto {

namespace {
// tor's "the clock jumped" bound (congestion_control_common.c).
constexpr std::int64_t kJumpFactor = 5000;
}  // namespace

RttEstimator::RttEstimator(RttParams params) noexcept : params_(params) {
  if (params_.sample_every == 0) params_.sample_every = 1;
  if (params_.ewma_n == 0) params_.ewma_n = 1;
}

void RttEstimator::on_link_rtt(RttDuration rtt) noexcept { (void)add_sample(rtt); }

bool RttEstimator::on_data_sent(RttClock::time_point now) noexcept {
  ++cells_sent_;
  if (cells_sent_ % params_.sample_every == 1 % params_.sample_every) batch_start_ = now;
  if (cells_sent_ % params_.sample_every != 0) return false;
  if (count_ == kMaxOutstanding) {
    ++dropped_stamps_;
    return false;
  }
  stamps_[(head_ + count_) % kMaxOutstanding] = Stamp{batch_start_, now};
  ++count_;
  return true;
}

std::optional<RttClock::time_point> RttEstimator::oldest_stamp() const noexcept {
  if (count_ == 0) return std::nullopt;
  return stamps_[head_].sent;
}

std::optional<RttDuration> RttEstimator::on_sendme(RttClock::time_point now) noexcept {
  if (count_ == 0) return std::nullopt;
  const auto stamp = stamps_[head_];
  head_ = (head_ + 1) % kMaxOutstanding;
  --count_;
  auto from = stamp.batch_start + min_rtt_;
  if (last_sendme_ && *last_sendme_ > from) from = *last_sendme_;
  last_sendme_ = now;
  const auto interval = std::chrono::duration_cast<RttDuration>(now - from).count();
  if (interval > 0) {
    // A max filter that decays by 1/8 per SENDME: a batch sent slower than
    // the leg can carry reads low, but the leg's capacity has not changed.
    const auto sample =
        static_cast<std::uint64_t>(params_.sample_every) * 1'000'000ULL / static_cast<std::uint64_t>(interval);
    rate_ = std::max<std::uint64_t>(sample, rate_ - rate_ / 8);
  }
  const auto sample = std::chrono::duration_cast<RttDuration>(now - stamp.sent);
  // The circuit's congestion control owns srtt (on_cc_rtt).
  if (cc_rtt_) return sample;
  if (!add_sample(sample)) return std::nullopt;
  return sample;
}

void RttEstimator::on_cc_rtt(RttDuration ewma) noexcept {
  if (ewma.count() <= 0) return;
  cc_rtt_ = true;
  ++samples_;
  last_ = ewma;
  srtt_ = ewma;
  if (min_rtt_.count() == 0 || ewma < min_rtt_) min_rtt_ = ewma;
}

bool RttEstimator::add_sample(RttDuration sample) noexcept {
  // A zero or negative sample means the monotonic clock stalled; one far
  // above the current estimate means it jumped. Neither is a network RTT.
  if (sample.count() <= 0 || (srtt_.count() > 0 && sample.count() / kJumpFactor > srtt_.count())) {
    ++dropped_samples_;
    return false;
  }
  ++samples_;
  last_ = sample;
  if (srtt_.count() == 0) {
    srtt_ = sample;
  } else {
    const std::int64_t n = params_.ewma_n;
    srtt_ = RttDuration{(2 * sample.count() + (n - 1) * srtt_.count()) / (n + 1)};
  }
  if (min_rtt_.count() == 0 || sample < min_rtt_) min_rtt_ = sample;
  return true;
}

}  // namespace conflux::proto
