#pragma once
// tor's bandwidth file (torspec bandwidth-file-spec), which a directory
// authority reads with V3BandwidthsFile: the bandwidth authorities'
// measurements, one consensus weight per relay named by RSA fingerprint.
//
//   1.0.0:   TIMESTAMP NL, then "node_id=$HEX40 bw=N ..." lines
//   1.1.0+:  TIMESTAMP NL, header KeyValue lines, "=====" (or "====") NL,
//            then relay lines of KeyValues in any order, node_id and bw among them
//
// Read as tor's dirserv_read_measured_bandwidths reads it: a first line
// that is not a timestamp, or a file older than three days, gives no
// measurements; a relay line tor would warn about is skipped (and counted)
// and the rest of the file still counts; a line with vote=0 is not a
// measurement; headers are not used. Stricter than tor, so that the input
// (a file some other program wrote) is bounded: the file's size, each
// line's length and the number of relays are capped, and bw is digits only,
// at most 2^32-1 (tor's consensus weight is 32-bit).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string_view>

#include "conflux/crypto/rsa.hpp"
#include "conflux/dir/error.hpp"

namespace conflux::dir {

inline constexpr std::size_t kMaxBandwidthFileSize = 32u << 20;  // sbws's file for ~7000 relays is ~5 MB
inline constexpr std::size_t kMaxBandwidthFileLine = 8192;       // sbws's lines are ~600 bytes
inline constexpr std::size_t kMaxMeasuredRelays = 1u << 16;
inline constexpr std::uint64_t kMaxMeasurementAge = 3 * 86400;  // tor's MAX_MEASUREMENT_AGE

struct MeasuredBandwidths {
  std::uint64_t timestamp = 0;  // when the measurements were made (the first line)
  // Consensus weight by RSA fingerprint, kilobytes/s (tor's "w Bandwidth=").
  // The first line for a relay counts; later ones are skipped.
  std::map<crypto::RsaFingerprint, std::uint32_t> kb;
  std::size_t skipped_lines = 0;  // relay lines not taken: malformed, duplicate, past the caps
  friend bool operator==(const MeasuredBandwidths&, const MeasuredBandwidths&) = default;
};

// The measurements of a bandwidth file read at `now` (unix seconds). Errors:
// TooLarge (above kMaxBandwidthFileSize), BadValue "timestamp" (the first
// line is not a whole line of digits), Expired "timestamp" (older than
// kMaxMeasurementAge).
[[nodiscard]] DirResult<MeasuredBandwidths> parse_bandwidth_file(std::string_view text, std::uint64_t now);

}  // namespace conflux::dir
