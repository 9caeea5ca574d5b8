#pragma once
// Certificates shared by test_ed25519_cert.cpp and test_rsa_crosscert.cpp:
// one relay's CERTS-cell certificates from a chutney network, with its RSA
// identity key (the vectors in Arti's crates/tor-cert/tests/testvec_certs.rs).
#include <array>
#include <string_view>

#include <catch2/catch.hpp>

#include "conflux/cell/ed25519_cert.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "test_support.hpp"

namespace conflux::test::certs {

inline crypto::Ed25519Public key32(std::string_view h) {
  auto v = unhex(h);
  REQUIRE(v.size() == 32);
  crypto::Ed25519Public k{};
  std::copy(v.begin(), v.end(), k.begin());
  return k;
}

inline crypto::Ed25519Keypair keypair(std::uint8_t fill) {
  std::array<std::uint8_t, 32> seed{};
  seed.fill(fill);
  return crypto::Ed25519Keypair::from_seed(seed);
}

// --- chutney relay (CERTS cell) -------------------------------------------
inline constexpr const char* kChutneyIdentity = "DCB604DB2034B00FD16986D4ADB9D16B21CB4E4457A33DEC0F538903683E96E9";
inline constexpr const char* kChutneySigning = "F82294B866A31F01FC5D0DA8572850A9B929545C3266558D7D2316E3B74172B0";
inline constexpr const char* kChutneyTlsDigest = "B4FD606B64E4CBD466B8D76CB131069BAE6F3AA1878857C9F624E31D77A799B8";
inline constexpr std::uint64_t kChutneyNow = 1601000000;  // 2020-09-25

inline constexpr const char* kChutneyType4 =
    "01"        // VERSION
    "04"        // CERT_TYPE: Ed25519 signing key, signed by the identity
    "0006CC2A"  // EXPIRATION_DATE, hours
    "01"        // CERT_KEY_TYPE: Ed25519 key
    "F82294B866A31F01FC5D0DA8572850A9B929545C3266558D7D2316E3B74172B0"  // CERTIFIED_KEY
    "01"        // N_EXTENSIONS
    "0020" "04" "00"  // ExtLength 32, ExtType 4 (signed-with-ed25519-key), ExtFlags 0
    "DCB604DB2034B00FD16986D4ADB9D16B21CB4E4457A33DEC0F538903683E96E9"  // the identity key
    "FF1A5203FA27F86EF7528D89A0845D2520166E340754FFEA2AAE0F612B7CE5DA"  // SIGNATURE
    "094A0236CDAC45034B0B6842C18E7F6B51B93A3CF7E60663B8AD061C30A62602";

inline constexpr const char* kChutneyType5 =
    "01" "05" "0006C98A"
    "03"  // CERT_KEY_TYPE: SHA-256 of an X.509 certificate
    "B4FD606B64E4CBD466B8D76CB131069BAE6F3AA1878857C9F624E31D77A799B8"
    "00"  // no extensions
    "7173E5F8068431D0D3F5EE16B4C9FFD59DF373E152A87281BAE744AA5FCF7217"
    "1BF4B27C4E8FC1C6A9FC5CA11058BC49647063D7903CFD9F512F89099B27BC0C";

inline constexpr const char* kChutneyType7 =
    "DCB604DB2034B00FD16986D4ADB9D16B21CB4E4457A33DEC0F538903683E96E9"  // ED25519_KEY
    "0006DA3A"  // EXPIRATION_DATE, hours
    "80"        // SIGLEN = 128 (RSA1024)
    "5CF6006F9179066534DE6B45AD47A5C469063EE462762723396DC9F25452A0A5"
    "2DA3F5087DD239F2A311F6B0D4DFEFF4ABD089DC3D0237A0ABAB19EB2045B91C"
    "DCAF04BE0A72D548A27BF2E77BD876ECFE5E1BE622350DA6BF31F6E306ED8964"
    "88DD5B39409B23FC3EB7B2C9F7328EB18DA36D54D80575899EA6507CCBFCDF1F";

// The relay's RSA identity key, PKCS#1 RSAPublicKey DER.
inline constexpr const char* kChutneyRsaPublic =
    "30818902818100d38b1e6ceb946e0db0751f4cbace3dcb9688b6c25304227b4710c35afb73627e50500f5913e158b6"
    "21802612d1c75827003703338375237552eb3cd3c12f6ab3604e60c1a2d26bb1fbad206ff023969a90909d6a65a545"
    "8a5312c26ebd3a3dad30302d4515cdcd264146ac18e6fc60a04bd3ec327f04294d96ba5aa25b464c3f0203010001";


inline cell::Ed25519Cert decode_ok(std::string_view h) {
  auto c = cell::decode_ed25519_cert(unhex(h));
  REQUIRE(c.has_value());
  return *c;
}

}  // namespace conflux::test::certs
