#pragma once

#include "metrics/requestrecord.h"
#include "store/runline.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <functional>
#include <vector>

namespace ks {

struct RunData {
    QString run;
    QString config;
    QString arm;
    nlohmann::json info; ///< the `run` line, cleaned by the reader (RunLine)
    nlohmann::json summary; ///< the stored `summary` line, cleaned; null if the run did not finish
    std::vector<RequestRecord> requests;
};

/// A whole run file in memory, for report, compare, drift, export and the
/// dashboard. Read line by line through readRunLine(): its issues (skipped
/// lines, dropped fields) are listed with their line numbers.
struct RunFile {
    nlohmann::json experiment;
    std::vector<RunData> runs;
    std::vector<RunFileIssue> issues;
    bool truncated = false; ///< the last line had no newline and did not parse (killed writer)
    qint64 lines = 0;
};

/// Reads `path` line by line (never the whole file at once). Returns false only
/// when the file cannot be opened; bad content becomes issues.
using ReadProgress = std::function<void(qint64 bytesRead, qint64 bytesTotal)>;
bool readRunFile(const QString& path, RunFile* out, QString* error, const ReadProgress& progress = {});

} // namespace ks
