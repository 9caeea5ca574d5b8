#include "conflux/path/client_guards.hpp"

namespace conflux::path {

std::string_view guard_client_name(std::string_view socks_username) noexcept {
  return socks_username.substr(0, socks_username.find('/'));
}

ClientGuards::ClientGuards(GuardParams params, std::size_t max_clients)
    : params_(std::move(params)), max_clients_(max_clients) {}

bool ClientGuards::admit(std::string_view client) {
  if (client.empty()) return false;
  if (clients_.find(client) != clients_.end()) return true;
  if (clients_.size() >= max_clients_) return false;
  clients_.emplace(std::string(client), GuardSet(params_));
  return true;
}

GuardSet* ClientGuards::find(std::string_view client) {
  auto it = clients_.find(client);
  return it == clients_.end() ? nullptr : &it->second;
}

const GuardSet* ClientGuards::find(std::string_view client) const {
  auto it = clients_.find(client);
  return it == clients_.end() ? nullptr : &it->second;
}

void ClientGuards::update(const NetView& net, std::uint64_t now) {
  for (auto& [name, guards] : clients_) guards.update(net, now);
}

void ClientGuards::mark_failed(const crypto::Ed25519Public& id, std::uint64_t now) {
  for (auto& [name, guards] : clients_) (void)guards.mark_failed(id, now);
}

}  // namespace conflux::path
