#include "conflux/crypto/ntor_v3_extensions.hpp"

#include <limits>

#include "conflux/bytes/reader.hpp"
#include "conflux/bytes/writer.hpp"

namespace conflux::crypto {

std::string_view to_string(NtorV3ExtError e) noexcept {
  switch (e) {
    case NtorV3ExtError::Truncated: return "truncated ntor-v3 extension list";
    case NtorV3ExtError::TrailingBytes: return "trailing bytes after ntor-v3 extension list";
    case NtorV3ExtError::TooLong: return "ntor-v3 extension list too long to encode";
    case NtorV3ExtError::BadBody: return "malformed ntor-v3 extension body";
  }
  return "unknown ntor-v3 extension error";
}

NtorV3ExtResult<std::vector<NtorV3Extension>> decode_ntor_v3_extensions(std::span<const std::uint8_t> in) {
  bytes::Reader r(in);
  const std::uint8_t n = r.u8();
  if (!r.ok()) return Unexpected{NtorV3ExtError::Truncated};
  std::vector<NtorV3Extension> out;
  out.reserve(n);
  for (unsigned i = 0; i < n; ++i) {
    NtorV3Extension ext;
    ext.type = r.u8();
    const std::uint8_t len = r.u8();
    auto body = r.take(len);
    if (!r.ok()) return Unexpected{NtorV3ExtError::Truncated};
    ext.body.assign(body.begin(), body.end());
    out.push_back(std::move(ext));
  }
  if (!r.empty()) return Unexpected{NtorV3ExtError::TrailingBytes};
  return out;
}

NtorV3ExtResult<std::vector<std::uint8_t>> encode_ntor_v3_extensions(std::span<const NtorV3Extension> exts) {
  constexpr std::size_t kMax = std::numeric_limits<std::uint8_t>::max();
  if (exts.size() > kMax) return Unexpected{NtorV3ExtError::TooLong};
  std::size_t total = 1;
  for (const auto& e : exts) {
    if (e.body.size() > kMax) return Unexpected{NtorV3ExtError::TooLong};
    total += 2 + e.body.size();
  }
  bytes::Writer w(total);
  w.u8(static_cast<std::uint8_t>(exts.size()));
  for (const auto& e : exts) {
    w.u8(e.type);
    w.u8(static_cast<std::uint8_t>(e.body.size()));
    w.put(e.body);
  }
  return std::move(w).take();
}

const NtorV3Extension* find_ntor_v3_extension(std::span<const NtorV3Extension> exts,
                                              NtorV3ExtType type) noexcept {
  for (const auto& e : exts)
    if (e.type == static_cast<std::uint8_t>(type)) return &e;
  return nullptr;
}

NtorV3Extension make_cc_request() { return {static_cast<std::uint8_t>(NtorV3ExtType::CcRequest), {}}; }

NtorV3Extension make_cc_response(std::uint8_t sendme_inc) {
  return {static_cast<std::uint8_t>(NtorV3ExtType::CcResponse), {sendme_inc}};
}

NtorV3ExtResult<NtorV3Extension> make_subproto_request(std::span<const NtorV3SubprotoRequest> requests) {
  if (requests.size() * 2 > std::numeric_limits<std::uint8_t>::max()) return Unexpected{NtorV3ExtError::TooLong};
  NtorV3Extension ext{static_cast<std::uint8_t>(NtorV3ExtType::SubprotoRequest), {}};
  ext.body.reserve(requests.size() * 2);
  for (const auto& r : requests) {
    ext.body.push_back(r.protocol_id);
    ext.body.push_back(r.version);
  }
  return ext;
}

NtorV3ExtResult<std::monostate> parse_cc_request(const NtorV3Extension& ext) {
  if (ext.type != static_cast<std::uint8_t>(NtorV3ExtType::CcRequest) || !ext.body.empty())
    return Unexpected{NtorV3ExtError::BadBody};
  return std::monostate{};
}

NtorV3ExtResult<std::uint8_t> parse_cc_response(const NtorV3Extension& ext) {
  if (ext.type != static_cast<std::uint8_t>(NtorV3ExtType::CcResponse) || ext.body.size() != 1)
    return Unexpected{NtorV3ExtError::BadBody};
  return ext.body[0];
}

NtorV3ExtResult<std::vector<NtorV3SubprotoRequest>> parse_subproto_request(const NtorV3Extension& ext) {
  if (ext.type != static_cast<std::uint8_t>(NtorV3ExtType::SubprotoRequest) || ext.body.size() % 2 != 0)
    return Unexpected{NtorV3ExtError::BadBody};
  std::vector<NtorV3SubprotoRequest> out;
  out.reserve(ext.body.size() / 2);
  for (std::size_t i = 0; i < ext.body.size(); i += 2) out.push_back({ext.body[i], ext.body[i + 1]});
  return out;
}

}  // namespace conflux::crypto
