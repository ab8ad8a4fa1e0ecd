#pragma once

#include "library/runcatalogue.h"

namespace ks {

/// Whether `row` passes `filter`, in memory: the same rows RunCatalogue::rows()
/// selects in SQL (tests/core/tst_runcatalogue.cpp holds the two together). The
/// Runs page reads the catalogue once and filters here, as the user types,
/// because building the rows, not SQLite's search, is what a query costs.
bool catalogueRowMatches(const CatalogueRow& row, const CatalogueFilter& filter);

/// The value of knob `name` in the compact JSON `knobs` as SQLite's
/// CAST(json_extract(...) AS TEXT) gives it (true is "1"); null when absent.
QString knobText(const QString& knobs, const QString& name);

} // namespace ks
