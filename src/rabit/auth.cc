#include "rabit/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <cstring>

#include "common/error.h"

namespace ringboost::rabit::auth {

std::string NewNonce() {
  std::string nonce(kNonceBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(nonce.data()), static_cast<int>(kNonceBytes)) !=
      1) {
    RB_FAIL("OpenSSL's RAND_bytes could not make a nonce (no entropy source?)");
  }
  return nonce;
}

std::string Mac(const std::string& token, std::string_view label,
                std::initializer_list<std::string_view> parts) {
  std::string message(label);
  for (std::string_view part : parts) {
    message += IntBytes(static_cast<int32_t>(part.size()));
    message += part;
  }
  static const unsigned char kEmptyKey = 0;  // HMAC() wants a pointer even for an empty key
  const void* key = token.empty() ? static_cast<const void*>(&kEmptyKey) : token.data();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key, static_cast<int>(token.size()),
           reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest,
           &length) == nullptr ||
      length != kMacBytes) {
    RB_FAIL("OpenSSL's HMAC-SHA256 failed");
  }
  return std::string(reinterpret_cast<const char*>(digest), length);
}

bool SameMac(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool SameSecret(std::string_view a, std::string_view b) {
  unsigned char da[SHA256_DIGEST_LENGTH], db[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(a.data()), a.size(), da);
  SHA256(reinterpret_cast<const unsigned char*>(b.data()), b.size(), db);
  return CRYPTO_memcmp(da, db, sizeof(da)) == 0;
}

std::string IntBytes(int32_t value) {
  std::string bytes(sizeof(value), '\0');
  std::memcpy(bytes.data(), &value, sizeof(value));
  return bytes;
}

}  // namespace ringboost::rabit::auth
