#include "conflux/dir/bandwidth_file.hpp"

#include <algorithm>
#include <optional>

#include "conflux/bytes/hex.hpp"

namespace conflux::dir {
namespace {

// What one line after the timestamp is, as tor's measured_bw_line_parse
// tells them apart.
enum class LineKind : std::uint8_t {
  Relay,      // node_id and bw, both valid, each once
  VoteZero,   // a "vote=0" KeyValue: the relay is listed but not to be voted on
  NotRelay,   // no bw or no node_id, nothing malformed: a header line, or junk after the headers
  Malformed,  // a repeated or invalid node_id or bw, an empty or unterminated line
};

struct RelayLine {
  LineKind kind = LineKind::NotRelay;
  crypto::RsaFingerprint node_id{};
  std::uint32_t bw = 0;
};

// Digits only, at most 2^32-1.
std::optional<std::uint32_t> parse_bw(std::string_view v) {
  if (v.empty() || v.size() > 10) return std::nullopt;
  std::uint64_t out = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return std::nullopt;
    out = out * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (out > UINT32_MAX) return std::nullopt;
  return static_cast<std::uint32_t>(out);
}

// "$HEX40" or "HEX40" (tor takes either), either case.
std::optional<crypto::RsaFingerprint> parse_node_id(std::string_view v) {
  if (v.starts_with('$')) v.remove_prefix(1);
  if (v.size() != 40) return std::nullopt;
  auto bytes = bytes::from_hex(v);
  if (!bytes) return std::nullopt;
  crypto::RsaFingerprint out{};
  std::copy(bytes->begin(), bytes->end(), out.begin());
  return out;
}

// One KeyValue of a relay line into `r`; false when it makes the line malformed.
bool take_token(std::string_view token, RelayLine& r, bool& got_bw, bool& got_node) {
  if (token.starts_with("bw=")) {
    auto bw = parse_bw(token.substr(3));
    if (got_bw || !bw) return false;
    r.bw = *bw;
    got_bw = true;
  } else if (token.starts_with("node_id=")) {
    auto id = parse_node_id(token.substr(8));
    if (got_node || !id) return false;
    r.node_id = *id;
    got_node = true;
  }
  return true;
}

// `line` without its newline; `terminated` whether it had one.
RelayLine classify(std::string_view line, bool terminated) {
  RelayLine r;
  if (!terminated || line.find_first_not_of(" \t") == std::string_view::npos) {
    r.kind = LineKind::Malformed;
    return r;
  }
  bool got_bw = false, got_node = false;
  std::size_t at = 0;
  while (at < line.size()) {
    const std::size_t start = line.find_first_not_of(" \t", at);
    if (start == std::string_view::npos) break;
    std::size_t end = line.find_first_of(" \t", start);
    if (end == std::string_view::npos) end = line.size();
    const std::string_view token = line.substr(start, end - start);
    at = end;
    // tor stops at vote=0 whatever came before or follows.
    if (token.starts_with("vote=0")) {
      r.kind = LineKind::VoteZero;
      return r;
    }
    if (!take_token(token, r, got_bw, got_node)) {
      r.kind = LineKind::Malformed;
      return r;
    }
  }
  r.kind = got_bw && got_node ? LineKind::Relay : LineKind::NotRelay;
  return r;
}

bool is_terminator(std::string_view line) { return line == "=====" || line == "===="; }

// The first line: a unix time in decimal, alone on a whole line.
std::optional<std::uint64_t> parse_timestamp(std::string_view first_line) {
  if (first_line.empty() || first_line.size() > 19) return std::nullopt;
  std::uint64_t t = 0;
  for (char c : first_line) {
    if (c < '0' || c > '9') return std::nullopt;
    t = t * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return t;
}

// Takes one relay line into `out`, or counts it as skipped.
void take_relay(const RelayLine& r, MeasuredBandwidths& out) {
  if (out.kb.size() >= kMaxMeasuredRelays && !out.kb.contains(r.node_id)) {
    ++out.skipped_lines;
    return;
  }
  if (!out.kb.emplace(r.node_id, r.bw).second) ++out.skipped_lines;
}

}  // namespace

DirResult<MeasuredBandwidths> parse_bandwidth_file(std::string_view text, std::uint64_t now) {
  if (text.size() > kMaxBandwidthFileSize) return Unexpected{DirError{DirErrc::TooLarge, "bandwidth file"}};
  const std::size_t first_end = text.find('\n');
  if (first_end == std::string_view::npos) return Unexpected{DirError{DirErrc::BadValue, "timestamp"}};
  const auto timestamp = parse_timestamp(text.substr(0, first_end));
  if (!timestamp) return Unexpected{DirError{DirErrc::BadValue, "timestamp"}};
  // A timestamp ahead of `now` is taken, as tor takes it.
  if (now > *timestamp && now - *timestamp > kMaxMeasurementAge)
    return Unexpected{DirError{DirErrc::Expired, "timestamp"}};

  MeasuredBandwidths out;
  out.timestamp = *timestamp;
  bool after_headers = false;
  std::size_t at = first_end + 1;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    const bool terminated = end != std::string_view::npos;
    if (!terminated) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.size() > kMaxBandwidthFileLine) {
      ++out.skipped_lines;
      continue;
    }
    const RelayLine r = classify(line, terminated);
    if (r.kind == LineKind::Relay) {
      after_headers = true;
      take_relay(r, out);
    } else if (terminated && is_terminator(line)) {
      after_headers = true;
    } else if (r.kind == LineKind::Malformed || (r.kind == LineKind::NotRelay && after_headers)) {
      ++out.skipped_lines;
    }
  }
  return out;
}

}  // namespace conflux::dir
