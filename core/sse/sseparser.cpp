#include "sse/sseparser.h"

#include <cstring>

namespace ks {

SseParser::SseParser(qsizetype maxEventBytes)
    : m_maxEventBytes(maxEventBytes)
{
}

SseParser::Status SseParser::feed(const char* bytes, qsizetype size, const std::function<void(const Event&)>& onEvent)
{
    if (m_failed)
        return Status::EventTooLarge;
    qsizetype pos = 0;
    // The next CR and LF at or after `pos`, each searched again only once passed:
    // a stream without CR would otherwise be scanned to its end on every line.
    const char* nextLf = nullptr;
    const char* nextCr = nullptr;
    bool lfSearched = false;
    bool crSearched = false;
    auto nextOf = [&](char c, const char*& cached, bool& searched) {
        if (!searched || (cached && cached < bytes + pos)) {
            cached = static_cast<const char*>(std::memchr(bytes + pos, c, size_t(size - pos)));
            searched = true;
        }
        return cached;
    };
    while (pos < size) {
        if (m_lastWasCr && bytes[pos] == '\n') {
            // second half of a "\r\n" split across reads
            ++pos;
            m_lastWasCr = false;
            continue;
        }
        m_lastWasCr = false;
        const char* nl = nextOf('\n', nextLf, lfSearched);
        const char* cr = nextOf('\r', nextCr, crSearched);
        const char* end = nl && cr ? std::min(nl, cr) : (nl ? nl : cr);
        if (!end) {
            m_line.append(bytes + pos, size - pos);
            if (m_line.size() + m_event.data.size() > m_maxEventBytes) {
                m_failed = true;
                return Status::EventTooLarge;
            }
            return Status::Ok;
        }
        m_line.append(bytes + pos, end - (bytes + pos));
        pos = end - bytes + 1;
        if (*end == '\r') {
            if (pos < size && bytes[pos] == '\n')
                ++pos;
            else if (pos == size)
                m_lastWasCr = true;
        }
        processLine(onEvent);
        if (m_event.data.size() > m_maxEventBytes) {
            m_failed = true;
            return Status::EventTooLarge;
        }
    }
    return Status::Ok;
}

void SseParser::processLine(const std::function<void(const Event&)>& onEvent)
{
    if (m_line.isEmpty()) {
        if (m_hasData)
            onEvent(m_event);
        m_event.data.clear();
        m_event.name.clear();
        m_hasData = false;
        return;
    }
    if (m_line.front() == ':') {
        ++m_comments;
        m_line.clear();
        return;
    }
    const qsizetype colon = m_line.indexOf(':');
    const QByteArrayView field = colon < 0 ? QByteArrayView(m_line) : QByteArrayView(m_line).first(colon);
    QByteArrayView value;
    if (colon >= 0) {
        value = QByteArrayView(m_line).sliced(colon + 1);
        if (value.startsWith(' '))
            value = value.sliced(1);
    }
    if (field == "data") {
        if (m_hasData)
            m_event.data.append('\n');
        m_event.data.append(value.data(), value.size());
        m_hasData = true;
    } else if (field == "event") {
        m_event.name = value.toByteArray();
    }
    m_line.clear();
}

} // namespace ks
