#pragma once

#include "drift/divergence.h"
#include "store/runfile.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace ks {

/// One probe output as recorded (a `request` record with `probe` set).
struct ProbeOutput {
    QString probe;
    qint64 order = 0; ///< the request's id: probe outputs sort into probe-set order by it
    bool ok = false;
    QString error;
    QByteArray contentSha256, reasoningSha256;
    QByteArray content, reasoning; ///< the texts, for showing a divergence
};

/// Every output of one pass over the probe set: one configuration, one server
/// process (restart 0 before any restart), one repeat.
struct ProbePass {
    int source = 0; ///< which file (0 = the first given)
    QString config;
    QString model;
    int restart = 0;
    int repeat = 0;
    std::vector<ProbeOutput> outputs;
};

enum class ProbeState { Same, Changed, Error, Missing };

struct DriftDiff {
    QString probe;
    int column = 0; ///< index into DriftReport::columns
    QString channel; ///< "reasoning" or "content": the first channel that differs
    Divergence divergence; ///< byte == -1 when no text was recorded
    QByteArray reference, other; ///< the differing channel's texts
};

/// Drift of one configuration's probe outputs (docs/formats.md, `drift --json`).
struct ConfigDrift {
    int source = 0;
    QString config;
    QString model;
    int probes = 0;
    int repeats = 0;
    int restarts = 0;
    int errors = 0;
    QStringList withinRun; ///< a repeat differs from this configuration's first pass
    QStringList acrossRestart; ///< the pass after a restart differs from the first pass
    QStringList acrossConfig; ///< the first pass differs from the reference (same model, first configuration)
    QStringList mismatches; ///< any output differs from the reference
    bool isReference = false;
};

struct DriftReport {
    nlohmann::json set; ///< the probe set identity of the runs
    std::vector<ConfigDrift> configs;
    struct Column {
        int source = 0;
        QString config;
        int restart = 0;
        int repeat = 0;
        QString label() const;
    };
    std::vector<Column> columns; ///< one per pass, in file order
    QStringList probes; ///< rows, in set order
    std::vector<std::vector<ProbeState>> cells; ///< [probe][column], against the reference
    std::vector<std::vector<QByteArray>> hashes; ///< [probe][column]: content SHA-256, ":" reasoning SHA-256 if any
    std::vector<DriftDiff> diffs; ///< every changed cell
    QStringList problems;

    nlohmann::json toJson() const;
};

/// A probe record's output; `withText` keeps the texts (the analysis shows them; a live count does not need them).
ProbeOutput probeOutputOf(const RequestRecord& record, bool withText);
/// The probe passes stored in a run file, plus its set identity (null if none).
std::vector<ProbePass> probePassesOf(const RunFile& file, int source, nlohmann::json* setIdentity);
/// Compares every pass with the reference of its model: the first pass of the
/// first configuration (of the first file) serving that model.
DriftReport analyzeDrift(const std::vector<ProbePass>& passes, nlohmann::json set);
/// `problems` gets a message and the result is false when two files used
/// different probe sets (a changed file must never be compared silently).
bool sameProbeSet(const nlohmann::json& a, const nlohmann::json& b, QString* problem);

} // namespace ks
