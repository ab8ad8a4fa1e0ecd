#pragma once

// The HTML report's parts (htmlreport.h), each a fragment of escaped HTML made
// from what the core computed; the charts come in already inlined.

#include "compare/comparisontypes.h"

#include <QString>

namespace ks {

struct DriftReport;
struct RunFile;

/// The report's <style>: one column, tables that scroll sideways on their own,
/// charts that shrink with the page.
QString htmlReportStyle();
/// A load arm: its comparison table with ratios and 95 % intervals, the SLO,
/// the diagnoses, TTFT split, repeats, note and warning, then `charts`.
QString htmlArmSection(const ComparedArm& arm, const QString& id, const QString& charts);
/// A sweep arm: capacity per configuration, every step's verdict, why a
/// configuration stopped early, then `charts` (the knee).
QString htmlSweepSection(const ComparedArm& arm, const QString& id, const QString& charts);
/// Probe drift per configuration and the problems analyzeDrift() found, then `chart`.
QString htmlDriftSection(const DriftReport& drift, const QString& chart);
/// The runs' own warnings (gentle arms, client-bound, errors) and the lines the reader skipped.
QString htmlWarningsSection(const RunFile& file);
/// Where it ran (environment) and what ran (the spec, as stored: keys are never in it).
QString htmlSetupSection(const RunFile& file);

} // namespace ks
