#pragma once

#include "store/requestrecord.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <span>
#include <vector>

namespace ks {

/// One request as held after reading a run file: 88 bytes plus 4 per
/// inter-token gap (docs/PERFORMANCE.md, "Memory per loaded request"), plus 32
/// for a request with server timings (llama.cpp). Times
/// are kept relative to the send time in 32 bits; a request whose values do not
/// fit (an hour-long stream, an id past 2^31) keeps them in its extra entry.
/// Strings (error, detail, probe) and probe texts live in the extra entry too:
/// load requests that succeeded have none.
struct LoadedRequest {
    static constexpr std::uint32_t kNoExtra = UINT32_MAX;
    enum Flag : std::uint8_t {
        kOk = 1,
        kWarmup = 2,
        kOutTokensFromUsage = 4,
        kWide = 8, ///< the times and id are in the extra entry
        kHasOutputSha = 16,
        kProbe = 32,
    };
    std::uint32_t tSendLow = 0; ///< t_send_us in two halves: 4-byte alignment keeps the row at 88 bytes
    std::int32_t tSendHigh = 0;
    std::uint32_t itlEnd = 0; ///< end of this request's gaps in the table's pool
    std::uint32_t extra = kNoExtra;
    std::int32_t id = 0;
    std::int32_t schedLagUs = 0; ///< t_send - t_sched
    std::int32_t wireUs = -1; ///< t_wire - t_send; kAbsent when unknown
    std::int32_t headersUs = -1; ///< t_headers - t_send; kAbsent when unknown
    std::int32_t ttftUs = -1;
    std::int32_t ttfcUs = -1;
    std::int32_t e2eUs = -1;
    std::int32_t inTokens = 0;
    std::int32_t outTokens = 0;
    std::uint16_t status = 0;
    std::uint8_t flags = 0;
    std::array<std::uint8_t, 32> outputSha {};

    static constexpr std::int32_t kAbsent = INT32_MIN;
    qint64 tSendUs() const { return qint64(std::uint64_t(std::uint32_t(tSendHigh)) << 32 | tSendLow); }
    void setTSendUs(qint64 v)
    {
        tSendLow = std::uint32_t(std::uint64_t(v));
        tSendHigh = std::int32_t(std::uint64_t(v) >> 32);
    }
    bool ok() const { return flags & kOk; }
    bool warmup() const { return flags & kWarmup; }
};

/// What most loaded requests do not have.
struct RequestExtra {
    QString probe;
    int probeRepeat = -1;
    QString error;
    QString errorDetail;
    QByteArray reasoningSha256; ///< 32 raw bytes, or empty
    QByteArray outputText;
    QByteArray reasoningText;
    int reasoningTokens = -1, answerTokens = -1, toolCallEvents = 0, toolCalls = 0; ///< as in RequestRecord
    bool reasoningTokensFromUsage = false;
    int images = 0; ///< as in RequestRecord
    qint64 imageBytes = 0;
    // Full values when they do not fit a LoadedRequest (kWide).
    qint64 id = 0, tSchedUs = 0, tWireUs = -1, tHeadersUs = -1, ttftUs = -1, ttfcUs = -1, e2eUs = -1;
};

/// The times of one loaded request, full width, for the statistics.
struct RequestTimes {
    qint64 tSchedUs, tSendUs, tWireUs, tHeadersUs, ttftUs, ttfcUs, e2eUs;
    int outTokens;
    bool ok, warmup;
    double tpotUs() const
    {
        return ok && outTokens > 1 && ttftUs >= 0 ? double(e2eUs - ttftUs) / double(outTokens - 1) : -1.0;
    }
};

/// The requests of one run in file order, compact (about a third of a
/// RequestRecord's memory). Statistics read rows, times() and itl() directly;
/// anything else may read full RequestRecords through operator[] and
/// iteration, which build one per call (labelled with run()).
class RequestTable {
public:
    /// A table labelled `run` holding `records` in their order.
    static RequestTable fromRecords(const QString& run, const std::vector<RequestRecord>& records);

    void push_back(const RequestRecord& record);
    /// Moves `other`'s requests after these (merging the parts of a file read in parallel).
    void append(RequestTable&& other);
    void reserve(std::size_t rows, std::size_t gaps);
    void shrinkToFit();

