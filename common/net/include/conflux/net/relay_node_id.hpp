#pragma once
// The 20-byte NODEID of an ntor (v1) CREATE2 handshake for one of our relays.
//
// In tor NODEID is the SHA-1 of the relay's RSA identity key. Our relays have
// only an Ed25519 identity, so NODEID is SHA-1 over the 32 bytes of that
// identity (20 bytes, nothing truncated). Relays (ChannelManager's circuit
// switch keys) and clients (ClientCircuit) must both use this function.
// ntor-v3 needs no such mapping: its NODEID is the Ed25519 identity itself.
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/ntor.hpp"

namespace conflux::net {

[[nodiscard]] inline crypto::NtorNodeId relay_ntor_node_id(const crypto::Ed25519Public& identity) {
  return crypto::sha1(identity);
}

}  // namespace conflux::net
