#include "controller/serve/bearer_token.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <strings.h>

namespace iofleet::controller {
namespace {

void Digest(const std::string& text, unsigned char (&out)[SHA256_DIGEST_LENGTH]) {
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), out);
}

}  // namespace

bool BearerTokenMatches(const std::string& authorization, const std::string& token) {
  if (token.empty()) return false;
  constexpr char kScheme[] = "Bearer ";
  constexpr size_t kSchemeLength = sizeof(kScheme) - 1;
  if (authorization.size() <= kSchemeLength || strncasecmp(authorization.c_str(), kScheme, kSchemeLength) != 0) {
    return false;
  }
  size_t start = authorization.find_first_not_of(' ', kSchemeLength);
  if (start == std::string::npos) return false;
  // Digests of equal length: neither the position of a difference nor the token's length shows
  // in the time taken.
  unsigned char presented[SHA256_DIGEST_LENGTH];
  unsigned char expected[SHA256_DIGEST_LENGTH];
  Digest(authorization.substr(start), presented);
  Digest(token, expected);
  return CRYPTO_memcmp(presented, expected, sizeof(presented)) == 0;
}

}  // namespace iofleet::controller
