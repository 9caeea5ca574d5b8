#pragma once
// The HTTP paths of the directory, served on an authority's or bridge's
// DirPort (plain HTTP/1.1; every document is signed, so the transport needs
// no integrity of its own). Bodies are the JSON documents of this module,
// Content-Type application/json.
//
//   POST kDescriptorUpload      relay -> each authority in its DirAuthority lines.
//                               Body: a descriptor. 200 when accepted
//                               (accept_upload), 400 when not; bridges never upload.
//   GET  kConsensus             anyone -> authority: the latest consensus that
//                               a majority signed (404 until there is one).
//   GET  kSelfDescriptor        client -> bridge it names: the bridge's own signed
//                               descriptor (is_bridge = true).
//   POST kConsensusSignature    authority -> other authorities: a DetachedSignature
//                               for the body the sender computed for the current
//                               interval. 200 when added, 409 on another body
//                               (DigestMismatch), 400 when invalid.
//   GET  kConsensusBody         authority -> authority (optional, debugging and
//                               catching up): this authority's current unsigned
//                               body, to compare digests when signatures do not combine.
#include <cstddef>
#include <string_view>

namespace conflux::dir {

inline constexpr std::string_view kDescriptorUpload = "/conflux/v1/descriptor";
inline constexpr std::string_view kConsensus = "/conflux/v1/consensus";
inline constexpr std::string_view kSelfDescriptor = "/conflux/v1/descriptor/self";
inline constexpr std::string_view kConsensusSignature = "/conflux/v1/consensus-signature";
inline constexpr std::string_view kConsensusBody = "/conflux/v1/consensus-body";

inline constexpr std::string_view kJsonContentType = "application/json";

// The largest request/response body each path carries (the parsers' caps).
inline constexpr std::size_t kMaxUploadBody = 20000;               // kMaxDescriptorSize
inline constexpr std::size_t kMaxConsensusBody = 5 * 1024 * 1024;  // kMaxConsensusSize
inline constexpr std::size_t kMaxSignatureBody = 4096;             // kMaxDetachedSignatureSize

}  // namespace conflux::dir