    void setRun(const QString& run) { m_run = run; }
    const QString& run() const { return m_run; }

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const LoadedRequest& row(std::size_t i) const
    {
        const auto [segment, local] = locate(i);
        return segment->rows[local];
    }
    const RequestExtra* extra(std::size_t i) const
    {
        const auto [segment, local] = locate(i);
        const std::uint32_t x = segment->rows[local].extra;
        return x == LoadedRequest::kNoExtra ? nullptr : &segment->extras[x];
    }
    RequestTimes times(std::size_t i) const
    {
        const auto [segment, local] = locate(i);
        const LoadedRequest& r = segment->rows[local];
        const qint64 send = r.tSendUs();
        if (r.flags & LoadedRequest::kWide) {
            const RequestExtra& x = segment->extras[r.extra];
            return { x.tSchedUs, send, x.tWireUs, x.tHeadersUs, x.ttftUs, x.ttfcUs, x.e2eUs, r.outTokens, r.ok(),
                r.warmup() };
        }
        return { send - r.schedLagUs, send, r.wireUs == LoadedRequest::kAbsent ? -1 : send + r.wireUs,
            r.headersUs == LoadedRequest::kAbsent ? -1 : send + r.headersUs, r.ttftUs, r.ttfcUs, r.e2eUs, r.outTokens,
            r.ok(), r.warmup() };
    }
    /// The server's timings of a request, or nullptr when it has none.
    const ServerTimings* timings(std::size_t i) const
    {
        const auto [segment, local] = locate(i);
        if (segment->timings.empty() || !segment->timings[local].any())
            return nullptr;
        return &segment->timings[local];
    }
    std::span<const std::int32_t> itl(std::size_t i) const
    {
        const auto [segment, local] = locate(i);
        const std::uint32_t begin = local == 0 ? 0 : segment->rows[local - 1].itlEnd;
        return { segment->gaps.data() + begin, segment->rows[local].itlEnd - begin };
    }
    /// Heap bytes held (rows, gaps, extras without their strings).
    std::size_t bytes() const;

    RequestRecord operator[](std::size_t i) const;
    RequestRecord front() const { return (*this)[0]; }
    RequestRecord back() const { return (*this)[size() - 1]; }

    class const_iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = RequestRecord;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = RequestRecord;
        const_iterator(const RequestTable* table, std::size_t i)
            : m_table(table)
            , m_i(i)
        {
        }
        RequestRecord operator*() const { return (*m_table)[m_i]; }
        const_iterator& operator++()
        {
            ++m_i;
            return *this;
        }
        const_iterator operator++(int)
        {
            const_iterator before = *this;
            ++m_i;
            return before;
        }
        bool operator==(const const_iterator& o) const { return m_i == o.m_i; }
        bool operator!=(const const_iterator& o) const { return m_i != o.m_i; }

    private:
        const RequestTable* m_table;
        std::size_t m_i;
    };
    const_iterator begin() const { return { this, 0 }; }
    const_iterator end() const { return { this, size() }; }

private:
    // Parts read in parallel are kept as they were read, never copied into one
    // block: a merge costs no memory. Gaps are indexed in 32 bits per segment.
    struct Segment {
        std::vector<LoadedRequest> rows;
        std::vector<std::int32_t> gaps;
        std::vector<RequestExtra> extras;
        /// Empty while no row of the segment has server timings, then one per
        /// row: no index in the row, and nothing for runs without timings.
        std::vector<ServerTimings> timings;
    };
    std::pair<const Segment*, std::size_t> locate(std::size_t i) const
    {
        if (m_segments.size() == 1)
            return { &m_segments.front(), i };
        const auto it = std::upper_bound(m_starts.begin(), m_starts.end(), i);
        const std::size_t s = std::size_t(it - m_starts.begin()) - 1;
        return { &m_segments[s], i - m_starts[s] };
    }
    Segment& last();

    QString m_run;
    std::vector<Segment> m_segments;
    std::vector<std::size_t> m_starts; ///< index of each segment's first row
    std::size_t m_size = 0;
};

/// SHA-256 digests are held as 32 raw bytes and written as 64 hex digits.
QByteArray shaFromHex(QByteArrayView hex); ///< empty unless 64 hex digits
QByteArray shaToHex(const QByteArray& raw);

} // namespace ks
