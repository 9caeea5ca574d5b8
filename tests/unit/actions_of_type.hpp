#pragma once
// The actions of one kind among a sans-I/O machine's actions (any
// std::variant of action types), in order: what most machine tests check.
#include <variant>
#include <vector>

namespace conflux::test {

template <class T, class Action>
std::vector<T> of_type(const std::vector<Action>& actions) {
  std::vector<T> out;
  for (const auto& a : actions)
    if (const auto* t = std::get_if<T>(&a)) out.push_back(*t);
  return out;
}

}  // namespace conflux::test
