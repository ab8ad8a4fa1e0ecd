#pragma once

#include <QByteArray>

#include <functional>

namespace ks {

/// Incremental Server-Sent Events parser (the WHATWG event-stream rules that
/// matter for LLM streaming): bytes in any split, events out. Handles "\n",
/// "\r\n" and "\r" line ends, multi-line data fields, comments and fields it does
/// not know. Operates on bytes, so a multi-byte UTF-8 character split across
/// reads is reassembled before anyone decodes it. Written by hand: Qt has no
/// SSE parser and the hot path must not allocate per line.
class SseParser {
public:
    struct Event {
        QByteArray data; ///< data: lines joined by "\n"
        QByteArray name; ///< event: field, usually empty
    };
    enum class Status { Ok, EventTooLarge };

    /// The largest event (its data lines joined) read by default: twice the
    /// 16 MiB line a long-context stream may carry (one huge content delta, a
    /// final chunk with the whole text, logprobs of a long prompt). Memory is
    /// only taken as bytes arrive, so the limit costs nothing below it.
    static constexpr qsizetype kDefaultMaxEventBytes = qsizetype(32) << 20;

    explicit SseParser(qsizetype maxEventBytes = kDefaultMaxEventBytes);

    /// Parses `bytes`, calling `onEvent` for each complete event. After
    /// EventTooLarge the stream is unusable (the caller records an error).
    Status feed(const char* bytes, qsizetype size, const std::function<void(const Event&)>& onEvent);
    Status feed(const QByteArray& bytes, const std::function<void(const Event&)>& onEvent)
    {
        return feed(bytes.constData(), bytes.size(), onEvent);
    }

    int comments() const { return m_comments; }
    qsizetype maxEventBytes() const { return m_maxEventBytes; }
    /// True when bytes of an unfinished event are buffered (a stream cut mid-event).
    bool hasPartialEvent() const { return !m_line.isEmpty() || m_hasData; }

private:
    void processLine(const std::function<void(const Event&)>& onEvent);

    qsizetype m_maxEventBytes;
    QByteArray m_line;
    Event m_event;
    bool m_hasData = false;
    bool m_lastWasCr = false;
    bool m_failed = false;
    int m_comments = 0;
};

} // namespace ks
