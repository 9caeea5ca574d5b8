#include "conflux/dir/tor_key_cert_make.hpp"

#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/pem.hpp"
#include "conflux/dir/tor_doc.hpp"

namespace conflux::dir {

std::string make_key_cert(const crypto::RsaPrivateKey& identity, const crypto::RsaPrivateKey& signing,
                          std::uint64_t published, std::uint64_t expires,
                          const std::optional<std::string>& dir_address) {
  std::string t = "dir-key-certificate-version 3\n";
  if (dir_address) t += "dir-address " + *dir_address + "\n";
  t += "fingerprint " + bytes::to_hex(identity.public_key().fingerprint(), true) + "\n";
  t += "dir-key-published " + tordoc::format_time(published) + "\n";
  t += "dir-key-expires " + tordoc::format_time(expires) + "\n";
  t += "dir-identity-key\n" + crypto::rsa_public_pem(identity.public_key());
  t += "dir-signing-key\n" + crypto::rsa_public_pem(signing.public_key());
  t += "dir-key-crosscert\n" + crypto::pem_encode(signing.sign_digest(identity.public_key().fingerprint()),
                                                  "ID SIGNATURE");
  t += "dir-key-certification\n";
  const auto digest = crypto::sha1({reinterpret_cast<const std::uint8_t*>(t.data()), t.size()});
  t += crypto::pem_encode(identity.sign_digest(digest), "SIGNATURE");
  return t;
}

}  // namespace conflux::dir
