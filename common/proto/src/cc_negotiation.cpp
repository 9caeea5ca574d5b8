#include "conflux/proto/cc_negotiation.hpp"

namespace conflux::proto {

using crypto::NtorV3Extension;
using crypto::NtorV3ExtType;

std::string_view to_string(CcNegotiationError e) noexcept {
  switch (e) {
    case CcNegotiationError::MalformedList: return "malformed ntor-v3 extension list";
    case CcNegotiationError::EmptyResponse: return "congestion-control response without sendme_inc";
    case CcNegotiationError::SendmeIncOutOfRange: return "congestion-control sendme_inc out of range";
    case CcNegotiationError::Unsolicited: return "congestion-control response that was not requested";
  }
  return "unknown congestion-control negotiation error";
}

std::vector<NtorV3Extension> cc_client_request(const CcParams& ours) {
  if (!ours.enabled()) return {};
  return {crypto::make_cc_request()};
}

CcExitAnswer cc_exit_answer(std::span<const NtorV3Extension> request, const CcParams& ours) {
  CcExitAnswer out;
  const bool asked = crypto::find_ntor_v3_extension(request, NtorV3ExtType::CcRequest) != nullptr;
  if (asked && ours.enabled()) {
    out.agreement = CcAgreement{ours.sendme_inc};
    out.reply.push_back(crypto::make_cc_response(ours.sendme_inc));
  }
  return out;
}

Result<CcExitAnswer, CcNegotiationError> cc_exit_answer(std::span<const std::uint8_t> cm, const CcParams& ours) {
  auto exts = crypto::decode_ntor_v3_extensions(cm);
  if (!exts) return Unexpected{CcNegotiationError::MalformedList};
  return cc_exit_answer(std::span<const NtorV3Extension>(*exts), ours);
}

Result<std::optional<CcAgreement>, CcNegotiationError> cc_client_accept(std::span<const NtorV3Extension> response,
                                                                        bool requested,
                                                                        std::uint8_t our_sendme_inc) {
  const NtorV3Extension* cc = crypto::find_ntor_v3_extension(response, NtorV3ExtType::CcResponse);
  if (cc == nullptr) return std::optional<CcAgreement>{};
  if (cc->body.empty()) return Unexpected{CcNegotiationError::EmptyResponse};
  const std::uint8_t inc = cc->body.front();
  if (!cc_sendme_inc_acceptable(inc, our_sendme_inc)) return Unexpected{CcNegotiationError::SendmeIncOutOfRange};
  // tor checks this after the value (a consensus that turned CC off during
  // the handshake); the order only changes which error is reported.
  if (!requested) return Unexpected{CcNegotiationError::Unsolicited};
  return std::optional<CcAgreement>{CcAgreement{inc}};
}

Result<std::optional<CcAgreement>, CcNegotiationError> cc_client_accept(std::span<const std::uint8_t> sm,
                                                                        bool requested,
                                                                        std::uint8_t our_sendme_inc) {
  auto exts = crypto::decode_ntor_v3_extensions(sm);
  if (!exts) return Unexpected{CcNegotiationError::MalformedList};
  return cc_client_accept(std::span<const NtorV3Extension>(*exts), requested, our_sendme_inc);
}

}  // namespace conflux::proto
