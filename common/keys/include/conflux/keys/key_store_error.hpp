#pragma once
// Why the key store refused to start. Messages name the file and the problem,
// never key material.
#include <cstdint>
#include <string>
#include <string_view>

namespace conflux::keys {

enum class KeyStoreErrorKind : std::uint8_t {
  Io,                 // a system call failed (errno text in detail)
  NotADirectory,      // DataDirectory or keys/ exists but is not a directory
  WrongOwner,         // owned by another user (as tor's check_private_dir refuses)
  InsecureDirectory,  // group- or world-writable directory
  InsecureFile,       // a key file others can write, or a secret key file others can read
  BadKeyFile,         // header, kind or length not what the format says
  Mismatch,           // files that contradict each other (e.g. public key vs secret key)
};

std::string_view to_string(KeyStoreErrorKind k) noexcept;

struct KeyStoreError {
  KeyStoreErrorKind kind = KeyStoreErrorKind::Io;
  std::string path;    // the file or directory concerned
  std::string detail;  // human-readable, for the operator

  // "<path>: <detail>", for logs and the refusal message at start-up.
  [[nodiscard]] std::string message() const;
};

}  // namespace conflux::keys
