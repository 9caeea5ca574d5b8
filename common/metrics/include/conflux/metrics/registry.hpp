#pragma once
// The metrics a program exposes, for a single-threaded owner (an event
// loop): nothing here is atomic, so update and render on the owner's thread.
//
// Two ways to feed it, mixable:
//  - metric objects the registry owns (counter(), gauge(), histogram()),
//    updated by the owner as things happen;
//  - collectors, called at each scrape, that copy the owner's own counters
//    into the Snapshot. Most of Conflux counts in plain structs already
//    (ChannelManager::Counters, ExitStats), so collectors are the usual way.
//
// Registering a metric object is a start-up act with constant names: a bad
// name, a reserved label, or a name already registered with another type
// throws std::invalid_argument (a programming error, found by the first
// test that runs the code). Asking again for the same name and labels gives
// the same object.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/metrics/histogram.hpp"
#include "conflux/metrics/snapshot.hpp"

namespace conflux::metrics {

class Counter {
 public:
  void inc(std::uint64_t n = 1) noexcept { value_ += n; }
  [[nodiscard]] std::uint64_t value() const noexcept { return value_; }

 private:
  std::uint64_t value_ = 0;
};

class Gauge {
 public:
  void set(double v) noexcept { value_ = v; }
  void inc(double d = 1) noexcept { value_ += d; }
  void dec(double d = 1) noexcept { value_ -= d; }
  [[nodiscard]] double value() const noexcept { return value_; }

 private:
  double value_ = 0;
};

using Collector = std::function<void(Snapshot&)>;

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // References stay valid for the registry's lifetime.
  Counter& counter(std::string_view name, std::string_view help, Labels labels = {});
  Gauge& gauge(std::string_view name, std::string_view help, Labels labels = {});
  // The bounds of the first registration of a name+labels are kept.
  metrics::Histogram& histogram(std::string_view name, std::string_view help, std::vector<double> bounds,
                                Labels labels = {});

  // Collectors run in the order added, after the registry's own metrics.
  // The id removes it again (an owner that dies before the registry).
  using CollectorId = std::uint64_t;
  CollectorId add_collector(Collector collector);
  void remove_collector(CollectorId id);

  [[nodiscard]] Snapshot collect() const;
  // collect().render(): the body of GET /metrics.
  [[nodiscard]] std::string render() const;

 private:
  struct Entry;
  // The entry for name+labels, null if new; throws on a conflict.
  Entry* find(std::string_view name, MetricType type, const Labels& labels);
  template <class M>
  Entry& add(std::string_view name, std::string_view help, Labels labels, M metric);

  std::vector<std::unique_ptr<Entry>> entries_;
  std::vector<std::pair<CollectorId, Collector>> collectors_;
  CollectorId next_collector_ = 1;
};

}  // namespace conflux::metrics
