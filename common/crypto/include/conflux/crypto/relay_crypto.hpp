#pragma once
// tor1 relay cell crypto (tor-spec 5.2.2, 5.5, 6.1): include this for the
// whole component.
#include "conflux/crypto/relay_crypto_client.hpp"  // IWYU pragma: export
#include "conflux/crypto/relay_crypto_hop.hpp"     // IWYU pragma: export
#include "conflux/crypto/relay_crypto_keys.hpp"    // IWYU pragma: export
#include "conflux/crypto/relay_crypto_layer.hpp"   // IWYU pragma: export
#include "conflux/crypto/relay_crypto_relay.hpp"   // IWYU pragma: export
#include "conflux/crypto/relay_crypto_types.hpp"   // IWYU pragma: export
