#pragma once

#include "store/requestrecord.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace ks {

inline constexpr int kSchemaVersion = 1;

/// The `request` line of the JSONL schema (docs/formats.md).
nlohmann::json toJson(const RequestRecord& record);
/// Reading is readRunLine()'s (store/runline.h): one tolerant reader for every path.

} // namespace ks
