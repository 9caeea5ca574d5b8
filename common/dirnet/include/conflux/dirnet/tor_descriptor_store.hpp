#pragma once
// What an authority of ours does with a tor server descriptor POSTed to
// /tor/ (a stock relay, or ours in tor's form, uploading as tor's relays
// do), sans-I/O: verified with the tor server descriptor parser (both
// signatures, the certificates, at `now`) and answered as tor's authorities
// answer, the reason in the HTTP status line (dircache.c,
// process_descs.c): 200 "Descriptor accepted"; 200 "Not replacing router
// descriptor; ..." (X-Descriptor-Not-New) when it is not newer than the one
// held; 400 with tor's reason otherwise. Accepted descriptors are kept, at
// most `capacity` relays (503 beyond), and served at /tor/server/all.
//
// Not yet: they do not enter our consensus (built from our own descriptors).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "conflux/dir/tor_server_descriptor.hpp"

namespace conflux::dirnet {

struct TorUploadAnswer {
  unsigned status = 400;
  std::string reason;     // tor's message, for the status line
  bool not_new = false;   // tor's "X-Descriptor-Not-New: Yes"
  bool accepted = false;  // stored (new or newer)
};

class TorDescriptorStore {
 public:
  static constexpr std::size_t kDefaultCapacity = 4096;
  explicit TorDescriptorStore(std::size_t capacity = kDefaultCapacity) : capacity_(capacity) {}

  [[nodiscard]] TorUploadAnswer accept(std::string_view body, std::uint64_t now);
  // Every descriptor held, concatenated (empty when none).
  [[nodiscard]] std::string all() const;
  [[nodiscard]] std::size_t size() const noexcept { return held_.size(); }

 private:
  std::size_t capacity_;
  std::map<crypto::RsaFingerprint, dir::TorServerDescriptor> held_;
};

}  // namespace conflux::dirnet
