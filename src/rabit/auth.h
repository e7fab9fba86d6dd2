// Proof of the job token without revealing it: HMAC-SHA256 (OpenSSL's libcrypto) over fresh
// random nonces from both ends and a label naming the role of the one who proves, compared in
// constant time. The exchanges that use it are laid out in rabit/protocol.h.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace ringboost::rabit::auth {

constexpr std::size_t kNonceBytes = 32;
constexpr std::size_t kMacBytes = 32;  // SHA-256

// kNonceBytes from OpenSSL's RAND_bytes (throws ringboost::Error when it has no entropy).
std::string NewNonce();

// HMAC-SHA256 keyed with `token` over `label`, then each part preceded by its length (so that
// no two different lists of parts hash the same bytes). An empty token is a valid key: links of
// a job without a token still run the exchange, which then proves nothing.
std::string Mac(const std::string& token, std::string_view label,
                std::initializer_list<std::string_view> parts);

// Constant-time comparison of two MACs (false when the lengths differ).
bool SameMac(const std::string& a, const std::string& b);

// Constant-time equality of two secrets of any lengths: compares their SHA-256 digests, so the
// time depends on neither the position of the first difference nor the length of the secret.
bool SameSecret(std::string_view a, std::string_view b);

// A 4-byte int as it goes on the wire (host order, as every int of the protocol).
std::string IntBytes(int32_t value);

}  // namespace ringboost::rabit::auth
