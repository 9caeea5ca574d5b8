#include "conflux/dirnet/dir_routes.hpp"

#include <algorithm>
#include <cctype>

#include "conflux/dir/paths.hpp"
#include "conflux/dir/tor_dir_url.hpp"
#include "conflux/dir/tor_server_descriptor.hpp"
#include "conflux/dirnet/tor_descriptor_store.hpp"

namespace conflux::dirnet {
namespace {

// The path without a query string (which no route takes, and which must
// not make a known path unknown), and without the ".z" with which tor's
// clients ask for zlib: every answer is uncompressed (identity), which
// tor's clients accept whatever they asked for (they always accept it).
std::string_view path_of(std::string_view target) {
  const auto path = target.substr(0, target.find('?'));
  return path.starts_with("/tor/") ? dir::strip_z_suffix(path) : path;
}

constexpr std::string_view kTorServerAuthority = "/tor/server/authority";

// Whether a "/tor/server/fp/A+B+..." list names `fp` (hex, any case).
bool names_fingerprint(std::string_view list, std::string_view fp) {
  while (!list.empty()) {
    const auto at = list.find('+');
    const auto one = list.substr(0, at);
    if (one.size() == fp.size() &&
        std::equal(one.begin(), one.end(), fp.begin(), [](char a, char b) {
          return std::toupper(static_cast<unsigned char>(a)) == std::toupper(static_cast<unsigned char>(b));
        }))
      return true;
    if (at == std::string_view::npos) break;
    list.remove_prefix(at + 1);
  }
  return false;
}

}  // namespace

DirReply text_reply(unsigned status, std::string_view reason) {
  DirReply r;
  r.status = status;
  r.body = std::string(reason);
  r.body += '\n';
  return r;
}

DirReply document_reply(std::string body) {
  DirReply r;
  r.body = std::move(body);
  return r;
}

DirRoutes::Route DirRoutes::route_for(std::string_view path) const {
  if (auto t = tor_route_for(path); t != Route::None) return t;
  if (uploads_ != nullptr && path == dir::kTorUpload) return Route::TorUpload;
  if (uploads_ != nullptr && path == dir::kTorServerAll) return Route::TorServerAll;
  if (!tor_self_.empty() && (path == kTorServerAuthority || (path.starts_with(dir::kTorServerFpPrefix) &&
                                                             names_fingerprint(path.substr(dir::kTorServerFpPrefix.size()), tor_self_fp_))))
    return Route::TorSelf;
  if (uploads_ != nullptr && path.starts_with(dir::kTorServerDPrefix)) return Route::TorServerD;
  if (uploads_ != nullptr && path.starts_with(dir::kTorServerFpPrefix)) return Route::TorServerFp;
  return Route::None;
}

RouteCheck DirRoutes::check(HttpMethod method, std::string_view target) const {
  RouteCheck c;
  const Route r = route_for(path_of(target));
  if (r == Route::None) {
    c.early = text_reply(404, "not found");
    return c;
  }
  const bool post = r == Route::TorSignature || r == Route::TorUpload;
  if (method != (post ? HttpMethod::Post : HttpMethod::Get)) {
    c.early = text_reply(405, "method not allowed");
    return c;
  }
  c.body_limit = r == Route::TorSignature ? dir::kMaxTorSignatureBody
                 : r == Route::TorUpload    ? kMaxTorUploadBody
                                            : 0;
  return c;
}

DirReply DirRoutes::count(DirReply r) {
  if (r.status == 200) ++counters_.ok;
  else if (r.status == 404) ++counters_.not_found;
  else ++counters_.rejected;
  return r;
}

DirReply DirRoutes::handle(HttpMethod method, std::string_view target, std::string_view body, std::uint64_t now) {
  RouteCheck c = check(method, target);
  if (c.early) return count(std::move(*c.early));
  if (body.size() > c.body_limit) return count(text_reply(413, "body too large"));
  DirReply ok;
  switch (route_for(path_of(target))) {
    case Route::TorSelf:
      ok.body = tor_self_;
      return count(std::move(ok));
    case Route::None:
      break;
    default:
      return count(handle_tor(route_for(path_of(target)), path_of(target), body, now));
  }
  return count(text_reply(404, "not found"));
}

}  // namespace conflux::dirnet
