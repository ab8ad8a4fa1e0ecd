#pragma once

#include "compare/calibration.h"
#include "compare/comparisonreader.h"
#include "compare/comparisontypes.h"
#include "compare/comparisonwriter.h"
#include "metrics/runsummary.h"
#include "store/runfile.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>

namespace ks {

struct CompareOptions {
    QString baseline; ///< config label; empty: the first configuration of each arm
    int resamples = 1000; ///< bootstrap resamples; 0: ratios without intervals (fast)
    quint64 seed = 1;
    std::optional<Slo> slo; ///< for goodput; unset: the experiment's own SLO from the file
    /// An arm whose configurations ran different workloads (run line `prompts`:
    /// source, parameters, file hash) is refused with an error, unless this is
    /// set: then it is compared, and the arm and each differing configuration say so.
    bool allowDifferentWorkloads = false;
    /// The confidence of every interval; unset: the file's own (roundsConfidence() of
    /// its spec: 0.95, lower per look for repeats that run until decided).
    std::optional<double> confidence;
    /// An A/A calibration for arms that ran once on a side (docs/metrics.md,
    /// "Calibration"); used where its identity matches, said where it does not.
    std::shared_ptr<const Calibration> calibration;
};

/// Per arm, every configuration side by side with ratios against the baseline
/// and their intervals (docs/formats.md, `compare --json`; docs/metrics.md,
/// "Intervals"). A ratio is significant when its interval excludes 1.0 and the
/// run-to-run spread was measured. An arm is gentle when every configuration's
/// run was. Goodput counts requests meeting `options.slo`, or the SLO of the
/// file's experiment; each arm says which (`slo`). One entry per arm, in file
/// order; empty with `error` set when the file cannot be compared.
Comparison compareRuns(const RunFile& file, const CompareOptions& options, QString* error);
/// `compare --json`: comparisonToJson(compareRuns(...)); null with `error` set.
nlohmann::json compareRunsJson(const RunFile& file, const CompareOptions& options, QString* error);
/// The comparison as it is still assembled, in JSON, before compareRuns reads
/// it into its types once. Visible so that tst_comparisontypes can hold the
/// types to every byte of it; everything else reads compareRuns().
nlohmann::json comparisonAssembly(const RunFile& file, const CompareOptions& options, QString* error);

/// Two files as one, to compare experiments run on different days: every
/// configuration label (and run label) gets " @NAME" of its file, and arms
/// keep their names, so compareRuns() puts matching arms side by side.
/// Short names for two files in labels: their base names, or "1" and "2" when those are equal.
std::pair<QString, QString> fileLabels(const QString& firstPath, const QString& secondPath);
RunFile mergeRunFiles(const RunFile& first, const QString& firstName, const RunFile& second, const QString& secondName);

} // namespace ks
