#pragma once

#include <QByteArray>
#include <QString>

#include <functional>

namespace ks {

/// Decodes one HTTP/1.1 response incrementally: the status line and headers,
/// then the body as it arrives (Content-Length, chunked, or until the server
/// closes), handing body bytes on as soon as they are decoded. Bytes in, calls
/// out; no sockets, so it is tested split at every byte boundary and fuzzed.
///
/// Written here because the streaming client does its own HTTP/1.1 (see
/// httpconnection.h for why QNetworkAccessManager is not used on the hot path);
/// nothing in Debian's Qt offers a response parser on its own.
class HttpResponseParser {
public:
    enum class Status { NeedMore, Done, Error };
    using BodySink = std::function<void(const char* data, qsizetype size)>;

    /// `headRequest`: the response to a HEAD request has no body.
    explicit HttpResponseParser(bool headRequest = false);

    /// Feeds bytes. `onHead` is called once, when the final (non-1xx) head is
    /// complete; `onBody` for each decoded piece of the body. Returns Done once
    /// the response is complete (bytes after it are an error: nothing is pipelined).
    Status feed(const char* data, qsizetype size, const std::function<void()>& onHead, const BodySink& onBody);
    /// The server closed the connection: Done if the body runs to the close,
    /// otherwise Error (a response cut short).
    Status closed();

    bool headComplete() const { return m_state > State::Head; }
    int statusCode() const { return m_status; }
    /// The connection can carry another request once this response is Done.
    bool keepAlive() const { return m_keepAlive; }
    /// A header's value (the first, compared case-insensitively), empty if absent.
    QByteArray header(const QByteArray& name) const;
    QString error() const { return m_error; }
    /// Body bytes decoded so far.
    qint64 bodyBytes() const { return m_bodyBytes; }

    static constexpr qsizetype kMaxHeadBytes = 64 * 1024;
    static constexpr qsizetype kMaxChunkLineBytes = 1024;

private:
    enum class State { Head, LengthBody, ChunkSize, ChunkData, ChunkDataEnd, Trailers, UntilClose, Done, Error };

    Status fail(const QString& why);
    bool parseHead(); // on the complete head in m_line
    Status status() const;

    bool m_headRequest;
    State m_state = State::Head;
    QByteArray m_line; ///< the head, a chunk-size line or a trailer line being gathered
    QByteArray m_headers; ///< the final head, lowercased names
    int m_status = 0;
    bool m_keepAlive = true;
    qint64 m_remaining = 0; ///< of a Content-Length body or the current chunk
    qint64 m_bodyBytes = 0;
    QString m_error;
};

} // namespace ks
