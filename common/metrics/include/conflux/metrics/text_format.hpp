#pragma once
// The pieces of the Prometheus text exposition format 0.0.4 that need care:
// which names are legal, how label values and HELP text are escaped, how
// numbers are spelled. Snapshot::render() puts them together.
#include <cstdint>
#include <string>
#include <string_view>

namespace conflux::metrics {

// The Content-Type a scraper expects for this format.
inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

// Metric names: [a-zA-Z_:][a-zA-Z0-9_:]*.
[[nodiscard]] bool valid_metric_name(std::string_view name) noexcept;
// Label names: [a-zA-Z_][a-zA-Z0-9_]*, and not the reserved "__" prefix.
[[nodiscard]] bool valid_label_name(std::string_view name) noexcept;

// Label values: backslash, double quote and line feed become \\, \" and \n.
void append_label_value(std::string& out, std::string_view value);
// HELP text: backslash and line feed become \\ and \n (quotes stay).
void append_help(std::string& out, std::string_view help);

// Sample values: integers exactly in decimal; doubles in the shortest form
// that reads back to the same value, and NaN, +Inf, -Inf as Prometheus
// spells them.
void append_value(std::string& out, std::uint64_t v);
void append_value(std::string& out, std::int64_t v);
void append_value(std::string& out, double v);

}  // namespace conflux::metrics
