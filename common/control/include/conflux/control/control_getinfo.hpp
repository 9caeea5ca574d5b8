#pragma once
// GETINFO (control-spec 3.9) answered from keys the program registers:
// exact keys ("version") and prefixes ("ns/id/", the rest of the key is the
// provider's argument). Each value is one line ("250-key=value") or, when it
// holds a newline, a data block ("250+key=" ... "."); then "250 OK". One
// unknown key fails the whole command with 552 Unrecognized key "KEY", as
// tor's does; a key with no value now is 551 (tor: "internal error" for
// keys it cannot answer yet), or, for the keys registered with
// Missing::Unrecognized, 552 Unrecognized key as well: tor's helpers that
// leave the answer empty without an error (md/id/ of a relay it has no
// microdescriptor for) get that from handle_control_getinfo. A prefix may
// also name a check of its argument: a message from it is tor's helper
// failing with an error message (ns/id/ of a key that is not a hex
// fingerprint: 551 Data not decodeable as hex).
// "info/names" lists every key with its help.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "conflux/control/control_session.hpp"

namespace conflux::control {

class ControlInfo {
 public:
  // A value, or nullopt when there is none for this key (now, or for this
  // prefix's argument).
  using Provider = std::function<std::optional<std::string>(std::string_view arg)>;
  // What a provider's nullopt answers: 551 Unable to answer, or 552 Unrecognized key.
  enum class Missing { Unavailable, Unrecognized };
  // An argument's check: the 551 message for one the key cannot take, or nullopt.
  using Check = std::function<std::optional<std::string>(std::string_view arg)>;

  void add(std::string key, std::string help, Provider provider, Missing missing = Missing::Unavailable);
  // `prefix` ends with '/'; `help` names the argument ("ns/id/<OR identity>").
  void add_prefix(std::string prefix, std::string help, Provider provider, Missing missing = Missing::Unavailable,
                  Check check = {});

  [[nodiscard]] ControlAnswer getinfo(std::string_view args) const;
  // info/names's value: "key -- help" lines, sorted, prefixes as "prefix/*".
  [[nodiscard]] std::string names() const;

 private:
  struct Entry {
    std::string help;
    Provider provider;
    Missing missing = Missing::Unavailable;
    Check check{};
  };
  struct Found {
    std::optional<std::string> value;
    Missing missing = Missing::Unavailable;
    std::optional<std::string> error{};  // the check's message: 551 with it
  };
  [[nodiscard]] std::optional<Found> lookup(std::string_view key) const;

  std::map<std::string, Entry, std::less<>> exact_;
  std::map<std::string, Entry, std::less<>> prefixes_;
};

}  // namespace conflux::control
