#pragma once

#include "library/runcatalogue.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace ks {

/// The figures a trend can follow: each names a CatalogueArm field.
QStringList trendMetrics();

/// One run of the followed configuration, oldest first.
struct TrendPoint {
    qint64 id = 0; ///< the catalogue row (`knobscope compare @ID`)
    QString path;
    QString startedAt;
    QString serverVersions;
    bool missing = false;
    CatalogueFigure figure; ///< the metric, with the run's own interval when compare gave one
    QString intervalMethod;
};

/// Where the figure moved to a new level: `index` is the first point of it.
struct TrendChange {
    int index = 0;
    double ratio = 1; ///< this point against the mean of the level before it
    double z = 0; ///< the shift in combined standard errors (log scale)
};

/// A configuration's figure across catalogued runs (docs/library.md, "Trends").
struct RunTrend {
    QString spec;
    QString config;
    QString arm;
    QString metric;
    std::vector<TrendPoint> points;
    std::vector<TrendChange> changes;
    double threshold = 0; ///< the z a shift had to pass (Bonferroni over the points' looks)
    double minChange = 0; ///< the smallest relative move marked (TrendOptions::minChange)
    QStringList notes; ///< runs left out and why
};

struct TrendOptions {
    /// A change smaller than this (relative) is never marked, whatever its z:
    /// within-run intervals do not hold the few per cent runs drift by.
    double minChange = 0.05;
    double alpha = 0.05; ///< the whole series' false-alarm rate
};

/// The catalogue's runs of SPEC / CONFIG / ARM (exact names) with `metric`,
/// oldest first, and where it moved. Runs of another workload (arm shape) than
/// the newest are left out with a note; so are runs without the figure.
RunTrend trendOf(const std::vector<CatalogueRow>& rows, const QString& spec, const QString& config, const QString& arm,
    const QString& metric, const TrendOptions& options = {});

/// The change points of `points` (figure and interval each): a point starts a
/// new level when it lies outside the level before it by more than the two can
/// explain. Per point, on the log scale, its standard error is its 95 %
/// interval's half-width / 1.96; the level's prediction for a new run adds the
/// standard error of the level's mean and the scatter between the level's runs
/// beyond their own intervals. A point whose |z| passes the Bonferroni bound
/// over the series' looks and whose ratio passes `minChange` starts a new level
/// (twice `minChange` while no level has two runs, so no scatter is known yet).
std::vector<TrendChange> trendChanges(
    const std::vector<TrendPoint>& points, const TrendOptions& options, double* threshold);

/// The figure of `metric` in `arm`; an empty figure for an unknown metric.
CatalogueFigure trendFigureOf(const CatalogueArm& arm, const QString& metric);

} // namespace ks
