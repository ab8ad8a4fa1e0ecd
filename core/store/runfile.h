#pragma once

#include "store/requestrecord.h"
#include "store/requesttable.h"
#include "store/runline.h"
#include "store/summaryline.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <vector>

namespace ks {

struct RunData {
    QString run;
    QString config;
    QString arm;
    nlohmann::json info; ///< the `run` line, cleaned by the reader (RunLine)
    /// The stored `summary` line, cleaned and typed (store/summaryline.h);
    /// empty when the run did not finish.
    std::optional<RunSummary> summary;
    RequestTable requests; ///< compact; labelled with `run`
};

/// A whole run file in memory, for report, compare, drift, export and the
/// dashboard. Read line by line through readRunLine(): its issues (skipped
/// lines, dropped fields) are listed with their line numbers.
struct RunFile {
    nlohmann::json experiment; ///< the `experiment` line, cleaned; null when the file has no readable one
    std::vector<RunData> runs;
    nlohmann::json search; ///< the `search` line, cleaned; null when the file has none (docs/formats.md, "Search")
    /// The `round` lines, cleaned, in file order: the decisions of repeats that
    /// run until decided (docs/formats.md, "Rounds"); compare/rounddecision.h reads them.
    std::vector<nlohmann::json> rounds;
    std::vector<RunFileIssue> issues;
    bool truncated = false; ///< the last line had no newline and did not parse (killed writer)
    qint64 lines = 0;

    /// The experiment line's `spec`: always an object, empty when the file has
    /// none (no experiment line, or one that was skipped as unreadable).
    const nlohmann::json& spec() const;
    /// The experiment line's `environment` (where it was measured): always an
    /// object, empty when the file does not say.
    const nlohmann::json& environment() const;
    /// The spec's `name`, or `fallback` when the file does not name its experiment.
    QString experimentName(const QString& fallback) const;
};

/// Reads `path` in blocks (never the whole file at once), in parallel on every
/// core for a large file: split at line boundaries, each part read on its own
/// thread, merged in file order (the same result as one pass, line numbers
/// included). Returns false only when the file cannot be opened; bad content
/// becomes issues. `progress` is called on the calling thread.
using ReadProgress = std::function<void(qint64 bytesRead, qint64 bytesTotal)>;
bool readRunFile(const QString& path, RunFile* out, QString* error, const ReadProgress& progress = {});

} // namespace ks
