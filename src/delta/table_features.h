// Table features silt supports for reading and writing, and the checks that refuse the rest
// clearly (Delta protocol "Table Features"; DELTA_UNSUPPORTED_FEATURES_FOR_READ/_WRITE).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "delta/actions.h"
#include "vector/types.h"

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

// Whether a feature is a reader-writer feature (listed in readerFeatures too).
bool IsReaderWriterFeature(const std::string& feature);

// The protocol a table with `current` needs to support `features` as well (Delta's
// Protocol.withFeatures, used when a table property turns a feature on): `current` when it
// already supports them all; a legacy protocol stays legacy when each new feature has a legacy
// version (checkConstraints → writer 3, changeDataFeed/generatedColumns → 4, columnMapping →
// reader 2 + writer 5, identityColumns → 6), and otherwise becomes a table-features protocol
// (writer 7, reader 3 with reader-writer features) listing the features its versions implied
// plus the new ones. Never lowers a version.
Protocol WithFeatures(const Protocol& current, const std::vector<std::string>& features);

// Every feature the protocol supports: its reader/writer feature lists, or for a legacy protocol
// the features its versions imply (Delta's implicitlyAndExplicitlySupportedFeatures).
std::vector<std::string> ProtocolFeatures(const Protocol& protocol);

// Delta's Protocol.removeFeature: `protocol` (denormalized) without `feature`, then normalized to
// the weakest equivalent form — a legacy protocol when the remaining features are exactly what
// legacy versions imply (e.g. {appendOnly, invariants} is (1, 2), nothing is (1, 1)), else
// writer 7 listing them, reader 3 only while a reader-writer feature remains.
Protocol RemoveFeature(const Protocol& protocol, const std::string& feature);

// The features a table's metadata requires: timestampNtz columns, and the properties
// delta.enableDeletionVectors, delta.enableChangeDataFeed, delta.enableInCommitTimestamps,
// delta.enableRowTracking (+ domainMetadata), delta.checkpointPolicy = v2 (v2Checkpoint),
// delta.columnMapping.mode name/id and delta.constraints.* (checkConstraints).
std::vector<std::string> FeaturesForMetadata(const Schema& schema, const StringMap& configuration);

}  // namespace silt::delta
