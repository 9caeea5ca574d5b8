#pragma once
// The guard set on disk: DataDirectory/guard-state (the caller names the
// file), JSON, written to a temporary file, fsynced and renamed into place.
// A missing or corrupt file is not fatal: the proxy starts with a new guard
// set and the caller logs the warning.
//
//   {"format":"conflux-guard-state-v1",
//    "guards":[{"identity":B64,"nickname":S,"added_on":N,
//               "confirmed_on":N,"unlisted_since":N}, ...]}   (last two optional)
//
// Unknown fields are ignored (a newer writer may add some); a malformed
// guard entry is dropped on its own, so one bad line does not cost the others.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "conflux/path/guard_set.hpp"

namespace conflux::path {

inline constexpr std::string_view kGuardStateFormat = "conflux-guard-state-v1";
inline constexpr std::size_t kMaxGuardStateSize = 1024 * 1024;
inline constexpr std::size_t kMaxPersistedGuards = 256;

[[nodiscard]] std::string encode_guard_state(const GuardSet& guards);

struct GuardStateDecode {
  std::vector<GuardRecord> records;
  std::size_t dropped = 0;    // malformed, duplicate or surplus entries skipped
  std::optional<std::string> error;  // the document as a whole is unusable
};
[[nodiscard]] GuardStateDecode decode_guard_state(std::string_view text);

struct GuardStateLoad {
  enum class Status : std::uint8_t { Loaded, Missing, Corrupt };
  GuardSet guards;
  Status status = Status::Missing;
  std::string warning;  // empty when Loaded with nothing dropped
};
[[nodiscard]] GuardStateLoad load_guard_state(const std::filesystem::path& file, GuardParams params = {});

// nullopt on success, else what failed (the old file is then untouched).
[[nodiscard]] std::optional<std::string> save_guard_state(const std::filesystem::path& file, const GuardSet& guards);

}  // namespace conflux::path
