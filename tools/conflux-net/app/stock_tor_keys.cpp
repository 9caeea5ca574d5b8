#include "stock_tor_keys.hpp"

#include <chrono>
#include <cstdint>
#include <system_error>
#include <vector>

#include "conflux/netspec/tor_key_files.hpp"
#include "processes.hpp"

namespace conflux::netapp {

namespace fs = std::filesystem;

Result<StockTorIdentity, std::string> make_stock_tor_keys(const std::string& tor, const std::string& nickname,
                                                          const fs::path& data_dir, const fs::path& output) {
  std::error_code ec;
  fs::create_directories(data_dir, ec);
  if (!ec) fs::permissions(data_dir, fs::perms::owner_all, fs::perm_options::replace, ec);
  if (ec) return Unexpected{"cannot create " + data_dir.string() + ": " + ec.message()};
  const std::vector<std::string> args = {"--ignore-missing-torrc", "-f", "/dev/null", "--quiet",
                                         "--list-fingerprint", "--orport", "1", "--nickname", nickname,
                                         // No default authorities are named, nor contacted.
                                         "--dirauthority", "placeholder 127.0.0.1:1 " + std::string(40, 'F'),
                                         "--datadirectory", data_dir.string()};
  auto status = run_and_wait(tor, args, output, std::chrono::seconds(60));
  if (!status) return Unexpected{"cannot make the keys of " + nickname + ": " + status.error()};
  if (*status != 0)
    return Unexpected{"cannot make the keys of " + nickname + ": " + tor + " --list-fingerprint " +
                      describe_wait_status(*status) + " (" + output.string() + ")"};
  const auto fp = netspec::parse_tor_fingerprint_file(read_file(data_dir / "fingerprint", 4096));
  const auto ed_text = read_file(data_dir / "keys" / "ed25519_master_id_public_key", 4096);
  const auto ed = netspec::parse_tor_ed25519_public_key_file(
      {reinterpret_cast<const std::uint8_t*>(ed_text.data()), ed_text.size()});
  if (!fp || !ed) return Unexpected{"cannot read the identities tor made in " + data_dir.string()};
  return StockTorIdentity{*fp, *ed};
}

}  // namespace conflux::netapp
