#pragma once

#include "metrics/requestrecord.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <functional>
#include <vector>

namespace ks {

struct RunFileIssue {
    qint64 line = 0;
    QString message;
};

struct RunData {
    QString run;
    QString config;
    QString arm;
    nlohmann::json info; ///< the `run` line
    nlohmann::json summary; ///< the stored `summary` line, null if the run did not finish
    std::vector<RequestRecord> requests;
};

/// A whole run file in memory, for report and compare. Corrupt lines are
/// listed with their numbers and skipped; unknown types are skipped silently.
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
