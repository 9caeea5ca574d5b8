#pragma once
// The file server's content. Test files are pseudo-random bytes that depend
// only on the spec's seed and the file's name, so the same spec gives the
// same files and SHA-256s on every machine, and any part of a file can be
// made without the rest (the generator is counter-based: SplitMix64 of
// key + 8-byte block number). Not for anything secret.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/crypto/digest.hpp"
#include "conflux/netspec/spec.hpp"

namespace conflux::netspec {

// Bytes [offset, offset + out.size()) of the file `name`.
void fill_test_bytes(std::uint64_t seed, std::string_view name, std::uint64_t offset, std::span<std::uint8_t> out);

// Streams a whole file through `sink` in chunks, and returns its SHA-256
// in lower-case hex. `sink` gets each chunk once, in order.
template <class Sink>
std::string generate_test_file(std::uint64_t seed, const FileSpec& f, Sink&& sink);

// The test page served at "/": a known title and one big block of a known
// colour (so a headless browser's screenshot can be checked), then links to
// the test files with sizes and SHA-256s.
inline constexpr std::string_view kIndexTitle = "conflux-net test page";
inline constexpr std::string_view kIndexColour = "#0a8f3c";  // rgb(10, 143, 60)
struct IndexEntry {
  std::string name;
  std::uint64_t size = 0;
  std::string sha256;
};
[[nodiscard]] std::string index_html(const std::vector<IndexEntry>& files);

// ---- implementation of the template ----
[[nodiscard]] std::string to_hex_digest(const crypto::Sha256& hash);

template <class Sink>
std::string generate_test_file(std::uint64_t seed, const FileSpec& f, Sink&& sink) {
  std::vector<std::uint8_t> chunk(1 << 20);
  crypto::Sha256 hash;
  for (std::uint64_t off = 0; off < f.size; off += chunk.size()) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), f.size - off));
    std::span<std::uint8_t> part(chunk.data(), n);
    fill_test_bytes(seed, f.name, off, part);
    hash.update(part);
    sink(std::span<const std::uint8_t>(part));
  }
  return to_hex_digest(hash);
}

}  // namespace conflux::netspec
