// Fuzzes the reader of tor's bandwidth file (V3BandwidthsFile at our
// authority, dir/bandwidth_file.hpp): a file another program writes, read
// before every consensus.
// Seeds: version 1.0.0 and 1.4.0 files in sbws's form, and lines tor skips.
//
// Invariants (trap on violation):
//  - the first eight bytes are `now` (big-endian); an accepted file's
//    timestamp is at most kMaxMeasurementAge before it;
//  - at most kMaxMeasuredRelays relays, never more than the file has lines;
//  - every measured relay's fingerprint appears in the file in hex;
//  - reading the same input twice gives the same measurements.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "conflux/bytes/hex.hpp"
#include "conflux/dir/bandwidth_file.hpp"

using namespace conflux;
using namespace conflux::dir;

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 8) return 0;
  std::uint64_t now = 0;
  for (std::size_t i = 0; i < 8; ++i) now = now << 8 | data[i];
  const std::string_view in(reinterpret_cast<const char*>(data + 8), size - 8);
  auto m = parse_bandwidth_file(in, now);
  if (!m) return 0;
  if (now > m->timestamp && now - m->timestamp > kMaxMeasurementAge) __builtin_trap();
  std::size_t lines = 0;
  for (char c : in) lines += c == '\n' ? 1 : 0;
  if (m->kb.size() > kMaxMeasuredRelays || m->kb.size() > lines) __builtin_trap();
  const std::string folded = lower(in);
  for (const auto& [fp, kb] : m->kb)
    if (folded.find(bytes::to_hex(fp)) == std::string::npos) __builtin_trap();
  auto again = parse_bandwidth_file(in, now);
  if (!again || !(*again == *m)) __builtin_trap();
  return 0;
}
