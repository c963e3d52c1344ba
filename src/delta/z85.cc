#include "delta/z85.h"

#include <random>

#include "common/error_classes.h"

namespace silt::delta {

namespace {

constexpr char kAlphabet[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
constexpr char kTailPadChar = '#';  // digit 84: cannot lead a valid group

// Character -> digit, or -1.
struct DecodeTable {
  int8_t digit[256];
  constexpr DecodeTable() : digit() {
    for (int c = 0; c < 256; ++c) digit[c] = -1;
    for (int i = 0; i < 85; ++i)
      digit[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  }
};
constexpr DecodeTable kDecode;

Status BadZ85(std::string msg) {
  return Status::Corruption("invalid Z85: " + msg, errc::kInvalidZ85);
}

// Decodes `n` digits at `p` into a value (up to 5 digits fit in 64 bits). Returns false on a
// character outside the alphabet, reporting its index in `*bad`.
bool DecodeDigits(const char* p, int n, uint64_t* value, int* bad) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) {
    int d = kDecode.digit[static_cast<unsigned char>(p[i])];
    if (d < 0) {
      *bad = i;
      return false;
    }
    v = v * 85 + static_cast<uint64_t>(d);
  }
  *value = v;
  return true;
}

Status DecodeGroups(std::string_view text, size_t groups, std::string* out) {
  out->reserve(out->size() + groups * 4);
  for (size_t g = 0; g < groups; ++g) {
    uint64_t v;
    int bad;
    if (!DecodeDigits(text.data() + g * 5, 5, &v, &bad))
      return BadZ85("character outside the alphabet at " + std::to_string(g * 5 + bad));
    if (v > 0xFFFFFFFFu) return BadZ85("group at " + std::to_string(g * 5) + " exceeds 32 bits");
    for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(v >> shift));
  }
  return Status::OK();
}

}  // namespace

std::string Z85Encode(std::string_view bytes) {
  size_t groups = (bytes.size() + 3) / 4;
  std::string out(groups * 5, '\0');
  for (size_t g = 0; g < groups; ++g) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) {
      size_t at = g * 4 + i;
      v = (v << 8) | (at < bytes.size() ? static_cast<uint8_t>(bytes[at]) : 0u);
    }
    for (int i = 4; i >= 0; --i) {
      out[g * 5 + static_cast<size_t>(i)] = kAlphabet[v % 85];
      v /= 85;
    }
  }
  return out;
}

Result<std::string> Z85Decode(std::string_view text) {
  if (text.size() % 5 != 0)
    return BadZ85("length " + std::to_string(text.size()) + " is not a multiple of 5");
  std::string out;
  SILT_RETURN_NOT_OK(DecodeGroups(text, text.size() / 5, &out));
  return out;
}

Result<std::string> Z85DecodeBytes(std::string_view text, size_t raw_size) {
  if (text.size() % 5 != 0)
    return BadZ85("length " + std::to_string(text.size()) + " is not a multiple of 5");
  size_t groups = text.size() / 5;
  std::string out;
  // The Rust z85 crate's tail: k leading '#' then 5 - k digits holding 4 - k bytes.
  size_t pad = 0;
  if (groups > 0) {
    const char* last = text.data() + (groups - 1) * 5;
    while (pad < 4 && last[pad] == kTailPadChar) ++pad;
    if (pad == 4) return BadZ85("final group is all padding");
  }
  SILT_RETURN_NOT_OK(DecodeGroups(text, pad ? groups - 1 : groups, &out));
  if (pad) {
    const char* last = text.data() + (groups - 1) * 5;
    int tail_bytes = 4 - static_cast<int>(pad);
    uint64_t v;
    int bad;
    if (!DecodeDigits(last + pad, 5 - static_cast<int>(pad), &v, &bad))
      return BadZ85("character outside the alphabet at " +
                    std::to_string((groups - 1) * 5 + pad + static_cast<size_t>(bad)));
    if (v >> (8 * tail_bytes)) return BadZ85("padded final group exceeds its byte count");
    for (int shift = 8 * (tail_bytes - 1); shift >= 0; shift -= 8)
      out.push_back(static_cast<char>(v >> shift));
  }
  if (out.size() < raw_size)
    return BadZ85("decodes to " + std::to_string(out.size()) + " bytes, expected " +
                  std::to_string(raw_size));
  out.resize(raw_size);
  return out;
}

std::string Uuid::ToString() const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(36);
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    s.push_back(kHex[bytes[i] >> 4]);
    s.push_back(kHex[bytes[i] & 15]);
  }
  return s;
}

Result<Uuid> Uuid::Parse(std::string_view text) {
  auto bad = [&] { return Status::InvalidArgument("invalid UUID '" + std::string(text) + "'"); };
  if (text.size() != 36) return bad();
  Uuid u;
  size_t b = 0;
  for (size_t i = 0; i < 36;) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return bad();
      ++i;
      continue;
    }
    int hi = 0, lo = 0;
    for (int* nib : {&hi, &lo}) {
      char c = text[i++];
      if (c >= '0' && c <= '9')
        *nib = c - '0';
      else if (c >= 'a' && c <= 'f')
        *nib = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        *nib = c - 'A' + 10;
      else
        return bad();
    }
    u.bytes[b++] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return u;
}

Uuid Uuid::Random() {
  std::random_device rd;
  Uuid u;
  for (size_t i = 0; i < 16; i += 4) {
    uint32_t r = rd();
    for (size_t j = 0; j < 4; ++j) u.bytes[i + j] = static_cast<uint8_t>(r >> (8 * j));
  }
  u.bytes[6] = static_cast<uint8_t>((u.bytes[6] & 0x0F) | 0x40);  // version 4
  u.bytes[8] = static_cast<uint8_t>((u.bytes[8] & 0x3F) | 0x80);  // IETF variant
  return u;
}

std::string Z85EncodeUuid(const Uuid& uuid) {
  return Z85Encode(std::string_view(reinterpret_cast<const char*>(uuid.bytes.data()), 16));
}

Result<Uuid> Z85DecodeUuid(std::string_view text) {
  if (text.size() != 20)
    return BadZ85("a UUID needs 20 characters, got " + std::to_string(text.size()));
  SILT_ASSIGN_OR_RETURN(std::string raw, Z85Decode(text));
  Uuid u;
  for (size_t i = 0; i < 16; ++i) u.bytes[i] = static_cast<uint8_t>(raw[i]);
  return u;
}

}  // namespace silt::delta
