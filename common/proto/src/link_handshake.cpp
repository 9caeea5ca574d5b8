#include "conflux/proto/link_handshake.hpp"

#include <algorithm>

#include "conflux/cell/auth_challenge_cell.hpp"
#include "conflux/cell/authenticate_cell.hpp"
#include "conflux/cell/netinfo_cell.hpp"
#include "conflux/cell/versions_cell.hpp"
#include "conflux/crypto/random.hpp"

namespace conflux::proto {
namespace {

using cell::CellCommand;

// One bit per handshake command, to refuse a second copy of any of them.
std::uint32_t command_bit(CellCommand cmd) noexcept {
  switch (cmd) {
    case CellCommand::Versions: return 1U << 0;
    case CellCommand::Certs: return 1U << 1;
    case CellCommand::AuthChallenge: return 1U << 2;
    case CellCommand::Authenticate: return 1U << 3;
    case CellCommand::Netinfo: return 1U << 4;
    default: return 0;
  }
}

std::optional<cell::LinkVersion> pick_version(const std::vector<std::uint16_t>& theirs) {
  std::optional<cell::LinkVersion> best;
  for (std::uint16_t v : theirs) {
    const bool ours = std::find(kSupportedLinkVersions.begin(), kSupportedLinkVersions.end(), v) !=
                      kSupportedLinkVersions.end();
    if (ours && (!best || v > *best)) best = v;
  }
  return best;
}

struct WipeFields {
  Auth0003Fields& f;
  ~WipeFields() { crypto::secure_wipe(f.tlssecrets.data(), f.tlssecrets.size()); }
};

}  // namespace

LinkHandshake::LinkHandshake(bool initiator, ExpectedPeer expected_peer,
                             std::optional<LinkCredentials> credentials, TlsFacts tls, LinkAddresses addresses,
                             LinkLimits limits)
    : initiator_(initiator),
      expected_peer_(expected_peer),
      creds_(std::move(credentials)),
      tls_(std::move(tls)),
      addresses_(std::move(addresses)),
      limits_(limits),
      step_(initiator ? Step::Idle : Step::AwaitVersions) {}

LinkHandshake LinkHandshake::initiator(const crypto::Ed25519Public& expected_peer,
                                       std::optional<LinkCredentials> credentials, TlsFacts tls,
                                       LinkAddresses addresses, LinkLimits limits) {
  return initiator(ExpectedPeer{expected_peer, std::nullopt}, std::move(credentials), std::move(tls),
                   std::move(addresses), limits);
}

LinkHandshake LinkHandshake::initiator(ExpectedPeer expected_peer, std::optional<LinkCredentials> credentials,
                                       TlsFacts tls, LinkAddresses addresses, LinkLimits limits) {
  return LinkHandshake(true, expected_peer, std::move(credentials), std::move(tls), std::move(addresses), limits);
}

LinkHandshake LinkHandshake::responder(LinkCredentials credentials, TlsFacts tls, LinkAddresses addresses,
                                       LinkLimits limits) {
  return LinkHandshake(false, ExpectedPeer{}, std::move(credentials), std::move(tls), std::move(addresses), limits);
}

LinkState LinkHandshake::state() const noexcept {
  if (failure_) return LinkState::Failed;
  if (done_) return LinkState::Done;
  return LinkState::InProgress;
}

cell::FramerLimits LinkHandshake::framer_limits() const noexcept {
  const std::size_t left = limits_.max_bytes > bytes_in_ ? limits_.max_bytes - bytes_in_ : 0;
  const std::size_t header = cell::var_cell_header_len(link_);
  return cell::FramerLimits{std::min(cell::kMaxVarPayloadLen, left > header ? left - header : 0)};
}

std::vector<std::uint8_t> LinkHandshake::take_output() {
  std::vector<std::uint8_t> out;
  out.swap(out_);
  return out;
}

void LinkHandshake::fail(LinkFailure f) {
  failure_ = f;
  step_ = Step::Finished;
  out_.clear();
}

bool LinkHandshake::emit(CellCommand cmd, bytes::ByteSpan payload, cell::LinkVersion framing) {
  auto cell_bytes = cell::encode_cell(framing, CircId{0}, cmd, payload);
  if (!cell_bytes) {
    fail(LinkFailure::Internal);
    return false;
  }
  sent_log_.update(*cell_bytes);
  out_.insert(out_.end(), cell_bytes->begin(), cell_bytes->end());
  return true;
}

void LinkHandshake::start() {
  if (!initiator_ || step_ != Step::Idle) return;
  const cell::VersionsCell versions{{kSupportedLinkVersions.begin(), kSupportedLinkVersions.end()}};
  auto payload = cell::encode_versions_cell(versions);
  // VERSIONS goes out before a version is agreed: 2-byte circuit ID framing.
  if (!payload || !emit(CellCommand::Versions, *payload, cell::kLinkNotNegotiated)) {
    fail(LinkFailure::Internal);
    return;
  }
  step_ = Step::AwaitVersions;
}

void LinkHandshake::on_cell(bytes::ByteSpan raw_cell, std::uint64_t now) {
  if (state() != LinkState::InProgress) return;
  if (step_ == Step::Idle) return fail(LinkFailure::NotStarted);
  ++cells_in_;
  bytes_in_ += raw_cell.size();
  if (cells_in_ > limits_.max_cells || bytes_in_ > limits_.max_bytes) return fail(LinkFailure::TooLarge);

  const auto framed = cell::frame_cell(raw_cell, link_);
  if (const auto* err = std::get_if<cell::FrameError>(&framed)) {
    return fail(err->error == cell::DecodeError::UnknownCommand ? LinkFailure::UnexpectedCell
                                                                 : LinkFailure::MalformedCell);
  }
  const auto* ok = std::get_if<cell::Framed>(&framed);
  if (ok == nullptr || ok->consumed != raw_cell.size()) return fail(LinkFailure::MalformedCell);
  if (ok->cell.circ_id != CircId{0}) return fail(LinkFailure::MalformedCell);

  // CLOG covers the initiator's bytes "up to but not including the
  // AUTHENTICATE cell"; everything else counts.
  if (ok->cell.command != CellCommand::Authenticate) recv_log_.update(raw_cell);
  handle(ok->cell, now);
}

void LinkHandshake::handle(const cell::CellView& c, std::uint64_t now) {
  if (c.command == CellCommand::VPadding) {
    // Allowed in any number once VERSIONS has been received (tor-spec 4).
    if (step_ == Step::AwaitVersions) fail(LinkFailure::UnexpectedCell);
    return;
  }
  const std::uint32_t bit = command_bit(c.command);
  if (bit == 0) return fail(LinkFailure::UnexpectedCell);
  if ((seen_ & bit) != 0) return fail(LinkFailure::DuplicateCell);
  seen_ |= bit;
  switch (c.command) {
    case CellCommand::Versions: return on_versions(c.payload, now);
    case CellCommand::Certs: return on_certs(c.payload, now);
    case CellCommand::AuthChallenge: return on_auth_challenge(c.payload, now);
    case CellCommand::Authenticate: return on_authenticate(c.payload);
    case CellCommand::Netinfo: return on_netinfo(c.payload, now);
    default: return fail(LinkFailure::UnexpectedCell);
  }
}

void LinkHandshake::on_versions(bytes::ByteSpan payload, std::uint64_t now) {
  if (step_ != Step::AwaitVersions) return fail(LinkFailure::UnexpectedCell);
  auto versions = cell::decode_versions_cell(payload);
  if (!versions) return fail(LinkFailure::MalformedCell);
  const auto v = pick_version(versions->versions);
  if (!v) return fail(LinkFailure::NoCommonVersion);
  link_ = *v;
  if (initiator_) {
    step_ = Step::AwaitCerts;
    return;
  }

  // Responder: VERSIONS (2-byte framing, the initiator has not seen it yet),
  // CERTS, AUTH_CHALLENGE, NETINFO, all at once.
  const cell::VersionsCell ours{{kSupportedLinkVersions.begin(), kSupportedLinkVersions.end()}};
  auto versions_payload = cell::encode_versions_cell(ours);
  if (!versions_payload) return fail(LinkFailure::Internal);
  if (!emit(CellCommand::Versions, *versions_payload, cell::kLinkNotNegotiated)) return;

  if (!emit_certs()) return;

  cell::AuthChallengeCell challenge;
  challenge.challenge = crypto::random_array<cell::kAuthChallengeLen>();
  challenge.methods = {cell::auth_method::kEd25519Sha256Rfc5705};
  auto challenge_payload = cell::encode_auth_challenge_cell(challenge);
  if (!challenge_payload) return fail(LinkFailure::Internal);
  if (!emit(CellCommand::AuthChallenge, *challenge_payload, link_)) return;
  // SLOG: what we sent "up to and including the AUTH_CHALLENGE cell".
  slog_ = sent_log_.peek();

  if (!emit_netinfo(now)) return;
  step_ = Step::AwaitInitiator;
}

void LinkHandshake::on_certs(bytes::ByteSpan payload, std::uint64_t now) {
  const Step want = initiator_ ? Step::AwaitCerts : Step::AwaitInitiator;
  if (step_ != want) return fail(LinkFailure::UnexpectedCell);
  auto certs = cell::decode_certs_cell(payload);
  if (!certs) return fail(LinkFailure::MalformedCell);
  if (initiator_) {
    auto chain = check_responder_certs(*certs, expected_peer_, tls_.responder_cert_digest, now);
    if (!chain) return fail(chain.error());
    peer_identity_ = chain->identity;
    peer_rsa_ = chain->rsa;
    step_ = Step::AwaitAuthChallenge;
    return;
  }
  auto chain = check_initiator_certs(*certs, now);
  if (!chain) return fail(chain.error());
  if (chain->identity == creds_->identity) return fail(LinkFailure::SelfConnection);
  initiator_chain_ = *chain;
  step_ = Step::AwaitAuthenticate;
}

void LinkHandshake::on_auth_challenge(bytes::ByteSpan payload, std::uint64_t now) {
  if (!initiator_ || step_ != Step::AwaitAuthChallenge) return fail(LinkFailure::UnexpectedCell);
  auto challenge = cell::decode_auth_challenge_cell(payload);
  if (!challenge) return fail(LinkFailure::MalformedCell);
  if (creds_) {
    const auto& m = challenge->methods;
    if (std::find(m.begin(), m.end(), cell::auth_method::kEd25519Sha256Rfc5705) == m.end()) {
      return fail(LinkFailure::NoAuthMethod);
    }
    if (!send_authentication()) return;
  }
  if (!emit_netinfo(now)) return;
  step_ = Step::AwaitNetinfo;
}

bool LinkHandshake::send_authentication() {
  // SLOG: everything received so far, this AUTH_CHALLENGE included.
  const Digest32 slog = recv_log_.peek();

  if (!emit_certs()) return false;

  Auth0003Fields f;
  WipeFields wipe{f};
  f.cid = creds_->rsa_identity_sha256;
  f.sid = peer_rsa_->sha256;
  f.cid_ed = creds_->identity;
  f.sid_ed = *peer_identity_;
  f.slog = slog;
  f.clog = sent_log_.peek();  // through our CERTS, not the AUTHENTICATE being built
  f.scert = tls_.responder_cert_digest;
  auto secrets = tls_secrets(f.cid);
  if (!secrets) return false;
  f.tlssecrets = *secrets;
  crypto::secure_wipe(secrets->data(), secrets->size());
  cell::AuthenticateCell auth;
  auth.auth_type = cell::auth_method::kEd25519Sha256Rfc5705;
  auth.authentication = make_auth0003(f, crypto::random_array<kAuth0003RandLen>(), creds_->link_auth_key);
  auto auth_payload = cell::encode_authenticate_cell(auth);
  if (!auth_payload) {
    fail(LinkFailure::Internal);
    return false;
  }
  return emit(CellCommand::Authenticate, *auth_payload, link_);
}

void LinkHandshake::on_authenticate(bytes::ByteSpan payload) {
  if (initiator_ || step_ != Step::AwaitAuthenticate) return fail(LinkFailure::UnexpectedCell);
  auto auth = cell::decode_authenticate_cell(payload);
  if (!auth) return fail(LinkFailure::BadAuthenticate);
  // We offered method 3 only.
  if (auth->auth_type != cell::auth_method::kEd25519Sha256Rfc5705) return fail(LinkFailure::BadAuthenticate);

  Auth0003Fields want;
  WipeFields wipe{want};
  want.cid = initiator_chain_->rsa.sha256;
  want.sid = creds_->rsa_identity_sha256;
  want.cid_ed = initiator_chain_->identity;
  want.sid_ed = creds_->identity;
  want.slog = slog_;
  want.clog = recv_log_.peek();  // this AUTHENTICATE was not added
  want.scert = tls_.responder_cert_digest;
  auto secrets = tls_secrets(want.cid);
  if (!secrets) return;
  want.tlssecrets = *secrets;
  crypto::secure_wipe(secrets->data(), secrets->size());
  if (auto bad = check_auth0003(auth->authentication, want, initiator_chain_->auth_key)) return fail(*bad);
  peer_identity_ = initiator_chain_->identity;
  peer_rsa_ = initiator_chain_->rsa;
  step_ = Step::AwaitNetinfo;
}

void LinkHandshake::on_netinfo(bytes::ByteSpan payload, std::uint64_t now) {
  auto netinfo = cell::decode_netinfo_cell(payload);
  if (!netinfo) return fail(LinkFailure::MalformedCell);
  if (initiator_) {
    // A client needs no AUTH_CHALLENGE: NETINFO straight after CERTS is fine.
    if (step_ == Step::AwaitAuthChallenge && !creds_) {
      if (!emit_netinfo(now)) return;
    } else if (step_ != Step::AwaitNetinfo) {
      return fail(LinkFailure::UnexpectedCell);
    }
    return finish(*netinfo, now);
  }
  switch (step_) {
    case Step::AwaitInitiator:  // an unauthenticated initiator (client or bridge)
    case Step::AwaitNetinfo: return finish(*netinfo, now);
    case Step::AwaitAuthenticate: return fail(LinkFailure::MissingAuthenticate);
    default: return fail(LinkFailure::UnexpectedCell);
  }
}

// tor's order (relay_handshake.c, connection_or_send_certs_cell), less the
// initiator's type 3 (tor ignores it once Ed25519 certificates are present).
bool LinkHandshake::emit_certs() {
  cell::CertsCell certs;
  if (!initiator_) certs.certs.push_back({cell::certs_type::kRsaLink, creds_->rsa_link_cert});
  certs.certs.push_back({cell::certs_type::kRsaIdentity, creds_->rsa_identity_cert});
  certs.certs.push_back({cell::certs_type::kEdIdSigning, creds_->id_signing_cert});
  if (initiator_) {
    certs.certs.push_back({cell::certs_type::kEdSigningAuth, creds_->signing_auth_cert});
  } else {
    certs.certs.push_back({cell::certs_type::kEdSigningLink, creds_->signing_tls_cert});
  }
  certs.certs.push_back({cell::certs_type::kRsaEdCrossCert, creds_->rsa_crosscert});
  auto payload = cell::encode_certs_cell(certs);
  if (!payload) {
    fail(LinkFailure::Internal);
    return false;
  }
  return emit(CellCommand::Certs, *payload, link_);
}

std::optional<Digest32> LinkHandshake::tls_secrets(const Digest32& cid) {
  std::optional<crypto::Secret<32>> v;
  if (tls_.exporter) v = tls_.exporter(cid);
  if (!v) {
    fail(LinkFailure::NoExporter);
    return std::nullopt;
  }
  Digest32 out{};
  std::copy(v->view().begin(), v->view().end(), out.begin());
  return out;
}

bool LinkHandshake::emit_netinfo(std::uint64_t now) {
  const bool client = initiator_ && !creds_;
  cell::NetinfoCell n;
  // Clients send no time and no addresses of their own (tor-spec 4.5), so
  // they cannot be told apart.
  n.timestamp = client ? 0 : static_cast<std::uint32_t>(now);
  n.other_address = addresses_.peer;
  if (!client) n.my_addresses = addresses_.ours;
  auto payload = cell::encode_netinfo_cell(n);
  if (!payload) {
    fail(LinkFailure::Internal);
    return false;
  }
  return emit(CellCommand::Netinfo, *payload, link_);
}

void LinkHandshake::finish(const cell::NetinfoCell& peer, std::uint64_t now) {
  LinkDone d;
  d.link_version = link_;
  d.peer_identity = peer_identity_;
  if (peer_identity_ && peer_rsa_) d.peer_rsa_identity = peer_rsa_->fingerprint;
  d.our_address_seen_by_peer = peer.other_address;
  d.peer_addresses = peer.my_addresses;
  d.peer_timestamp = peer.timestamp;
  if (peer.timestamp != 0) {
    d.clock_skew = static_cast<std::int64_t>(peer.timestamp) - static_cast<std::int64_t>(now);
  }
  done_ = std::move(d);
  step_ = Step::Finished;
}

}  // namespace conflux::proto
