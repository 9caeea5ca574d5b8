#include "conflux/path/build_timeout.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace conflux::path {
namespace {

constexpr std::uint32_t kMaxRecordedMs = 0x7fffffff;  // tor: build_time_t is a 31-bit value

std::chrono::milliseconds to_ms(double v, const BuildTimeoutParams& p) {
  const double lo = static_cast<double>(p.min.count()), hi = static_cast<double>(p.max.count());
  if (!std::isfinite(v)) v = hi;
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::clamp(v, lo, hi)));
}

}  // namespace

BuildTimeoutEstimator::BuildTimeoutEstimator(BuildTimeoutParams params)
    : params_(params), base_(params.initial), timeout_(params.initial), close_timeout_(params.initial) {
  params_.history = std::max<std::size_t>(params_.history, 1);
  params_.min_circs = std::clamp<std::size_t>(params_.min_circs, 1, params_.history);
  params_.num_modes = std::max<std::size_t>(params_.num_modes, 1);
  params_.bin_ms = std::max<std::uint32_t>(params_.bin_ms, 1);
  params_.recent_count = std::max<std::size_t>(params_.recent_count, 1);
  params_.quantile = std::clamp(params_.quantile, 0.10, 0.99);
  params_.close_quantile = std::clamp(params_.close_quantile, params_.quantile, 0.99);
  ring_.reserve(params_.history);
}

void BuildTimeoutEstimator::add_build_time(std::chrono::milliseconds took) {
  const auto ms = std::clamp<std::int64_t>(took.count(), 1, kMaxRecordedMs);
  record(static_cast<std::uint32_t>(ms));
  note_recent(false);
}

void BuildTimeoutEstimator::add_timeout() {
  record(0);
  note_recent(true);
}

std::chrono::milliseconds BuildTimeoutEstimator::timeout() const {
  recompute();
  return timeout_;
}

std::chrono::milliseconds BuildTimeoutEstimator::close_timeout() const {
  recompute();
  return close_timeout_;
}

const std::optional<BuildTimeoutEstimator::Fit>& BuildTimeoutEstimator::fit() const {
  recompute();
  return fit_;
}

void BuildTimeoutEstimator::record(std::uint32_t ms) {
  dirty_ = true;
  if (ring_.size() < params_.history) {
    ring_.push_back(ms);
  } else {
    (ring_[next_] == 0 ? abandoned_ : completed_) -= 1;
    ring_[next_] = ms;
  }
  next_ = (next_ + 1) % params_.history;
  (ms == 0 ? abandoned_ : completed_) += 1;
}

void BuildTimeoutEstimator::note_recent(bool timed_out) {
  recent_.push_back(timed_out);
  if (recent_.size() > params_.recent_count) recent_.pop_front();
  const auto timeouts = static_cast<std::size_t>(std::count(recent_.begin(), recent_.end(), true));
  if (timeouts < params_.max_recent_timeouts) return;
  // Nearly everything times out: the network changed (path-spec 2.4.4).
  // Start learning again from the initial timeout, or double a timeout
  // that is already at least that long.
  const auto current = timeout();
  base_ = current >= params_.initial ? std::min(current * 2, params_.max) : params_.initial;
  ring_.clear();
  next_ = 0;
  completed_ = abandoned_ = 0;
  recent_.clear();
  dirty_ = true;
  ++resets_;
}

void BuildTimeoutEstimator::recompute() const {
  if (!dirty_) return;
  dirty_ = false;
  fit_.reset();
  if (completed_ < params_.min_circs) {
    timeout_ = base_;
    close_timeout_ = std::max(base_, params_.initial);
    return;
  }
  std::map<std::uint32_t, std::size_t> bins;
  std::uint32_t x_max = 0;
  for (std::uint32_t ms : ring_) {
    if (ms == 0) continue;
    ++bins[ms / params_.bin_ms];
    x_max = std::max(x_max, ms);
  }
  // Xm: the most frequent bins (ties: the faster bin), weighted by count.
  std::vector<std::pair<std::size_t, std::uint32_t>> by_count;
  for (const auto& [bin, n] : bins) by_count.emplace_back(n, bin);
  std::sort(by_count.begin(), by_count.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  double num = 0, den = 0;
  for (std::size_t i = 0; i < by_count.size() && i < params_.num_modes; ++i) {
    const double mid = (static_cast<double>(by_count[i].second) + 0.5) * params_.bin_ms;
    num += mid * static_cast<double>(by_count[i].first);
    den += static_cast<double>(by_count[i].first);
  }
  const double xm = num / den;

  const double s = static_cast<double>(completed_), u = static_cast<double>(abandoned_);
  double sum_ln = 0;
  for (std::uint32_t ms : ring_)
    if (ms != 0) sum_ln += std::log(std::max(static_cast<double>(ms), xm));
  const double denom = u * std::log(std::max(static_cast<double>(x_max), xm)) + sum_ln - (s + u) * std::log(xm);
  // All builds at Xm (no spread): the tail is empty and Xm is the timeout.
  const double alpha = denom > 1e-9 ? s / denom : INFINITY;
  fit_ = Fit{xm, alpha};
  auto at = [&](double q) { return std::isinf(alpha) ? xm : xm / std::pow(1.0 - q, 1.0 / alpha); };
  timeout_ = to_ms(at(params_.quantile), params_);
  close_timeout_ = std::max(to_ms(at(params_.close_quantile), params_), params_.initial);
}

}  // namespace conflux::path
