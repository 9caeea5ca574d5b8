#pragma once
// Reading one value from a Prometheus text exposition (the proxy's
// MetricsPort), for `conflux-net status`.
#include <optional>
#include <string_view>

namespace conflux::netspec {

// The value of the first sample of metric `name` (with or without labels);
// nullopt if there is none or it is not a number. Comment lines are skipped.
[[nodiscard]] std::optional<double> find_metric(std::string_view text, std::string_view name) noexcept;

}  // namespace conflux::netspec
