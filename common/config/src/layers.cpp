#include "conflux/config/layers.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace conflux::config {
namespace {

std::string folded(std::string_view key) {
  std::string out(key);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

}  // namespace

Entries merge_layers(std::span<const Entries> layers) {
  // Surviving entries per key, and the global order of survivors as
  // (layer, index) pairs so the output can keep file order.
  struct Survivor {
    std::size_t layer;
    std::size_t index;
  };
  std::unordered_map<std::string, std::vector<Survivor>> by_key;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    std::unordered_map<std::string, bool> seen_in_layer;
    for (std::size_t i = 0; i < layers[l].size(); ++i) {
      const auto& e = layers[l][i];
      auto key = folded(e.key);
      auto& list = by_key[key];
      if (!seen_in_layer[key]) {
        seen_in_layer[key] = true;
        if (e.op != EntryOp::Append) list.clear();
      }
      if (e.op == EntryOp::Clear) {
        list.clear();
      } else {
        list.push_back({l, i});
      }
    }
  }
  std::vector<Survivor> order;
  for (const auto& [key, list] : by_key) order.insert(order.end(), list.begin(), list.end());
  std::sort(order.begin(), order.end(), [](const Survivor& a, const Survivor& b) {
    return a.layer != b.layer ? a.layer < b.layer : a.index < b.index;
  });
  Entries out;
  out.reserve(order.size());
  for (const auto& s : order) {
    out.push_back(layers[s.layer][s.index]);
    out.back().op = EntryOp::Set;
  }
  return out;
}

Entries merge_layers(const Entries& defaults, const Entries& torrc, const Entries& command_line) {
  const Entries layers[] = {defaults, torrc, command_line};
  return merge_layers(layers);
}

}  // namespace conflux::config
