#include "vector/dictionary.h"

#include <cstring>
#include <string>

namespace silt {

Status DictionaryVector::Validate() const {
  if (!dictionary) return Status::InvalidArgument("dictionary vector without a dictionary");
  if (!dictionary->type()->is_binary_like())
    return Status::InvalidArgument("dictionary vector of type " + dictionary->type()->ToString());
  if (dictionary->may_have_nulls() && dictionary->CountNulls() > 0)
    return Status::InvalidArgument("dictionary with null entries");
  if (!validity.empty() && validity.size() != indices.size())
    return Status::InvalidArgument("dictionary vector validity of " +
                                   std::to_string(validity.size()) + " rows for " +
                                   std::to_string(indices.size()) + " indices");
  const int64_t n = static_cast<int64_t>(dictionary->size());
  for (size_t i = 0; i < indices.size(); ++i)
    if (IsValid(i) && (indices[i] < 0 || indices[i] >= n))
      return Status::InvalidArgument("dictionary index " + std::to_string(indices[i]) + " of row " +
                                     std::to_string(i) + " outside a dictionary of " +
                                     std::to_string(n));
  return Status::OK();
}

namespace {

// Appends rows row(0..n) of d to out; row(k) gives the row of d.
template <typename RowOf>
void AppendRows(const DictionaryVector& d, size_t n, RowOf row, Vector* out) {
  const Vector& dict = *d.dictionary;
  const uint32_t* doff = dict.offsets();
  const char* dbytes = dict.bytes().data();
  const size_t dsize = dict.bytes().size();
  const size_t old = out->size();
  size_t total = 0;
  for (size_t k = 0; k < n; ++k) {
    const size_t r = row(k);
    if (!d.IsValid(r)) continue;
    const uint32_t idx = static_cast<uint32_t>(d.indices[r]);
    total += doff[idx + 1] - doff[idx];
  }
  std::string& bytes = out->bytes();
  size_t b = bytes.size();
  // 16 bytes of slack: a short string is copied with one fixed-size move.
  bytes.resize(b + total + 16);
  auto& off = out->offsets_buffer();
  off.resize(old + n + 1);
  char* dst = bytes.data();
  for (size_t k = 0; k < n; ++k) {
    const size_t r = row(k);
    if (d.IsValid(r)) {
      const uint32_t idx = static_cast<uint32_t>(d.indices[r]);
      const uint32_t o0 = doff[idx], len = doff[idx + 1] - o0;
      if (len <= 16 && o0 + 16 <= dsize) {
        std::memcpy(dst + b, dbytes + o0, 16);
      } else {
        std::memcpy(dst + b, dbytes + o0, len);
      }
      b += len;
    }
    off[old + k + 1] = static_cast<uint32_t>(b);
  }
  bytes.resize(b);
  out->SetSizeUnchecked(old + n);
  if (d.may_have_nulls()) {
    uint8_t* v = out->mutable_validity();
    for (size_t k = 0; k < n; ++k) v[old + k] = d.validity[row(k)] != 0;
  }
}

}  // namespace

void AppendFlattened(const DictionaryVector& d, Vector* out) {
  AppendRows(
      d, d.size(), [](size_t k) { return k; }, out);
}

Vector Flatten(const DictionaryVector& d) {
  Vector out(d.type());
  AppendFlattened(d, &out);
  return out;
}

void AppendFlattenedSelected(const DictionaryVector& d, const uint32_t* sel, size_t n,
                             Vector* out) {
  AppendRows(
      d, n, [sel](size_t k) { return static_cast<size_t>(sel[k]); }, out);
}

DataChunk Flatten(EncodedChunk&& chunk) {
  DataChunk out;
  out.num_rows_without_columns = chunk.num_rows;
  out.columns.reserve(chunk.flat.size());
  for (size_t i = 0; i < chunk.flat.size(); ++i) {
    if (chunk.dict[i]) {
      out.columns.push_back(Flatten(*chunk.dict[i]));
    } else {
      out.columns.push_back(std::move(chunk.flat[i]));
    }
  }
  chunk.flat.clear();
  chunk.dict.clear();
  return out;
}

}  // namespace silt
