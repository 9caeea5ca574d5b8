// The registry and the text exposition format 0.0.4, compared as exact text.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "conflux/metrics/registry.hpp"
#include "conflux/metrics/text_format.hpp"

using namespace conflux::metrics;

TEST_CASE("metric and label names follow the format's grammar", "[metrics]") {
  CHECK(valid_metric_name("conflux_relay_circuits_open"));
  CHECK(valid_metric_name("a:b_c9"));
  CHECK(valid_metric_name("_x"));
  CHECK_FALSE(valid_metric_name(""));
  CHECK_FALSE(valid_metric_name("9lives"));
  CHECK_FALSE(valid_metric_name("a-b"));
  CHECK_FALSE(valid_metric_name("a b"));
  CHECK_FALSE(valid_metric_name("caf\xc3\xa9"));
  CHECK(valid_label_name("reason"));
  CHECK(valid_label_name("_r2"));
  CHECK_FALSE(valid_label_name("__name__"));
  CHECK_FALSE(valid_label_name("a:b"));
  CHECK_FALSE(valid_label_name("2a"));
  CHECK_FALSE(valid_label_name(""));
}

TEST_CASE("label values and HELP text are escaped", "[metrics]") {
  std::string v;
  append_label_value(v, "a\\b\"c\nd'e");
  CHECK(v == "a\\\\b\\\"c\\nd'e");
  std::string h;
  append_help(h, "a\\b\"c\nd");
  CHECK(h == "a\\\\b\"c\\nd");
}

TEST_CASE("values are spelled exactly", "[metrics]") {
  auto spell = [](Value v) {
    std::string s;
    v.append_to(s);
    return s;
  };
  CHECK(spell(std::uint64_t{18446744073709551615U}) == "18446744073709551615");
  CHECK(spell(-3) == "-3");
  CHECK(spell(0) == "0");
  CHECK(spell(2.0) == "2");
  CHECK(spell(0.25) == "0.25");
  CHECK(spell(1e-9) == "1e-09");
  CHECK(spell(std::numeric_limits<double>::infinity()) == "+Inf");
  CHECK(spell(-std::numeric_limits<double>::infinity()) == "-Inf");
  CHECK(spell(std::numeric_limits<double>::quiet_NaN()) == "NaN");
}

TEST_CASE("a snapshot groups samples by family with HELP and TYPE first", "[metrics]") {
  Snapshot s;
  CHECK(s.counter("x_total", "Things.", 3, {{"reason", "a"}}));
  CHECK(s.gauge("y", "Open now.\nSecond line", 1.5));
  CHECK(s.counter("x_total", "ignored help", std::uint64_t{4}, {{"reason", "b\"q"}}));
  CHECK(s.gauge("z", "", -2));
  CHECK(s.rejected() == 0);
  CHECK(s.render() ==
        "# HELP x_total Things.\n"
        "# TYPE x_total counter\n"
        "x_total{reason=\"a\"} 3\n"
        "x_total{reason=\"b\\\"q\"} 4\n"
        "# HELP y Open now.\\nSecond line\n"
        "# TYPE y gauge\n"
        "y 1.5\n"
        "# TYPE z gauge\n"
        "z -2\n");
}

TEST_CASE("a snapshot drops samples that would make the output invalid", "[metrics]") {
  Snapshot s;
  CHECK(s.counter("ok_total", "h", 1));
  CHECK_FALSE(s.counter("bad name", "h", 1));
  CHECK_FALSE(s.gauge("ok_total", "h", 1));                         // another type
  CHECK_FALSE(s.counter("ok_total", "h", 2));                       // same (empty) label set
  CHECK_FALSE(s.counter("neg_total", "h", -1));                     // counters never go down
  CHECK_FALSE(s.counter("nan_total", "h", std::nan("")));
  CHECK_FALSE(s.gauge("g", "h", 1, {{"__reserved", "x"}}));
  CHECK_FALSE(s.gauge("g", "h", 1, {{"a", "1"}, {"a", "2"}}));      // repeated label
  CHECK_FALSE(s.histogram("hist", "h", Histogram({1.0}), {{"le", "1"}}));
  CHECK(s.gauge("g2", "h", 1, {{"a", "1"}, {"b", "2"}}));
  CHECK_FALSE(s.gauge("g2", "h", 2, {{"b", "2"}, {"a", "1"}}));     // same set, other order
  CHECK(s.rejected() == 9);
  CHECK(s.render() ==
        "# HELP ok_total h\n# TYPE ok_total counter\nok_total 1\n"
        "# HELP g2 h\n# TYPE g2 gauge\ng2{a=\"1\",b=\"2\"} 1\n");
}

