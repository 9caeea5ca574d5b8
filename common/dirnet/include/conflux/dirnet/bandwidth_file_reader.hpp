#pragma once
// V3BandwidthsFile at an authority: the file is read again before every
// consensus is computed, as tor's authority reads it before every vote, so
// a bandwidth scanner may replace it while the authority runs.
#include <cstdint>
#include <string>

#include "conflux/dir/bandwidth_file.hpp"
#include "conflux/log/sink.hpp"

namespace conflux::dirnet {

// The measurements in the file at `path` read at `now` (unix seconds). A
// file that cannot be read, is larger than dir::kMaxBandwidthFileSize, has
// no valid timestamp or is older than three days gives none, with a warning
// to `log` (as tor); relay lines that were skipped give one warning with
// their count. Never throws.
[[nodiscard]] dir::MeasuredBandwidths read_bandwidth_file(const std::string& path, std::uint64_t now,
                                                          const log::Sink& log);

}  // namespace conflux::dirnet
