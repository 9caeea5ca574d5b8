#include "conflux/metrics/snapshot.hpp"

#include <algorithm>
#include <cmath>

#include "conflux/metrics/text_format.hpp"

namespace conflux::metrics {
namespace {

std::string_view type_name(MetricType t) noexcept {
  switch (t) {
    case MetricType::Counter:
      return "counter";
    case MetricType::Histogram:
      return "histogram";
    case MetricType::Gauge:
      break;
  }
  return "gauge";
}

}  // namespace

bool valid_labels(const Labels& labels, MetricType type) {
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (!valid_label_name(labels[i].name)) return false;
    // "le" is the histogram's bucket label; a user label by that name would
    // collide with it.
    if (type == MetricType::Histogram && labels[i].name == "le") return false;
    for (std::size_t j = 0; j < i; ++j) {
      if (labels[j].name == labels[i].name) return false;
    }
  }
  return true;
}

namespace {

// Same label set regardless of order.
bool same_labels(const Labels& a, const Labels& b) {
  if (a.size() != b.size()) return false;
  return std::all_of(a.begin(), a.end(), [&b](const Label& l) {
    return std::any_of(b.begin(), b.end(), [&l](const Label& m) { return m.name == l.name && m.value == l.value; });
  });
}

// name{l1="v1",l2="v2"[,extra_name="extra_value"]} value\n
void append_line(std::string& out, std::string_view name, std::string_view suffix, const Labels& labels,
                 std::string_view extra_name, std::string_view extra_value, const Value& value) {
  out += name;
  out += suffix;
  if (!labels.empty() || !extra_name.empty()) {
    out += '{';
    bool first = true;
    for (const Label& l : labels) {
      if (!first) out += ',';
      first = false;
      out += l.name;
      out += "=\"";
      append_label_value(out, l.value);
      out += '"';
    }
    if (!extra_name.empty()) {
      if (!first) out += ',';
      out += extra_name;
      out += "=\"";
      out += extra_value;
      out += '"';
    }
    out += '}';
  }
  out += ' ';
  value.append_to(out);
  out += '\n';
}

void append_histogram(std::string& out, std::string_view name, const Labels& labels, const HistogramSample& h) {
  std::uint64_t cumulative = 0;
  std::string le;
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    cumulative += h.counts[i];
    le.clear();
    if (i < h.bounds.size()) {
      append_value(le, h.bounds[i]);
    } else {
      le = "+Inf";
    }
    append_line(out, name, "_bucket", labels, "le", le, Value(cumulative));
  }
  append_line(out, name, "_sum", labels, {}, {}, Value(h.sum));
  append_line(out, name, "_count", labels, {}, {}, Value(h.count));
}

}  // namespace

bool Value::negative_or_nan() const noexcept {
  if (const auto* i = std::get_if<std::int64_t>(&v_)) return *i < 0;
  if (const auto* d = std::get_if<double>(&v_)) return std::isnan(*d) || *d < 0;
  return false;
}

void Value::append_to(std::string& out) const {
  std::visit([&out](auto v) { append_value(out, v); }, v_);
}

bool Snapshot::counter(std::string_view name, std::string_view help, Value value, Labels labels) {
  if (value.negative_or_nan()) {
    ++rejected_;
    return false;
  }
  return add(name, help, MetricType::Counter, Sample{std::move(labels), value});
}

bool Snapshot::gauge(std::string_view name, std::string_view help, Value value, Labels labels) {
  return add(name, help, MetricType::Gauge, Sample{std::move(labels), value});
}

bool Snapshot::histogram(std::string_view name, std::string_view help, const Histogram& h, Labels labels) {
  HistogramSample s;
  s.bounds.assign(h.bounds().begin(), h.bounds().end());
  s.counts.assign(h.bucket_counts().begin(), h.bucket_counts().end());
  s.count = h.count();
  s.sum = h.sum();
  return add(name, help, MetricType::Histogram, Sample{std::move(labels), std::move(s)});
}

bool Snapshot::add(std::string_view name, std::string_view help, MetricType type, Sample sample) {
  if (!valid_metric_name(name) || !valid_labels(sample.labels, type)) {
    ++rejected_;
    return false;
  }
  auto it = std::find_if(families_.begin(), families_.end(), [name](const Family& f) { return f.name == name; });
  if (it == families_.end()) {
    families_.push_back(Family{std::string(name), std::string(help), type, {}});
    it = families_.end() - 1;
  } else if (it->type != type ||
             std::any_of(it->samples.begin(), it->samples.end(),
                         [&sample](const Sample& s) { return same_labels(s.labels, sample.labels); })) {
    ++rejected_;
    return false;
  }
  it->samples.push_back(std::move(sample));
  return true;
}

std::string Snapshot::render() const {
  std::string out;
  for (const Family& f : families_) {
    if (!f.help.empty()) {
      out += "# HELP ";
      out += f.name;
      out += ' ';
      append_help(out, f.help);
      out += '\n';
    }
    out += "# TYPE ";
    out += f.name;
    out += ' ';
    out += type_name(f.type);
    out += '\n';
    for (const Sample& s : f.samples) {
      if (const auto* v = std::get_if<Value>(&s.value)) {
        append_line(out, f.name, {}, s.labels, {}, {}, *v);
      } else {
        append_histogram(out, f.name, s.labels, std::get<HistogramSample>(s.value));
      }
    }
  }
  return out;
}

}  // namespace conflux::metrics
