#pragma once

#include "metrics/requestrecord.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace ks {

inline constexpr int kSchemaVersion = 1;

/// The `request` line of the JSONL schema (docs/formats.md).
nlohmann::json toJson(const RequestRecord& record);
/// Reads a `request` line; nullopt when a required field is missing or mistyped.
std::optional<RequestRecord> requestFromJson(const nlohmann::json& line, QString* error);

} // namespace ks
