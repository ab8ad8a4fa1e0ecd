#pragma once

#include "store/runfile.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace ks {

/// An A/A calibration: the baseline configuration run several times against
/// the same target (`knobscope run SPEC --aa N`, docs/metrics.md,
/// "Calibration"), so that a single run's comparison can use the spread of the
/// user's own runs instead of a figure from someone else's machine.
///
/// Per arm and statistic ("ttft_ms.p50"), the sample standard deviation of
/// log(statistic) over the calibration's runs: how far one run of that
/// configuration lands from another, within-run sampling noise included.
struct Calibration {
    QString file; ///< where it was read from, as given
    QString date; ///< the experiment's `started_at`
    QString config; ///< the configuration that was run
    int runs = 0;
    struct Arm {
        int runs = 0; ///< the runs of this arm that finished
        std::map<std::string, double> logSd; ///< "ttft_ms.p50" -> sd of log(value) over the runs
        std::map<std::string, double> logMean; ///< the mean of log(value) over the runs
        nlohmann::json identity; ///< what must match for it to apply (calibrationIdentity())
    };
    std::map<QString, Arm> arms;
    /// The sentence compare prints: "A/A calibration: 6 runs of mns32, 2026-12-04 (cal.jsonl)".
    QString citation() const;
};

/// Reads a calibration from a run file written by `run --aa N`; nullopt and
/// `error` when it is not one or has fewer than 3 finished runs of an arm.
std::optional<Calibration> readCalibration(const QString& path, QString* error);
std::optional<Calibration> calibrationFromRunFile(const RunFile& file, const QString& path, QString* error);

/// What a run must share with a calibration's runs for the calibration to
/// speak for it: the server command (placeholders filled) and version, the
/// model, the host, and the arm's shape (its spec without its name).
nlohmann::json calibrationIdentity(const RunFile& file, const RunData& run);

/// Empty when `identity` (of a run being compared) matches the calibration arm; else why not.
QString calibrationMismatch(const Calibration::Arm& arm, const nlohmann::json& identity);

/// Empty when the baseline's own run looks like one of the calibration's runs;
/// else why not (docs/metrics.md, "Calibration"). A calibration speaks for the
/// conditions it was made under: made on a quiet machine, its spread is too
/// narrow for a run made while the machine was busy, and such a pair's A/A
/// ratios were called different 18 % of the time (docs/PERFORMANCE.md). So
/// every figure of `baselineSummary` the calibration holds (TTFT, TPOT, ITL,
/// E2E at p50, p95, p99) must lie inside its prediction interval for one more
/// run, log mean +- t(runs - 1) * sd * sqrt(1 + 1/runs), at `confidence`
/// shared over the figures checked (Bonferroni). A calibration without means
/// (made in memory) is not checked.
QString calibrationStaleness(const Calibration::Arm& arm, const nlohmann::json& baselineSummary, double confidence);

} // namespace ks
