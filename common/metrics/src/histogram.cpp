#include "conflux/metrics/histogram.hpp"

#include <algorithm>
#include <cmath>

namespace conflux::metrics {

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)) {
  std::erase_if(bounds_, [](double b) { return !std::isfinite(b); });
  std::sort(bounds_.begin(), bounds_.end());
  bounds_.erase(std::unique(bounds_.begin(), bounds_.end()), bounds_.end());
  counts_.assign(bounds_.size() + 1, 0);
}

void Histogram::observe(double v) noexcept {
  ++count_;
  sum_ += v;
  // NaN has no place among the bounds; it goes to +Inf so that the +Inf
  // bucket always equals _count, as scrapers check.
  if (std::isnan(v)) {
    ++counts_.back();
    return;
  }
  // The first bound >= v: buckets are "less than or equal".
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), v);
  ++counts_[static_cast<std::size_t>(it - bounds_.begin())];
}

std::vector<double> exponential_buckets(double start, double factor, std::size_t count) {
  std::vector<double> out;
  out.reserve(count);
  double b = start;
  for (std::size_t i = 0; i < count; ++i, b *= factor) out.push_back(b);
  return out;
}

std::vector<double> linear_buckets(double start, double width, std::size_t count) {
  std::vector<double> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) out.push_back(start + static_cast<double>(i) * width);
  return out;
}

}  // namespace conflux::metrics
