#pragma once
// A histogram with fixed bucket upper bounds, as Prometheus exposes it:
// cumulative _bucket{le="..."} series ending with le="+Inf", then _sum and
// _count. The owner observes values; a snapshot copies the counts.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace conflux::metrics {

class Histogram {
 public:
  // `bounds` are the finite upper bounds (inclusive: v <= bound). They are
  // sorted and de-duplicated and non-finite ones dropped, so any list gives
  // a valid histogram; the +Inf bucket is always there.
  explicit Histogram(std::vector<double> bounds);

  // NaN counts in the +Inf bucket (so that it equals _count) and makes _sum NaN.
  void observe(double v) noexcept;

  [[nodiscard]] std::span<const double> bounds() const noexcept { return bounds_; }
  // Non-cumulative counts, one per bound plus the last for +Inf.
  [[nodiscard]] std::span<const std::uint64_t> bucket_counts() const noexcept { return counts_; }
  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
  [[nodiscard]] double sum() const noexcept { return sum_; }

 private:
  std::vector<double> bounds_;
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  double sum_ = 0;
};

// Common bucket lists: `count` bounds start, start*factor, start*factor^2...
[[nodiscard]] std::vector<double> exponential_buckets(double start, double factor, std::size_t count);
// `count` bounds start, start+width, start+2*width...
[[nodiscard]] std::vector<double> linear_buckets(double start, double width, std::size_t count);

}  // namespace conflux::metrics
