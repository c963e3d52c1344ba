#include "exec/runtime_bloom.h"

#include <algorithm>
#include <bit>
#include <span>

#include "common/hash.h"
#include "exec/join_keys.h"

namespace silt::exec {

namespace {
constexpr size_t kBatch = 2048;
}  // namespace

bool KeyBloomFilter::Supports(const DataType& build, const DataType& probe) {
  if (IsIntegralKeyType(build.id()) && IsIntegralKeyType(probe.id())) {
    // Values compare equal exactly when their int64 widenings do, within one kind.
    auto kind = [](TypeId id) {
      switch (id) {
        case TypeId::kDate:
        case TypeId::kYearMonthInterval:
        case TypeId::kTimestamp:
        case TypeId::kTimestampNtz:
        case TypeId::kTime:
        case TypeId::kTimestampNanos:
        case TypeId::kTimestampNtzNanos:
        case TypeId::kDayTimeInterval:
        case TypeId::kBoolean:
          return static_cast<int>(id);
        default:
          return -1;  // the integers
      }
    };
    return kind(build.id()) == kind(probe.id());
  }
  return build.id() == TypeId::kString && probe.id() == TypeId::kString;
}

size_t KeyBloomFilter::SizeFor(size_t expected) {
  // About 16 bits per key, a power of two of words (at least one cache line).
  return std::bit_ceil(std::max<size_t>(8, (expected + 3) / 4)) * sizeof(uint64_t);
}

Result<std::shared_ptr<KeyBloomFilter>> KeyBloomFilter::Build(const Vector& keys, size_t expected,
                                                              MemoryTracker* memory) {
  auto f = std::make_shared<KeyBloomFilter>();
  const size_t words = SizeFor(expected) / sizeof(uint64_t);
  if (memory != nullptr) {
    f->reservation_ = std::make_unique<MemoryReservation>(memory, "runtime bloom filter");
    SILT_RETURN_NOT_OK(f->reservation_->Resize(static_cast<int64_t>(words * sizeof(uint64_t))));
  }
  f->words_.assign(words, 0);
  f->mask_ = words - 1;
  const bool integral = IsIntegralKeyType(keys.id());
  std::vector<int64_t> ints(kBatch);
  std::vector<uint64_t> hashes(kBatch);
  const Vector* cols[1] = {&keys};
  for (size_t b = 0; b < keys.size(); b += kBatch) {
    const size_t e = std::min(keys.size(), b + kBatch);
    if (integral) {
      WidenToInt64(keys, b, e, ints.data());
      for (size_t r = 0; r < e - b; ++r) hashes[r] = HashMix(static_cast<uint64_t>(ints[r]));
    } else {
      HashKeyColumns(std::span<const Vector* const>(cols, 1), b, e, hashes.data());
    }
    for (size_t r = b; r < e; ++r) {
      if (keys.IsValid(r)) f->Insert(hashes[r - b]);
    }
  }
  return f;
}

void KeyBloomFilter::Probe(const Vector& column, size_t rows, uint8_t* keep) const {
  const bool integral = IsIntegralKeyType(column.id());
  std::vector<int64_t> ints(integral ? std::min(rows, kBatch) : 0);
  std::vector<uint64_t> hashes(std::min(rows, kBatch));
  const Vector* cols[1] = {&column};
  const uint8_t* valid = column.validity();
  for (size_t b = 0; b < rows; b += kBatch) {
    const size_t e = std::min(rows, b + kBatch);
    if (integral) {
      WidenToInt64(column, b, e, ints.data());
      for (size_t r = 0; r < e - b; ++r) hashes[r] = HashMix(static_cast<uint64_t>(ints[r]));
    } else {
      HashKeyColumns(std::span<const Vector* const>(cols, 1), b, e, hashes.data());
    }
    for (size_t r = b; r < e; ++r) keep[r] = MayContain(hashes[r - b]) ? 1 : 0;
    if (valid) {
      for (size_t r = b; r < e; ++r) keep[r] &= valid[r];
    }
  }
}

ExprPtr MakeBloomFilterExpr(std::shared_ptr<const KeyBloomFilter> filter, ExprPtr column) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCall;
  e->type = DataType::Boolean();
  e->nullable = false;
  e->name = "might_contain";
  e->children = {std::move(column)};
  e->kernel = [filter = std::move(filter)](std::span<const Arg> args, size_t rows,
                                           const EvalContext&, Vector* out) -> Status {
    if (args.size() != 1) return Status::Internal("might_contain: one argument expected");
    out->ResizeUninitialized(rows);
    uint8_t* dst = out->data<uint8_t>();
    if (args[0].constant) {
      uint8_t one = 0;
      filter->Probe(*args[0].vector, 1, &one);
      std::fill(dst, dst + rows, one);
    } else {
      filter->Probe(*args[0].vector, rows, dst);
    }
    return Status::OK();
  };
  return e;
}

}  // namespace silt::exec
