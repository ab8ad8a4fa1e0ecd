#pragma once

// What the Compare page's metric chooser draws beyond the latency percentiles:
// the reasoning and tool-call figures of compare/reasoningfigures.h, offered
// only when the comparison has them, and each metric's per-request values for the CDF.

#include "compare/comparisontypes.h"

#include <QStringList>
#include <QVector>

#include <vector>

namespace ks {

struct RunData;

/// A chooser entry for the reasoning and tool-call figures; its key is also its chart name for `export --chart`.
struct ReasoningMetric {
    const char* key; ///< reasoning, tool-calls, itl-no-tools
    const char* title;
};
extern const ReasoningMetric kReasoningMetrics[3];

bool isReasoningMetric(const QString& key);
/// True when some configuration of some arm has what `key` draws.
bool comparisonHasMetric(const Comparison& compare, const QString& key);

/// One arm's bars for a reasoning metric: a group per category, a value per configuration (0 where it has none).
struct MetricBars {
    QString what; ///< for the chart title
    QStringList categories;
    QString yLabel;
    QVector<QVector<double>> values; ///< per configuration, one per category
};
MetricBars reasoningBars(const ComparedArm& arm, const QString& key);

/// A run's per-request values of `key` (ttft_ms, tpot_ms, itl_ms, e2e_ms, itl-no-tools: the gaps before
/// each request's first tool-call delta), in ms, over its ok requests; empty for other keys.
std::vector<double> metricValuesOf(const RunData& run, const QString& key);

} // namespace ks
