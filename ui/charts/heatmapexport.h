#pragma once

#include <QSize>
#include <QString>

#include <nlohmann/json.hpp>

namespace ks {

/// The heatmap of a run file's search over several knobs, written to `out` (PNG, SVG or PDF by its
/// suffix) straight from the file's `search` line: no page is built. `knobs`: "KNOB1,KNOB2", or empty
/// for the search's first two. `metric`: empty, or the search's objective (the only figure its lines keep).
bool exportSearchHeatmap(const QString& runFile, const QString& knobs, const QString& metric, const QString& out,
    const QSize& size, QString* error);

/// The same from a search line already read, for the HTML report.
bool exportSearchHeatmap(const nlohmann::json& search, const QString& title, const QString& knobs, const QString& out,
    const QSize& size, QString* error);

} // namespace ks
