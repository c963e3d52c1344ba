// DeletionVectorDescriptor: the `deletionVector` field of add/remove actions (Delta protocol
// "Deletion Vector Descriptor"). Shared by the log actions and the DV file format; implemented
// in deletion_vector.cc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace silt::delta {

// add/remove.deletionVector. storage_type: 'u' (UUID-named file relative to the table root),
// 'i' (inline Z85 bitmap) or 'p' (absolute path/URI).
struct DeletionVectorDescriptor {
  char storage_type = 'u';
  std::string path_or_inline_dv;
  std::optional<int32_t> offset;  // absent for 'i'; read as 1 when absent for 'u'/'p'
  int32_t size_in_bytes = 0;      // bitmap bytes incl. magic (before Z85 for 'i')
  int64_t cardinality = 0;

  // Checks the fields (kernel-rs try_new rules): storage type u/i/p, sizes and offset >= 0, no
  // offset on 'i', 'u' ends in 20 decodable Z85 chars, 'p' non-empty. InvalidArgument
  // (kInvalidDvClass).
  Status Validate() const;
  // storageType + pathOrInlineDv [+ "@" + offset]: the DV part of a logical file's identity.
  std::string UniqueId() const;
  bool IsInline() const { return storage_type == 'i'; }
  int32_t OffsetOrDefault() const { return offset.value_or(1); }
  // 'u': <root>/<prefix>/deletion_vector_<uuid>.bin (no prefix: <root>/deletion_vector_...);
  // 'p': the path as given (URI decoding is the caller's, as for add.path). 'i' and invalid
  // descriptors: InvalidArgument. A trailing '/' on table_root is ignored.
  Result<std::string> AbsolutePath(std::string_view table_root) const;

  bool operator==(const DeletionVectorDescriptor&) const = default;
};

}  // namespace silt::delta
