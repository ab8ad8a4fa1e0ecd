#include "client/httpresponseparser.h"

#include <QList>

#include <algorithm>
#include <cstring>

namespace ks {

namespace {

constexpr qint64 kMaxChunkSize = qint64(1) << 40;

// Where the head ends ("\r\n\r\n" or a bare "\n\n"), searching from `from`; -1 if not yet.
qsizetype headEnd(const QByteArray& bytes, qsizetype from)
{
    for (qsizetype i = std::max<qsizetype>(from, 1); i < bytes.size(); ++i) {
        if (bytes[i] != '\n')
            continue;
        if (bytes[i - 1] == '\n')
            return i + 1;
        if (i >= 3 && bytes[i - 1] == '\r' && bytes[i - 2] == '\n')
            return i + 1;
    }
    return -1;
}

QByteArray stripCr(QByteArray line)
{
    if (line.endsWith('\r'))
        line.chop(1);
    return line;
}

bool hasToken(const QByteArray& commaList, const char* token)
{
    for (const QByteArray& part : commaList.split(','))
        if (part.trimmed().compare(token, Qt::CaseInsensitive) == 0)
            return true;
    return false;
}

} // namespace

HttpResponseParser::HttpResponseParser(bool headRequest)
    : m_headRequest(headRequest)
{
}

HttpResponseParser::Status HttpResponseParser::fail(const QString& why)
{
    m_state = State::Error;
    m_error = why;
    m_keepAlive = false;
    return Status::Error;
}

HttpResponseParser::Status HttpResponseParser::status() const
{
    switch (m_state) {
    case State::Done:
        return Status::Done;
    case State::Error:
        return Status::Error;
    default:
        return Status::NeedMore;
    }
}

QByteArray HttpResponseParser::header(const QByteArray& name) const
{
    for (const QByteArray& line : m_headers.split('\n')) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().compare(name, Qt::CaseInsensitive) == 0)
            return line.mid(colon + 1).trimmed();
    }
    return {};
}

bool HttpResponseParser::parseHead()
{
    QList<QByteArray> lines = m_line.split('\n');
    const QByteArray statusLine = stripCr(lines.takeFirst());
    // "HTTP/1.1 200 OK": the version, a three-digit code, an optional reason.
    if (!statusLine.startsWith("HTTP/1.") || statusLine.size() < 12 || statusLine[8] != ' ') {
        fail(QStringLiteral("not an HTTP/1.x status line: '%1'").arg(QString::fromLatin1(statusLine.left(80))));
        return false;
    }
    bool ok = false;
    const int code = statusLine.mid(9, 3).toInt(&ok);
    if (!ok || code < 100 || code > 999 || (statusLine.size() > 12 && statusLine[12] != ' ')) {
        fail(QStringLiteral("bad status code in '%1'").arg(QString::fromLatin1(statusLine.left(80))));
        return false;
    }
    const bool http10 = statusLine[7] == '0';
    QByteArray headers;
    for (const QByteArray& raw : std::as_const(lines)) {
        const QByteArray line = stripCr(raw);
        if (line.isEmpty())
            continue;
        if (line.indexOf(':') <= 0) {
            fail(QStringLiteral("malformed header line: '%1'").arg(QString::fromLatin1(line.left(80))));
            return false;
        }
        headers += line;
        headers += '\n';
    }
    m_status = code;
    m_headers = std::move(headers);
    m_line.clear();
    // HTTP/1.1 keeps the connection unless told to close; HTTP/1.0 closes unless told to keep it.
    const QByteArray connection = header("Connection");
    m_keepAlive = http10 ? hasToken(connection, "keep-alive") : !hasToken(connection, "close");
    return true;
}

