#pragma once
// What one scrape exposes: metric families in a fixed order, each with its
// HELP, TYPE and samples. Collectors (see registry.hpp) fill a Snapshot at
// scrape time from the counters their owner keeps anyway; render() writes
// the text exposition format 0.0.4.
//
// Samples of one family may be added at different times and from different
// collectors: the snapshot groups them, as the format requires (one HELP and
// TYPE per family, its samples together). A sample that would make the
// output invalid (bad name or label name, a type other than the family's,
// a label set the family already has, a negative or NaN counter, a reserved
// label) is dropped and counted in rejected(): the scrape stays parseable.
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "conflux/metrics/histogram.hpp"

namespace conflux::metrics {

enum class MetricType : std::uint8_t { Counter, Gauge, Histogram };

struct Label {
  std::string name;
  std::string value;
};
using Labels = std::vector<Label>;

// A sample value: integers are kept exact (a uint64 counter above 2^53 does
// not lose its low digits); doubles for everything else.
class Value {
 public:
  Value(double v) noexcept : v_(v) {}  // NOLINT: implicit by design
  template <std::integral T>
  Value(T v) noexcept {  // NOLINT: implicit by design
    if constexpr (std::is_signed_v<T>) {
      v_ = static_cast<std::int64_t>(v);
    } else {
      v_ = static_cast<std::uint64_t>(v);
    }
  }
  [[nodiscard]] bool negative_or_nan() const noexcept;
  void append_to(std::string& out) const;

 private:
  std::variant<std::uint64_t, std::int64_t, double> v_{std::uint64_t{0}};
};

struct HistogramSample {
  std::vector<double> bounds;
  std::vector<std::uint64_t> counts;  // non-cumulative, bounds.size() + 1
  std::uint64_t count = 0;
  double sum = 0;
};

struct Sample {
  Labels labels;
  std::variant<Value, HistogramSample> value;
};

struct Family {
  std::string name;
  std::string help;
  MetricType type = MetricType::Gauge;
  std::vector<Sample> samples;
};

// Label names legal for a sample of `type`, none repeated ("le" is the
// histogram's own).
[[nodiscard]] bool valid_labels(const Labels& labels, MetricType type);

class Snapshot {
 public:
  // Each returns false (and counts a rejection) if the sample was dropped.
  // `help` is taken from the first sample of a family.
  bool counter(std::string_view name, std::string_view help, Value value, Labels labels = {});
  bool gauge(std::string_view name, std::string_view help, Value value, Labels labels = {});
  bool histogram(std::string_view name, std::string_view help, const Histogram& h, Labels labels = {});

  [[nodiscard]] const std::vector<Family>& families() const noexcept { return families_; }
  [[nodiscard]] std::size_t rejected() const noexcept { return rejected_; }

  // The text exposition format 0.0.4: families in the order they first
  // appeared, samples in the order they were added, every line ending "\n".
  [[nodiscard]] std::string render() const;

 private:
  bool add(std::string_view name, std::string_view help, MetricType type, Sample sample);
  std::vector<Family> families_;
  std::size_t rejected_ = 0;
};

}  // namespace conflux::metrics
