#pragma once
// The bandwidth file conflux-net gives its authorities (V3BandwidthsFile)
// when a spec has "measured_bandwidths": DIR/authN/v3bw, in tor's
// bandwidth-file-spec version 1.4.0, naming every measured relay by RSA
// fingerprint. Written once by `up` (the authorities read it before every
// consensus); tor's authorities stop using a file three days old.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/netspec/spec.hpp"

namespace conflux::netspec {

inline constexpr std::string_view kBandwidthFileName = "v3bw";

// Each measured relay's weight by name, in kilobytes/s (the consensus's
// unit, 1000 bytes; at least 1): "link" takes each listed relay's emulated
// link rate, an object its rates. Empty without "measured_bandwidths". The
// spec must be valid (validate_spec).
[[nodiscard]] std::map<std::string, std::uint64_t> measured_kb(const NetSpec& spec);

struct MeasuredRelay {
  std::string name;             // its nickname
  std::string rsa_fingerprint;  // 40 hex digits
  std::uint64_t kb = 0;
};

// The file's text: the timestamp, a version 1.4.0 header, the terminator,
// then one "node_id=$FP bw=KB nick=NAME" line per relay.
[[nodiscard]] std::string render_bandwidth_file(std::uint64_t timestamp, const std::vector<MeasuredRelay>& relays);

}  // namespace conflux::netspec
