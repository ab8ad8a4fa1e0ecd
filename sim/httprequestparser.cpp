#include "httprequestparser.h"

namespace kssim {

QByteArray HttpRequest::header(const QByteArray& lowerCaseName) const
{
    for (const auto& [name, value] : headers) {
        if (name == lowerCaseName)
            return value;
    }
    return {};
}

QByteArray HttpRequest::path() const
{
    const qsizetype query = target.indexOf('?');
    return query < 0 ? target : target.left(query);
}

HttpRequestParser::HttpRequestParser()
    : HttpRequestParser(Limits {})
{
}

HttpRequestParser::HttpRequestParser(Limits limits)
    : m_limits(limits)
{
}

HttpRequestParser::Result HttpRequestParser::fail(int status, const char* message)
{
    m_errorStatus = status;
    m_errorMessage = message;
    m_buffer.clear();
    return Result::Error;
}

namespace {
bool isToken(const QByteArray& s)
{
    if (s.isEmpty())
        return false;
    for (char c : s) {
        const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'
            || c == '_' || c == '.' || c == '!' || c == '#' || c == '$' || c == '%' || c == '&' || c == '\'' || c == '*'
            || c == '+' || c == '^' || c == '`' || c == '|' || c == '~';
        if (!ok)
            return false;
    }
    return true;
}
} // namespace

HttpRequestParser::Result HttpRequestParser::parseHead(qsizetype headEnd, qsizetype separatorLength)
{
    QByteArray head = m_buffer.left(headEnd);
    m_buffer.remove(0, headEnd + separatorLength);
    head.replace("\r\n", "\n");
    const QList<QByteArray> lines = head.split('\n');

    const QList<QByteArray> requestLine = lines.first().split(' ');
    if (requestLine.size() != 3 || !isToken(requestLine[0]) || requestLine[1].isEmpty()
        || !requestLine[2].startsWith("HTTP/1."))
        return fail(400, "malformed request line");
    m_current = HttpRequest {};
    m_current.method = requestLine[0];
    m_current.target = requestLine[1];
    m_current.version = requestLine[2];
    if (m_current.version != "HTTP/1.1" && m_current.version != "HTTP/1.0")
        return fail(400, "unsupported HTTP version");

    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray& line = lines[i];
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0 || !isToken(line.left(colon)))
            return fail(400, "malformed header line");
        m_current.headers.append({ line.left(colon).toLower(), line.mid(colon + 1).trimmed() });
    }

    const QByteArray connection = m_current.header("connection").toLower();
    m_current.keepAlive = m_current.version == "HTTP/1.1" ? connection != "close" : connection == "keep-alive";

    if (!m_current.header("transfer-encoding").isEmpty())
        return fail(501, "chunked request bodies are not supported; send Content-Length");
    const QByteArray lengthText = m_current.header("content-length");
    m_bodyLength = 0;
    if (!lengthText.isEmpty()) {
        bool ok = false;
        m_bodyLength = lengthText.toLongLong(&ok);
        if (!ok || m_bodyLength < 0)
            return fail(400, "invalid Content-Length");
        if (m_bodyLength > m_limits.maxBodyBytes)
            return fail(413, "request body too large");
    }
    m_inBody = true;
    return Result::NeedMore;
}

HttpRequestParser::Result HttpRequestParser::next(HttpRequest& out)
{
    if (m_errorStatus != 0)
        return Result::Error;
    if (!m_inBody) {
        // Empty lines before a request line are allowed (RFC 9112 section 2.2).
        qsizetype leading = 0;
        while (leading < m_buffer.size() && (m_buffer[leading] == '\r' || m_buffer[leading] == '\n'))
            ++leading;
        m_buffer.remove(0, leading);
        // Tolerate bare LF line ends, as most servers do.
        qsizetype end = m_buffer.indexOf("\r\n\r\n");
        qsizetype separator = 4;
        const qsizetype lfEnd = m_buffer.indexOf("\n\n");
        if (lfEnd >= 0 && (end < 0 || lfEnd < end)) {
            end = lfEnd;
            separator = 2;
        }
        if (end < 0) {
            // Up to 3 bytes of a terminator may still be arriving after a head of
            // exactly the limit: rejecting sooner would depend on how reads split.
            if (m_buffer.size() > m_limits.maxHeaderBytes + 3)
                return fail(431, "request header fields too large");
            return Result::NeedMore;
        }
        if (end > m_limits.maxHeaderBytes)
            return fail(431, "request header fields too large");
        if (parseHead(end, separator) == Result::Error)
            return Result::Error;
    }
    if (m_buffer.size() < m_bodyLength)
        return Result::NeedMore;
    m_current.body = m_buffer.left(m_bodyLength);
    m_buffer.remove(0, m_bodyLength);
    m_inBody = false;
    out = std::move(m_current);
    m_current = HttpRequest {};
    return Result::Request;
}

} // namespace kssim
