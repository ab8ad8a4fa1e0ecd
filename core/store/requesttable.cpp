#include "store/requesttable.h"

#include <algorithm>
#include <climits>

namespace ks {

namespace {

bool fits(qint64 v)
{
    return v > INT32_MIN && v <= INT32_MAX;
}

} // namespace

void RequestTable::push_back(const RequestRecord& r)
{
    Segment& segment = last();
    LoadedRequest row;
    row.setTSendUs(r.tSendUs);
    row.inTokens = r.inTokens;
    row.outTokens = r.outTokens;
    row.status = std::uint16_t(std::clamp(r.status, 0, 65535));
    row.flags = (r.ok ? LoadedRequest::kOk : 0) | (r.warmup ? LoadedRequest::kWarmup : 0)
        | (r.outTokensFromUsage ? LoadedRequest::kOutTokensFromUsage : 0)
        | (r.probe.isEmpty() ? 0 : LoadedRequest::kProbe);
    if (r.outputSha256.size() == 32) {
        std::copy(r.outputSha256.begin(), r.outputSha256.end(), row.outputSha.begin());
        row.flags |= LoadedRequest::kHasOutputSha;
    }
    const qint64 lag = r.tSendUs - r.tSchedUs;
    const qint64 wire = r.tWireUs >= 0 ? r.tWireUs - r.tSendUs : -1;
    const qint64 headers = r.tHeadersUs >= 0 ? r.tHeadersUs - r.tSendUs : -1;
    const bool wide = r.id < 0 || r.id > INT32_MAX || !fits(lag) || !fits(wire) || !fits(headers) || !fits(r.ttftUs)
        || !fits(r.ttfcUs) || !fits(r.e2eUs);
    if (!wide) {
        row.id = std::int32_t(r.id);
        row.schedLagUs = std::int32_t(lag);
        row.wireUs = r.tWireUs >= 0 ? std::int32_t(wire) : LoadedRequest::kAbsent;
        row.headersUs = r.tHeadersUs >= 0 ? std::int32_t(headers) : LoadedRequest::kAbsent;
        row.ttftUs = std::int32_t(r.ttftUs);
        row.ttfcUs = std::int32_t(r.ttfcUs);
        row.e2eUs = std::int32_t(r.e2eUs);
    }
    const bool needsExtra = wide || !r.probe.isEmpty() || !r.error.isEmpty() || !r.errorDetail.isEmpty()
        || !r.reasoningSha256.isEmpty() || !r.outputText.isEmpty() || !r.reasoningText.isEmpty()
        || r.reasoningTokens >= 0 || r.answerTokens >= 0 || r.toolCallEvents > 0 || r.images > 0;
    if (needsExtra) {
        RequestExtra x;
        x.probe = r.probe;
        x.probeRepeat = r.probeRepeat;
        x.error = r.error;
        x.errorDetail = r.errorDetail;
        x.reasoningSha256 = r.reasoningSha256;
        x.outputText = r.outputText;
        x.reasoningText = r.reasoningText;
        x.reasoningTokens = r.reasoningTokens;
        x.reasoningTokensFromUsage = r.reasoningTokensFromUsage;
        x.answerTokens = r.answerTokens;
        x.toolCallEvents = r.toolCallEvents;
        x.toolCalls = r.toolCalls;
        x.images = r.images;
        x.imageBytes = r.imageBytes;
        if (wide) {
            row.flags |= LoadedRequest::kWide;
            x.id = r.id;
            x.tSchedUs = r.tSchedUs;
            x.tWireUs = r.tWireUs;
            x.tHeadersUs = r.tHeadersUs;
            x.ttftUs = r.ttftUs;
            x.ttfcUs = r.ttfcUs;
            x.e2eUs = r.e2eUs;
        }
        row.extra = std::uint32_t(segment.extras.size());
        segment.extras.push_back(std::move(x));
    }
    if (r.server.any() || !segment.timings.empty()) {
        segment.timings.resize(segment.rows.size()); // the first with timings: the rows before had none
        segment.timings.push_back(r.server);
    }
    segment.gaps.insert(segment.gaps.end(), r.itlUs.begin(), r.itlUs.end());
    row.itlEnd = std::uint32_t(segment.gaps.size());
    segment.rows.push_back(row);
    ++m_size;
}

RequestTable::Segment& RequestTable::last()
{
    // A new segment before the 32-bit gap index could overflow (4 G gaps).
    if (m_segments.empty() || m_segments.back().gaps.size() > std::size_t(UINT32_MAX) - (1u << 24)) {
        m_starts.push_back(m_size);
        m_segments.emplace_back();
    }
    return m_segments.back();
}

void RequestTable::append(RequestTable&& other)
{
    for (Segment& segment : other.m_segments) {
        if (segment.rows.empty())
            continue;
        m_starts.push_back(m_size);
        m_size += segment.rows.size();
        m_segments.push_back(std::move(segment));
    }
    other.m_segments.clear();
    other.m_starts.clear();
    other.m_size = 0;
}

RequestTable RequestTable::fromRecords(const QString& run, const std::vector<RequestRecord>& records)
{
    RequestTable table;
    table.setRun(run);
    table.reserve(records.size(), 0);
    for (const RequestRecord& r : records)
        table.push_back(r);
    return table;
}

void RequestTable::reserve(std::size_t rows, std::size_t gaps)
{
    Segment& segment = last();
    segment.rows.reserve(segment.rows.size() + rows);
    segment.gaps.reserve(segment.gaps.size() + gaps);
}

void RequestTable::shrinkToFit()
{
    // Only where the slack is worth a copy (vectors grown by doubling, not a close reserve).
    auto shrink = [](auto& v) {
        if (v.capacity() > v.size() + v.size() / 20)
            v.shrink_to_fit();
    };
    for (Segment& segment : m_segments) {
        shrink(segment.rows);
        shrink(segment.gaps);
        shrink(segment.extras);
        shrink(segment.timings);
    }
}

std::size_t RequestTable::bytes() const
{
    std::size_t total = 0;
    for (const Segment& segment : m_segments)
        total += segment.rows.capacity() * sizeof(LoadedRequest) + segment.gaps.capacity() * sizeof(std::int32_t)
            + segment.extras.capacity() * sizeof(RequestExtra) + segment.timings.capacity() * sizeof(ServerTimings);
    return total;
}

RequestRecord RequestTable::operator[](std::size_t i) const
{
    const LoadedRequest& row = this->row(i);
    const RequestTimes t = times(i);
    RequestRecord r;
    r.run = m_run;
    r.tSchedUs = t.tSchedUs;
    r.tSendUs = t.tSendUs;
    r.tWireUs = t.tWireUs;
    r.tHeadersUs = t.tHeadersUs;
    if (const ServerTimings* server = timings(i))
        r.server = *server;
    r.ttftUs = t.ttftUs;
    r.ttfcUs = t.ttfcUs;
    r.e2eUs = t.e2eUs;
    r.id = row.id;
    const std::span<const std::int32_t> gaps = itl(i);
    r.itlUs.assign(gaps.begin(), gaps.end());
    r.inTokens = row.inTokens;
    r.outTokens = row.outTokens;
    r.outTokensFromUsage = row.flags & LoadedRequest::kOutTokensFromUsage;
    r.status = row.status;
    r.ok = row.ok();
    r.warmup = row.warmup();
    if (row.flags & LoadedRequest::kHasOutputSha)
        r.outputSha256 = QByteArray(reinterpret_cast<const char*>(row.outputSha.data()), 32);
    if (const RequestExtra* x = extra(i)) {
        if (row.flags & LoadedRequest::kWide)
            r.id = x->id;
        r.probe = x->probe;
        r.probeRepeat = x->probeRepeat;
        r.error = x->error;
        r.errorDetail = x->errorDetail;
        r.reasoningSha256 = x->reasoningSha256;
        r.outputText = x->outputText;
        r.reasoningText = x->reasoningText;
        r.reasoningTokens = x->reasoningTokens;
        r.reasoningTokensFromUsage = x->reasoningTokensFromUsage;
        r.answerTokens = x->answerTokens;
        r.toolCallEvents = x->toolCallEvents;
        r.toolCalls = x->toolCalls;
        r.images = x->images;
        r.imageBytes = x->imageBytes;
    }
    return r;
}

QByteArray shaFromHex(QByteArrayView hex)
{
    if (hex.size() != 64)
        return {};
    QByteArray raw(32, Qt::Uninitialized);
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
            return c - 'A' + 10;
        return -1;
    };
    for (int i = 0; i < 32; ++i) {
        const int high = nibble(hex[2 * i]);
        const int low = nibble(hex[2 * i + 1]);
        if (high < 0 || low < 0)
            return {};
        raw[i] = char(high << 4 | low);
    }
    return raw;
}

QByteArray shaToHex(const QByteArray& raw)
{
    return raw.toHex();
}

} // namespace ks
static_assert(sizeof(ks::LoadedRequest) == 88, "docs/PERFORMANCE.md counts 88 bytes a row");
static_assert(sizeof(ks::ServerTimings) == 32, "docs/PERFORMANCE.md counts 32 bytes for server timings");