TEST_CASE("histograms expose cumulative buckets, +Inf, _sum and _count", "[metrics]") {
  Histogram h({1.0, 0.5, 1.0, std::numeric_limits<double>::infinity(), 2.5});
  REQUIRE(h.bounds().size() == 3);  // sorted, duplicates and +Inf dropped
  h.observe(0.5);                    // le is inclusive
  h.observe(0.75);
  h.observe(3);
  h.observe(1.0);
  Snapshot s;
  CHECK(s.histogram("conflux_build_seconds", "Build time.", h, {{"kind", "exit"}}));
  CHECK(s.render() ==
        "# HELP conflux_build_seconds Build time.\n"
        "# TYPE conflux_build_seconds histogram\n"
        "conflux_build_seconds_bucket{kind=\"exit\",le=\"0.5\"} 1\n"
        "conflux_build_seconds_bucket{kind=\"exit\",le=\"1\"} 3\n"
        "conflux_build_seconds_bucket{kind=\"exit\",le=\"2.5\"} 3\n"
        "conflux_build_seconds_bucket{kind=\"exit\",le=\"+Inf\"} 4\n"
        "conflux_build_seconds_sum{kind=\"exit\"} 5.25\n"
        "conflux_build_seconds_count{kind=\"exit\"} 4\n");
}

TEST_CASE("a NaN observation keeps +Inf equal to _count", "[metrics]") {
  Histogram h({1.0});
  h.observe(std::nan(""));
  Snapshot s;
  CHECK(s.histogram("h", "", h));
  CHECK(s.render() ==
        "# TYPE h histogram\n"
        "h_bucket{le=\"1\"} 0\n"
        "h_bucket{le=\"+Inf\"} 1\n"
        "h_sum NaN\n"
        "h_count 1\n");
}

TEST_CASE("bucket helpers", "[metrics]") {
  CHECK(exponential_buckets(0.01, 2, 4) == std::vector<double>{0.01, 0.02, 0.04, 0.08});
  CHECK(linear_buckets(1, 0.5, 3) == std::vector<double>{1, 1.5, 2});
  CHECK(exponential_buckets(1, 2, 0).empty());
}

TEST_CASE("registry metric objects and collectors render together", "[metrics]") {
  Registry r;
  Counter& a = r.counter("conflux_a_total", "A.", {{"kind", "x"}});
  Counter& b = r.counter("conflux_a_total", "A.", {{"kind", "y"}});
  Gauge& g = r.gauge("conflux_g", "G.");
  CHECK(&r.counter("conflux_a_total", "A.", {{"kind", "x"}}) == &a);  // same object again
  a.inc();
  a.inc(2);
  b.inc();
  g.set(7);
  g.dec(2);
  std::uint64_t owned_counter = 41;
  const auto id = r.add_collector([&owned_counter](Snapshot& s) {
    s.counter("conflux_a_total", "A.", owned_counter, {{"kind", "z"}});
    s.gauge("conflux_c", "C.", 0);
  });
  ++owned_counter;
  CHECK(r.render() ==
        "# HELP conflux_a_total A.\n# TYPE conflux_a_total counter\n"
        "conflux_a_total{kind=\"x\"} 3\n"
        "conflux_a_total{kind=\"y\"} 1\n"
        "conflux_a_total{kind=\"z\"} 42\n"
        "# HELP conflux_g G.\n# TYPE conflux_g gauge\nconflux_g 5\n"
        "# HELP conflux_c C.\n# TYPE conflux_c gauge\nconflux_c 0\n");
  r.remove_collector(id);
  CHECK(r.render() ==
        "# HELP conflux_a_total A.\n# TYPE conflux_a_total counter\n"
        "conflux_a_total{kind=\"x\"} 3\n"
        "conflux_a_total{kind=\"y\"} 1\n"
        "# HELP conflux_g G.\n# TYPE conflux_g gauge\nconflux_g 5\n");
}

TEST_CASE("registry histograms", "[metrics]") {
  Registry r;
  Histogram& h = r.histogram("lat_seconds", "Latency.", {0.1, 1});
  h.observe(0.05);
  CHECK(&r.histogram("lat_seconds", "Latency.", {5}) == &h);  // first bounds kept
  CHECK(r.render() ==
        "# HELP lat_seconds Latency.\n# TYPE lat_seconds histogram\n"
        "lat_seconds_bucket{le=\"0.1\"} 1\nlat_seconds_bucket{le=\"1\"} 1\nlat_seconds_bucket{le=\"+Inf\"} 1\n"
        "lat_seconds_sum 0.05\nlat_seconds_count 1\n");
}

TEST_CASE("registry refuses bad registrations", "[metrics]") {
  Registry r;
  r.counter("c_total", "C.");
  CHECK_THROWS_AS(r.gauge("c_total", "C."), std::invalid_argument);
  CHECK_THROWS_AS(r.counter("1c", "C."), std::invalid_argument);
  CHECK_THROWS_AS(r.counter("d_total", "D.", {{"__x", "1"}}), std::invalid_argument);
  CHECK_THROWS_AS(r.histogram("h", "H.", {1}, {{"le", "1"}}), std::invalid_argument);
  CHECK(r.render() == "# HELP c_total C.\n# TYPE c_total counter\nc_total 0\n");
}

TEST_CASE("an empty registry renders nothing", "[metrics]") {
  Registry r;
  CHECK(r.render().empty());
}
