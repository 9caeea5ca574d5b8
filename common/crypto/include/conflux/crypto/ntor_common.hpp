#pragma once
// Types shared by the ntor (tor-spec 5.1.4) and ntor-v3 (prop 332) circuit
// handshakes: the caller-sized key material they produce and the reasons a
// handshake is refused.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "conflux/bytes/result.hpp"

namespace conflux::crypto {

// Why a handshake was refused. None of these is sent on the wire (a relay
// answers every failure with the same DESTROY); they exist for logs and tests.
enum class HandshakeError : std::uint8_t {
  BadLength,     // onionskin / reply shorter (or, for ntor v1, longer) than the format
  WrongNodeId,   // the onionskin names another relay
  UnknownKeyId,  // KEYID is none of our onion keys
  DegenerateDh,  // a Diffie-Hellman result was all zeros (small-order point)
  BadMac,        // ntor-v3: the client message MAC did not verify
  BadAuth,       // the server's AUTH did not verify
  Rejected,      // ntor-v3: the server's policy refused the client message
};

std::string_view to_string(HandshakeError e) noexcept;

template <class T>
using HandshakeResult = Result<T, HandshakeError>;

// Key material derived by a handshake. Owns its bytes and wipes them when it
// goes away; move-only so a key is never silently duplicated.
class KeyMaterial {
 public:
  KeyMaterial() = default;
  // Takes ownership of (and later wipes) `bytes`.
  explicit KeyMaterial(std::vector<std::uint8_t>&& bytes) noexcept : bytes_(std::move(bytes)) {}
  explicit KeyMaterial(std::size_t n) : bytes_(n, 0) {}
  KeyMaterial(const KeyMaterial&) = delete;
  KeyMaterial& operator=(const KeyMaterial&) = delete;
  KeyMaterial(KeyMaterial&& other) noexcept : bytes_(std::move(other.bytes_)) { other.bytes_.clear(); }
  KeyMaterial& operator=(KeyMaterial&& other) noexcept;
  ~KeyMaterial();

  [[nodiscard]] std::span<const std::uint8_t> view() const noexcept { return bytes_; }
  [[nodiscard]] std::span<std::uint8_t> mut() noexcept { return bytes_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_.size(); }
  [[nodiscard]] bool empty() const noexcept { return bytes_.empty(); }

 private:
  void wipe() noexcept;
  std::vector<std::uint8_t> bytes_;
};

}  // namespace conflux::crypto
