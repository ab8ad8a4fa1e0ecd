#pragma once

#include <QByteArrayView>

#include <nlohmann/json.hpp>

namespace ks {

/// No record, spec or request body knobscope reads nests deeper than a few
/// levels, and nlohmann's dump() and destructor recurse once per level: a line
/// of a million "[" would overflow the stack of whoever dumps or frees it.
inline constexpr int kMaxNesting = 64;

/// Parses without exceptions (invalid JSON is "discarded") and without building
/// anything nested kMaxNesting levels or deeper; `tooDeep` says whether
/// something was left out for that reason.
nlohmann::json parseJsonBounded(QByteArrayView bytes, bool* tooDeep);

/// The same, with too deep counted as not JSON ("discarded").
nlohmann::json parseJsonGuarded(QByteArrayView bytes);

} // namespace ks
