#pragma once
// One authority of the in-memory directory networks of test_dirnet and
// test_dirnet_stock_authorities: its tor keys, routes, DirPort server, state
// and the service that ties them together.
#include <memory>
#include <optional>

#include "conflux/dirnet/authority_service.hpp"
#include "conflux/dirnet/authority_state.hpp"
#include "conflux/dirnet/dir_routes.hpp"
#include "conflux/dirnet/dir_server.hpp"
#include "conflux/dirnet/tor_authority_keys.hpp"
#include "conflux/dirnet/tor_authority_state.hpp"

namespace conflux::test {

struct DirnetAuthority {
  std::optional<dirnet::TorAuthorityKeys> tor_keys;
  dirnet::DirRoutes routes;
  std::shared_ptr<dirnet::DirServer> server;
  std::unique_ptr<dirnet::AuthorityState> state;
  std::unique_ptr<dirnet::TorAuthorityState> tor;
  std::shared_ptr<dirnet::AuthorityService> service;
};

}  // namespace conflux::test
