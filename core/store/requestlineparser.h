#pragma once

#include "metrics/requestrecord.h"

#include <QByteArray>

#include <optional>

namespace ks {

/// Reads a `request` line straight into a RequestRecord through nlohmann's SAX
/// interface, without building a JSON document first: about three times
/// faster, which is what opening a large run file spends its time on. Returns
/// nullopt for anything it does not expect (not a request, a missing required
/// field, a mistyped value); the caller then takes the DOM path, which
/// explains the problem. Same fields and defaults as requestFromJson().
/// `sameRun`, when given and equal to the line's run label, is shared instead
/// of a new string (one run label in memory per run, not per request).
std::optional<RequestRecord> parseRequestLine(const QByteArray& line, const QString* sameRun = nullptr);

} // namespace ks
