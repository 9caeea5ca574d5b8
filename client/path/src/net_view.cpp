#include "conflux/path/net_view.hpp"

namespace conflux::path {

NetView::NetView(dir::ConsensusBody body) : body_(std::move(body)) {
  for (std::size_t i = 0; i < body_.routers.size(); ++i) index_.try_emplace(body_.routers[i].identity, i);
}

const dir::RouterEntry* NetView::find(const crypto::Ed25519Public& id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &body_.routers[it->second];
}

}  // namespace conflux::path
