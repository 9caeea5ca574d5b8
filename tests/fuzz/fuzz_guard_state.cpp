// The guard state file decoder (path::decode_guard_state): any input either
// is refused as a whole or yields records that re-encode and decode to the
// same records with nothing dropped.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "conflux/path/guard_state.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace conflux::path;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto d = decode_guard_state(text);
  if (d.error) {
    if (!d.records.empty()) __builtin_trap();
    return 0;
  }
  if (d.records.size() > kMaxPersistedGuards) __builtin_trap();
  const GuardSet set(GuardParams{}, d.records);
  const std::string again = encode_guard_state(set);
  auto e = decode_guard_state(again);
  if (e.error || e.dropped != 0 || e.records != d.records) __builtin_trap();
  if (encode_guard_state(GuardSet(GuardParams{}, e.records)) != again) __builtin_trap();
  return 0;
}
