#pragma once
// What the DirPort answers, sans-I/O: method + path + body in, status +
// body out. The DirServer does the HTTP; this decides. Which paths exist
// depends on the role: an authority takes tor descriptors at /tor/ (its
// TorDescriptorStore) and signatures, and serves tor's documents
// (TorAuthorityState); a directory cache serves its mirror; every relay
// serves its own tor descriptor; every other path is 404, a known path with
// the wrong method 405, a body above the path's cap 413, an invalid
// document 400. Every body is text/plain, as tor serves its documents.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "conflux/crypto/ed25519.hpp"

namespace conflux::dirnet {

class TorAuthorityState;
class TorDirMirror;
class TorDescriptorStore;

enum class HttpMethod : std::uint8_t { Get, Post, Other };

struct DirReply {
  unsigned status = 200;
  std::string body;
  std::string reason{};             // the status line's reason phrase (tor's directory says why there); "" standard
  bool descriptor_not_new = false;  // tor's "X-Descriptor-Not-New: Yes"
};

// Before the body is read: either an answer (404/405) or the body cap.
struct RouteCheck {
  std::optional<DirReply> early;
  std::size_t body_limit = 0;
};

class DirRoutes {
 public:
  // Its tor-format side (null: tor's paths are not served). Must outlive the routes.
  void set_tor_authority(TorAuthorityState* state) noexcept { tor_ = state; }
  // A relay's copy of a tor network's directory, served at the same paths
  // as a tor directory cache serves it (null: not a cache; an authority's
  // own documents win). Must outlive the routes.
  void set_tor_mirror(const TorDirMirror* mirror) noexcept { mirror_ = mirror; }
  // An authority's store of tor server descriptors POSTed to /tor/ (null:
  // /tor/ is not served), also served at /tor/server/all. Must outlive the routes.
  void set_tor_uploads(TorDescriptorStore* store) noexcept { uploads_ = store; }
  // The relay's own server descriptor in tor's form, served as tor serves
  // its own: /tor/server/authority and /tor/server/fp/FP (FP its RSA
  // fingerprint, 40 hex digits, among others joined by '+').
  void set_tor_self_descriptor(std::string text, std::string fingerprint_hex) {
    tor_self_ = std::move(text);
    tor_self_fp_ = std::move(fingerprint_hex);
  }

  // Called after an upload (tor's, at /tor/) from an identity the
  // authority did not hold (the service tests its reachability at once
  // rather than at the next interval).
  std::function<void(const crypto::Ed25519Public&)> on_new_relay;

  [[nodiscard]] RouteCheck check(HttpMethod method, std::string_view target) const;
  [[nodiscard]] DirReply handle(HttpMethod method, std::string_view target, std::string_view body,
                                std::uint64_t now);

  // Served requests by outcome, for logs and tests.
  struct Counters {
    std::uint64_t ok = 0, not_found = 0, rejected = 0;
  };
  [[nodiscard]] const Counters& counters() const noexcept { return counters_; }

 private:
  enum class Route : std::uint8_t {
    None, TorSelf,
    TorKeysAll, TorKeysAuthority, TorKeysFp, TorKeysFpSk, TorConsensus, TorConsensusNs, TorMicro, TorSignature,
    TorUpload, TorServerAll, TorServerD, TorServerFp
  };
  [[nodiscard]] Route route_for(std::string_view path) const;
  [[nodiscard]] Route tor_route_for(std::string_view path) const;
  [[nodiscard]] DirReply handle_tor(Route route, std::string_view path, std::string_view body, std::uint64_t now);
  [[nodiscard]] DirReply handle_tor_keys(Route route, std::string_view path) const;
  [[nodiscard]] DirReply handle_tor_consensus(Route route, std::string_view path, std::uint64_t now) const;
  [[nodiscard]] DirReply handle_tor_servers(Route route, std::string_view path) const;
  DirReply count(DirReply r);

  TorAuthorityState* tor_ = nullptr;
  const TorDirMirror* mirror_ = nullptr;
  TorDescriptorStore* uploads_ = nullptr;
  std::string tor_self_, tor_self_fp_;
  Counters counters_;
};

// A reply with a short plain-text reason (never a value from the request).
[[nodiscard]] DirReply text_reply(unsigned status, std::string_view reason);
// 200 with a document as its body.
[[nodiscard]] DirReply document_reply(std::string body);

}  // namespace conflux::dirnet
