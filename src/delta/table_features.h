// Table features silt supports for reading and writing, and the checks that refuse the rest
// clearly (Delta protocol "Table Features"; DELTA_UNSUPPORTED_FEATURES_FOR_READ/_WRITE).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "delta/actions.h"

namespace silt::delta {

const std::vector<std::string>& SupportedReaderFeatures();
const std::vector<std::string>& SupportedWriterFeatures();

// May silt read a table with this protocol?
Status CheckReadSupported(const Protocol& protocol, const std::string& table);
// May silt commit to a table with this protocol and metadata? `removes_data` is true when the
// commit removes rows (DELETE/UPDATE/MERGE/overwrite), which appendOnly tables refuse.
Status CheckWriteSupported(const Protocol& protocol, const Metadata& metadata, bool removes_data,
                           const std::string& table);

// Whether the protocol has a (reader or writer) feature, including the legacy versions that
// imply it (e.g. writer version 2 implies appendOnly and invariants).
bool HasFeature(const Protocol& protocol, const std::string& feature);

}  // namespace silt::delta
