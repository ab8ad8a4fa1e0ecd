#pragma once

#include "store/requestrecord.h"
#include "util/boundedjson.h"

#include <QByteArrayView>
#include <QString>

#include <nlohmann/json.hpp>

#include <vector>

namespace ks {

/// A problem found in a run file: the line and what was wrong with it.
struct RunFileIssue {
    qint64 line = 0;
    QString message; ///< "run.config: expected a string, got a number; left empty"
};

/// One line of a run file, decoded by the one tolerant reader that every
/// command and page uses (docs/formats.md, "Reading a run file"). The rule:
/// - a line that is not a JSON object with a string `type` is skipped;
/// - a known record whose required field is missing or of the wrong type is
///   skipped (request: run, id, t_send_us, ok; run, summary, server,
///   server_event, tick: run; tick: t_us);
/// - any other known field of the wrong type, or out of range, is dropped
///   (left empty) and the record kept;
/// - unknown types and fields are ignored silently.
/// Every skip and every drop is an issue naming the line and the field.
/// Objects handed on (`object`) hold only fields of the documented types, so
/// readers may use nlohmann's typed accessors on them without a throw.
struct RunLine {
    enum class Kind {
        Blank,
        Skipped,
        Unknown,
        Experiment,
        Run,
        Request,
        Server,
        ServerEvent,
        Gpu,
        Summary,
        Tick,
        Search,
        SearchProbe,
        Round
    };
    Kind kind = Kind::Blank;
    QString run; ///< the record's run label (all kinds but Experiment, Search, SearchProbe and Round)
    RequestRecord request; ///< Kind::Request
    nlohmann::json object; ///< every other known kind: the cleaned line
};

/// Decodes one line (without its newline). Never throws. `sameRun`, when equal
/// to a request's run label, is shared instead of copied (one label in memory
/// per run, not per request).
RunLine readRunLine(
    QByteArrayView line, qint64 lineNumber, std::vector<RunFileIssue>& issues, const QString* sameRun = nullptr);

/// Labels (run, config, arm, model, probe) longer than this are cut, with an
/// issue: a label is drawn on charts and in tables, and a megabyte of it would
/// stall them. Error reasons and details are cut at kMaxDetailChars.
inline constexpr qsizetype kMaxLabelChars = 256;
inline constexpr qsizetype kMaxDetailChars = 4096;

/// The JSON type name used in issues ("a string", "a number", "null", ...).
QString jsonTypeName(const nlohmann::json& value);

} // namespace ks
