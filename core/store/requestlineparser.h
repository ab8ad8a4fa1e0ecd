#pragma once

#include "store/runline.h"

#include <QByteArrayView>

namespace ks {

/// What parseRequestLine() made of a line.
enum class RequestLineResult {
    Record, ///< a request record, possibly with fields dropped (each an issue)
    Skip, ///< a request whose required field is missing or wrong (an issue)
    NotRequest, ///< valid JSON but not a flat request object: read it as a document
    Invalid, ///< not valid JSON (`syntaxError` says where)
};

/// Reads a `request` line straight into a RequestRecord through nlohmann's SAX
/// interface, without building a JSON document: about three times faster, and
/// request lines are nearly all of a run file. Follows the reading rule of
/// RunLine: a wrong-typed or out-of-range optional field is dropped with an
/// issue, a bad required field skips the line.
RequestLineResult parseRequestLine(QByteArrayView line, qint64 lineNumber, RequestRecord* record,
    std::vector<RunFileIssue>& issues, const QString* sameRun, QString* syntaxError);

} // namespace ks
