#include "conflux/metrics/registry.hpp"

#include <algorithm>
#include <stdexcept>
#include <variant>

#include "conflux/metrics/text_format.hpp"

namespace conflux::metrics {

struct Registry::Entry {
  std::string name;
  std::string help;
  Labels labels;
  std::variant<Counter, Gauge, metrics::Histogram> metric;

  [[nodiscard]] MetricType type() const noexcept {
    if (std::holds_alternative<Counter>(metric)) return MetricType::Counter;
    if (std::holds_alternative<Gauge>(metric)) return MetricType::Gauge;
    return MetricType::Histogram;
  }
};

namespace {

bool same_labels(const Labels& a, const Labels& b) {
  if (a.size() != b.size()) return false;
  return std::all_of(a.begin(), a.end(), [&b](const Label& l) {
    return std::any_of(b.begin(), b.end(), [&l](const Label& m) { return m.name == l.name && m.value == l.value; });
  });
}

}  // namespace

Registry::Registry() = default;
Registry::~Registry() = default;

Registry::Entry* Registry::find(std::string_view name, MetricType type, const Labels& labels) {
  if (!valid_metric_name(name)) throw std::invalid_argument("metrics: invalid metric name");
  if (!valid_labels(labels, type)) throw std::invalid_argument("metrics: invalid labels");
  for (const auto& e : entries_) {
    if (e->name != name) continue;
    if (e->type() != type) throw std::invalid_argument("metrics: name registered with another type");
    if (same_labels(e->labels, labels)) return e.get();
  }
  return nullptr;
}

template <class M>
Registry::Entry& Registry::add(std::string_view name, std::string_view help, Labels labels, M metric) {
  auto entry = std::make_unique<Entry>(Entry{std::string(name), std::string(help), std::move(labels), std::move(metric)});
  return *entries_.emplace_back(std::move(entry));
}

Counter& Registry::counter(std::string_view name, std::string_view help, Labels labels) {
  if (Entry* e = find(name, MetricType::Counter, labels)) return std::get<Counter>(e->metric);
  return std::get<Counter>(add(name, help, std::move(labels), Counter{}).metric);
}

Gauge& Registry::gauge(std::string_view name, std::string_view help, Labels labels) {
  if (Entry* e = find(name, MetricType::Gauge, labels)) return std::get<Gauge>(e->metric);
  return std::get<Gauge>(add(name, help, std::move(labels), Gauge{}).metric);
}

metrics::Histogram& Registry::histogram(std::string_view name, std::string_view help, std::vector<double> bounds,
                                        Labels labels) {
  if (Entry* e = find(name, MetricType::Histogram, labels)) return std::get<metrics::Histogram>(e->metric);
  return std::get<metrics::Histogram>(
      add(name, help, std::move(labels), metrics::Histogram(std::move(bounds))).metric);
}

Registry::CollectorId Registry::add_collector(Collector collector) {
  const CollectorId id = next_collector_++;
  collectors_.emplace_back(id, std::move(collector));
  return id;
}

void Registry::remove_collector(CollectorId id) {
  std::erase_if(collectors_, [id](const auto& c) { return c.first == id; });
}

Snapshot Registry::collect() const {
  Snapshot s;
  for (const auto& e : entries_) {
    if (const auto* c = std::get_if<Counter>(&e->metric)) {
      s.counter(e->name, e->help, c->value(), e->labels);
    } else if (const auto* g = std::get_if<Gauge>(&e->metric)) {
      s.gauge(e->name, e->help, g->value(), e->labels);
    } else {
      s.histogram(e->name, e->help, std::get<metrics::Histogram>(e->metric), e->labels);
    }
  }
  for (const auto& [id, collector] : collectors_) {
    if (collector) collector(s);
  }
  return s;
}

std::string Registry::render() const { return collect().render(); }

}  // namespace conflux::metrics
