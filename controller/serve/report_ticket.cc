#include "controller/serve/report_ticket.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace iofleet::controller {
namespace {

std::string Signature(const std::string& token, const std::string& path, const std::string& expires) {
  const std::string message = "iofleet-report\n" + path + "\n" + expires;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!HMAC(EVP_sha256(), token.data(), static_cast<int>(token.size()), reinterpret_cast<const unsigned char*>(message.data()),
            message.size(), mac, &length)) {
    return "";
  }
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[mac[i] >> 4];
    hex += kHex[mac[i] & 15];
  }
  return hex;
}

}  // namespace

std::string SignedReportUrl(const std::string& token, const std::string& path, uint64_t expires_unix_s) {
  const std::string expires = std::to_string(expires_unix_s);
  return path + "?expires=" + expires + "&sig=" + Signature(token, path, expires);
}

bool ReportTicketValid(const std::string& token, const std::string& path, const std::string& expires, const std::string& sig,
                       uint64_t now_unix_s) {
  if (token.empty() || expires.empty() || expires.size() > 19 || expires.find_first_not_of("0123456789") != std::string::npos) return false;
  if (std::stoull(expires) < now_unix_s) return false;
  const std::string expected = Signature(token, path, expires);
  return !expected.empty() && sig.size() == expected.size() && CRYPTO_memcmp(sig.data(), expected.data(), sig.size()) == 0;
}

}  // namespace iofleet::controller
