#pragma once
// Internal: strict JSON in and canonical JSON out for the directory
// documents, on nlohmann::json.
//
// Canonical form = nlohmann's dump() with no indentation: object keys in byte
// order (std::map), no whitespace, integers in plain decimal. Every string we
// write is printable ASCII, so no escaping choice arises.
//
// Strict input: a size cap, nesting depth <= kMaxDepth, no repeated keys,
// no unknown keys (ObjectReader::finish), integers only where numbers go.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "conflux/dir/error.hpp"

namespace conflux::dir::detail {

using Json = nlohmann::json;

inline constexpr int kMaxDepth = 8;

DirResult<Json> parse_json(std::string_view text, std::size_t max_size);
std::string dump(const Json& j);

// Reads the fields of one JSON object. Sticky like bytes::Reader: the first
// error is kept and later reads return defaults, so a decoder reads every
// field and checks error() once.
class ObjectReader {
 public:
  explicit ObjectReader(const Json& j, std::string_view what);

  [[nodiscard]] bool ok() const noexcept { return !err_.has_value(); }
  [[nodiscard]] const std::optional<DirError>& error() const noexcept { return err_; }
  void fail(DirErrc c, std::string_view field);

  bool has(std::string_view key) const;
  const Json* get(std::string_view key, Json::value_t type);  // nullptr + error if absent/wrong
  std::string str(std::string_view key);
  std::uint64_t u64(std::string_view key, std::uint64_t min, std::uint64_t max);
  bool boolean(std::string_view key);
  // base64 (unpadded) of exactly N bytes, or any length up to max_len when N == 0.
  template <std::size_t N>
  std::array<std::uint8_t, N> fixed(std::string_view key);
  std::vector<std::uint8_t> blob(std::string_view key, std::size_t max_len);
  // Rejects keys that were not read (UnknownField).
  void finish();

 private:
  const Json& j_;
  std::size_t read_ = 0;
  std::optional<DirError> err_;
};

std::optional<std::vector<std::uint8_t>> decode_b64_fixed(const std::string& s, std::size_t n);

template <std::size_t N>
std::array<std::uint8_t, N> ObjectReader::fixed(std::string_view key) {
  std::array<std::uint8_t, N> out{};
  const std::string s = str(key);
  if (!ok()) return out;
  auto v = decode_b64_fixed(s, N);
  if (!v) {
    fail(DirErrc::BadValue, key);
    return out;
  }
  std::copy(v->begin(), v->end(), out.begin());
  return out;
}

// Error out of an ObjectReader (which must have failed).
inline Unexpected<DirError> failed(const ObjectReader& r) { return Unexpected<DirError>{*r.error()}; }

// Domain-separation prefix + document: the bytes a signature covers.
// Reserving first also keeps GCC 12's -Warray-bounds from misfiring on the
// constant-length prefix at -O2.
inline std::vector<std::uint8_t> prefixed_bytes(std::string_view prefix, std::string_view body) {
  std::vector<std::uint8_t> out;
  out.reserve(prefix.size() + body.size());
  out.insert(out.end(), prefix.begin(), prefix.end());
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

}  // namespace conflux::dir::detail
