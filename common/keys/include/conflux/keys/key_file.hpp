#pragma once
// The on-disk format of one key file, and the permission rules of the key
// directory. This is our own format (not tor's "== ed25519v1-secret: type0 =="
// files, which hold a 64-byte expanded key):
//
//   line 1, ASCII:  "conflux-key-v1 <kind> <created>\n"
//                   kind    = ed25519-seed | ed25519-public | ed25519-cert | x25519-secret
//                   created = decimal seconds since the epoch (when the key was made)
//   then:           the payload, raw bytes:
//                   ed25519-seed   32 bytes, the RFC 8032 seed
//                   ed25519-public 32 bytes
//                   ed25519-cert   a cert-spec Ed25519 certificate (104..4096 bytes)
//                   x25519-secret  32 bytes, the RFC 7748 private scalar
//
// Files are written to "<name>.tmp" (mode 0600, O_EXCL), fsynced and renamed,
// so a crash leaves either the old file or the new one.
//
// Permission rules (tor's check_private_dir, made stricter where noted):
//  - a directory must be ours (owner = effective uid) and not group- or
//    world-writable, otherwise we refuse to start; group/world read and
//    search bits are removed (chmod 0700), as tor does;
//  - a key file must be ours and not group/world writable; a secret key file
//    must also not be group/world readable (we refuse; tor does not check).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "conflux/bytes/result.hpp"
#include "conflux/keys/key_store_error.hpp"

namespace conflux::keys {

enum class KeyKind : std::uint8_t { Ed25519Seed, Ed25519Public, Ed25519Cert, X25519Secret };

std::string_view to_string(KeyKind k) noexcept;

// Largest file we read: a header plus a certificate with room for extensions.
inline constexpr std::size_t kMaxKeyFileLen = 8192;

struct KeyFileContents {
  KeyKind kind = KeyKind::Ed25519Seed;
  std::uint64_t created = 0;
  std::vector<std::uint8_t> payload;  // secret for the seed and x25519 kinds: wipe after use
  KeyFileContents() = default;
  KeyFileContents(const KeyFileContents&) = default;
  KeyFileContents(KeyFileContents&&) noexcept = default;
  KeyFileContents& operator=(const KeyFileContents&) = default;
  KeyFileContents& operator=(KeyFileContents&&) noexcept = default;
  ~KeyFileContents();
};

[[nodiscard]] bool is_secret(KeyKind k) noexcept;

// The file's bytes (header + payload). The payload length must fit the kind.
[[nodiscard]] std::vector<std::uint8_t> encode_key_file(KeyKind kind, std::uint64_t created,
                                                        std::span<const std::uint8_t> payload);
// nullopt on a bad header, unknown or unexpected kind, or wrong payload length.
[[nodiscard]] std::optional<KeyFileContents> decode_key_file(std::span<const std::uint8_t> file,
                                                             KeyKind expected);

// Creates `dir` (mode 0700) if it is missing (its parent must exist), then
// applies the directory rules above.
[[nodiscard]] std::optional<KeyStoreError> check_private_dir(const std::filesystem::path& dir);

// nullopt (and no error) when the file does not exist.
[[nodiscard]] Result<std::optional<KeyFileContents>, KeyStoreError> read_key_file(
    const std::filesystem::path& path, KeyKind expected);
[[nodiscard]] std::optional<KeyStoreError> write_key_file(const std::filesystem::path& path, KeyKind kind,
                                                          std::uint64_t created,
                                                          std::span<const std::uint8_t> payload);
// The same rules and atomic write for a file in another format (tor's PEM
// secret_id_key): the bytes as they are, at most kMaxKeyFileLen. `secret`:
// refuse a group- or world-readable file.
[[nodiscard]] Result<std::optional<std::vector<std::uint8_t>>, KeyStoreError> read_raw_key_file(
    const std::filesystem::path& path, bool secret);
[[nodiscard]] std::optional<KeyStoreError> write_raw_key_file(const std::filesystem::path& path,
                                                              std::span<const std::uint8_t> bytes);
// Removing a file that is already gone is not an error.
[[nodiscard]] std::optional<KeyStoreError> remove_key_file(const std::filesystem::path& path);

}  // namespace conflux::keys