HttpResponseParser::Status HttpResponseParser::feed(
    const char* data, qsizetype size, const std::function<void()>& onHead, const BodySink& onBody)
{
    qsizetype pos = 0;
    while (pos < size || m_state == State::Done) {
        switch (m_state) {
        case State::Head: {
            const qsizetype searchFrom = std::max<qsizetype>(0, m_line.size() - 3);
            m_line.append(data + pos, size - pos);
            const qsizetype end = headEnd(m_line, searchFrom);
            if (end < 0) {
                if (m_line.size() > kMaxHeadBytes)
                    return fail(QStringLiteral("response head larger than %1 bytes").arg(kMaxHeadBytes));
                return Status::NeedMore;
            }
            if (end > kMaxHeadBytes)
                return fail(QStringLiteral("response head larger than %1 bytes").arg(kMaxHeadBytes));
            // Bytes past the head belong to the body: hand them back to the loop.
            const qsizetype consumedHere = (size - pos) - (m_line.size() - end);
            pos += consumedHere;
            m_line.truncate(end);
            if (!parseHead())
                return Status::Error;
            if (m_status >= 100 && m_status < 200) {
                if (m_status == 101)
                    return fail(QStringLiteral("the server switched protocols (HTTP 101)"));
                continue; // an interim response (100 Continue): the real head follows
            }
            const QByteArray encoding = header("Transfer-Encoding");
            const QByteArray length = header("Content-Length");
            if (onHead)
                onHead();
            if (m_headRequest || m_status == 204 || m_status == 304) {
                m_state = State::Done;
            } else if (!encoding.isEmpty()) {
                if (!hasToken(encoding, "chunked"))
                    return fail(QStringLiteral("unsupported Transfer-Encoding: %1").arg(QString::fromLatin1(encoding)));
                m_state = State::ChunkSize;
            } else if (!length.isEmpty()) {
                bool ok = false;
                m_remaining = length.toLongLong(&ok);
                if (!ok || m_remaining < 0)
                    return fail(QStringLiteral("bad Content-Length: %1").arg(QString::fromLatin1(length.left(40))));
                m_state = m_remaining == 0 ? State::Done : State::LengthBody;
            } else {
                m_state = State::UntilClose;
                m_keepAlive = false;
            }
            break;
        }
        case State::LengthBody:
        case State::ChunkData: {
            const qsizetype take = qsizetype(std::min<qint64>(m_remaining, size - pos));
            if (onBody)
                onBody(data + pos, take);
            m_bodyBytes += take;
            m_remaining -= take;
            pos += take;
            if (m_remaining == 0)
                m_state = m_state == State::LengthBody ? State::Done : State::ChunkDataEnd;
            break;
        }
        case State::UntilClose:
            if (onBody)
                onBody(data + pos, size - pos);
            m_bodyBytes += size - pos;
            pos = size;
            break;
        case State::ChunkSize:
        case State::ChunkDataEnd:
        case State::Trailers: {
            const char* nl = static_cast<const char*>(std::memchr(data + pos, '\n', std::size_t(size - pos)));
            const qsizetype take = nl ? qsizetype(nl - (data + pos)) + 1 : size - pos;
            m_line.append(data + pos, take);
            pos += take;
            // The limit is on the line without its newline, whether or not the newline has come:
            // checked only on a partial line, a long line passed when it arrived in one read and
            // failed when cut, so the outcome depended on how the reads fell.
            if (m_line.size() - (nl ? 1 : 0) > kMaxChunkLineBytes)
                return fail(QStringLiteral("chunk-size or trailer line longer than %1 bytes").arg(kMaxChunkLineBytes));
            if (!nl)
                return Status::NeedMore;
            const QByteArray line = stripCr(m_line.chopped(1));
            m_line.clear();
            if (m_state == State::ChunkDataEnd) {
                if (!line.isEmpty())
                    return fail(QStringLiteral("chunk data not followed by CRLF"));
                m_state = State::ChunkSize;
            } else if (m_state == State::Trailers) {
                if (line.isEmpty())
                    m_state = State::Done;
            } else {
                const qsizetype semicolon = line.indexOf(';'); // chunk extensions are ignored
                const QByteArray hex = (semicolon < 0 ? line : line.left(semicolon)).trimmed();
                bool ok = false;
                const qint64 chunk = hex.toLongLong(&ok, 16);
                if (!ok || hex.isEmpty() || chunk < 0 || chunk > kMaxChunkSize)
                    return fail(QStringLiteral("bad chunk size: '%1'").arg(QString::fromLatin1(line.left(40))));
                m_remaining = chunk;
                m_state = chunk == 0 ? State::Trailers : State::ChunkData;
            }
            break;
        }
        case State::Done:
            if (pos < size)
                return fail(QStringLiteral("%1 bytes after the end of the response").arg(size - pos));
            return Status::Done;
        case State::Error:
            return Status::Error;
        }
    }
    return status();
}

HttpResponseParser::Status HttpResponseParser::closed()
{
    switch (m_state) {
    case State::UntilClose:
        m_state = State::Done;
        return Status::Done;
    case State::Done:
        return Status::Done;
    case State::Error:
        return Status::Error;
    case State::Head:
        return fail(m_line.isEmpty() ? QStringLiteral("the server closed the connection without a response")
                                     : QStringLiteral("the server closed the connection inside the response head"));
    default:
        return fail(
            QStringLiteral("the server closed the connection mid-body (%1 body bytes received)").arg(m_bodyBytes));
    }
}

} // namespace ks
