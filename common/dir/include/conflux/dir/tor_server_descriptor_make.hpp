#pragma once
// Writes tor's server descriptor (dir-spec 2.1.1) for a relay of ours, in
// the order tor's router_dump_router_to_string writes it, signed both ways:
// "router-sig-ed25519" by the Ed25519 signing key (over SHA-256 of "Tor
// router descriptor signature v1" and the text through "router-sig-ed25519 ")
// and "router-signature" by the RSA identity (PKCS#1 over the SHA-1 of the
// text through "router-signature\n"). Cross-certificates prove the onion
// keys: "ntor-onion-key-crosscert SIGN" is a type-10 Ed25519 certificate of
// the Ed25519 identity signed by the Ed25519 form of the ntor onion key;
// "onion-key-crosscert" is the TAP onion key's RSA signature of the RSA
// fingerprint and the Ed25519 identity (tor 0.4.9's parser still requires
// "onion-key" and its crosscert, though no 0.4.9 client uses TAP).
// parse_tor_server_descriptor accepts what this writes. Sans-I/O: `published`
// is given.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/rsa_private.hpp"
#include "conflux/crypto/x25519.hpp"

namespace conflux::dir {

struct TorDescriptorFacts {
  std::string nickname;
  std::array<std::uint8_t, 4> ipv4{};
  std::uint16_t or_port = 0;
  std::uint16_t dir_port = 0;   // 0: no DirPort advertised
  std::string platform;         // "conflux 0.x on Linux"
  std::string protocols;        // the "proto" line's arguments
  std::uint64_t published = 0;  // seconds since the epoch
  std::uint64_t uptime = 0;     // seconds
  std::uint64_t bandwidth_rate = 0, bandwidth_burst = 0, bandwidth_observed = 0;  // bytes/s
  std::vector<std::string> family;  // "$HEX40" or nicknames; empty: no family line
  std::string contact;              // empty: no contact line
  // IPv4 exit policy items in order, "accept *:80" / "reject *:*" (tor's form).
  std::vector<std::string> exit_policy{"reject *:*"};
  bool tunnelled_dir_server = false;  // answers BEGIN_DIR
};

struct TorDescriptorKeys {
  const crypto::RsaPrivateKey& rsa_identity;
  const crypto::Ed25519Public& ed25519_identity;
  const crypto::Ed25519Keypair& signing;            // certified by signing_cert
  std::span<const std::uint8_t> signing_cert;        // the encoded type-4 certificate
  const crypto::X25519Secret& ntor_onion_key;
  const crypto::RsaPrivateKey& tap_onion_key;        // RSA-1024
  std::uint64_t crosscert_expires = 0;               // the ntor crosscert's end (seconds)
};

// Throws std::invalid_argument for facts tor could not parse (a nickname or
// a policy line with a newline, ...).
[[nodiscard]] std::string make_tor_server_descriptor(const TorDescriptorFacts& facts, const TorDescriptorKeys& keys);

}  // namespace conflux::dir
