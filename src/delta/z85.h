// Z85 (ZeroMQ RFC 32 base85) as Delta uses it for deletion-vector descriptors, and the 128-bit
// UUIDs that name deletion-vector files.
//
// Delta (Spark's Codec.Base85Codec) encodes 4-byte groups read big-endian into 5 characters of
// the ZeroMQ alphabet, most significant digit first. Unaligned input is zero-padded to a
// multiple of 4 before encoding; the reader truncates to the known raw length (sizeInBytes).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace silt::delta {

// Encodes `bytes`; input whose length is not a multiple of 4 is zero-padded first (Delta's
// Base85Codec.encodeBytes), so the output always has 5 * ceil(n / 4) characters.
std::string Z85Encode(std::string_view bytes);

// Strict decode: `text.size()` must be a multiple of 5, every character in the alphabet and
// every 5-character group <= 0xFFFFFFFF. Returns 4 bytes per group. Errors are Corruption.
Result<std::string> Z85Decode(std::string_view text);

// Decodes an inline deletion vector: like Z85Decode, then truncated to `raw_size` bytes
// (dropping Delta's zero padding). Also accepts the padded tail written by the Rust `z85` crate
// (used by delta-kernel-rs test tables): a final group that starts with k '#' (k = 1..3, which
// no valid group can, since '#' = 84 and 84 * 85^4 > 2^32) holds 4 - k bytes big-endian in its
// remaining 5 - k digits. Corruption when fewer than `raw_size` bytes decode.
Result<std::string> Z85DecodeBytes(std::string_view text, size_t raw_size);

// A 128-bit UUID in RFC 4122 byte order (Java's mostSigBits then leastSigBits, big-endian).
struct Uuid {
  std::array<uint8_t, 16> bytes{};

  // Lower-case canonical 8-4-4-4-12 form.
  std::string ToString() const;
  // Parses the canonical form (either case). InvalidArgument otherwise.
  static Result<Uuid> Parse(std::string_view text);
  // A random version-4 UUID (std::random_device).
  static Uuid Random();
  bool operator==(const Uuid&) const = default;
};

// Always 20 characters.
std::string Z85EncodeUuid(const Uuid& uuid);
// `text` must be exactly 20 valid Z85 characters; Corruption otherwise.
Result<Uuid> Z85DecodeUuid(std::string_view text);

}  // namespace silt::delta
