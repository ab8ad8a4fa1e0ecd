#pragma once

#include <QString>
#include <QtGlobal>

#include <optional>
#include <variant>
#include <vector>

namespace ks {

/// One request of a trace: when it was sent (µs from the start of the window,
/// not yet scaled by speed), its lengths, and its prompt's blocks.
struct TraceEntry {
    qint64 offsetUs = 0;
    int inputLen = 0;
    int outputLen = 0;
    quint32 hashBegin = 0; ///< first of its hash ids in TraceIndex::hashIds
    quint32 hashCount = 0; ///< 0: no hash ids (distinct prompts)
};

/// The requests a trace window selects, as compact entries: the file's text is
/// never kept, so memory grows with the requests replayed, not the file.
struct TraceIndex {
    enum class Format { Mooncake, Azure, Knobscope };
    /// Tokens per hash id (Mooncake's block size).
    static constexpr int kBlockTokens = 512;

    std::vector<TraceEntry> entries; ///< ascending offsets
    std::vector<quint64> hashIds; ///< every entry's ids, back to back
    qint64 rowsRead = 0; ///< rows of the file read (up to the window's end)
    QString runLabel; ///< knobscope format: the run replayed

    const quint64* hashesOf(const TraceEntry& e) const { return hashIds.data() + e.hashBegin; }
};

std::optional<TraceIndex::Format> traceFormatFromName(const QString& name);
QString traceFormatName(TraceIndex::Format format);

/// Reads a trace file in one streaming pass, keeping the rows whose offset
/// (from the first row; a run file's own clock for the knobscope format) lies in
/// [startS, startS + durationS) (durationS <= 0: to the end), offsets re-based to
/// startS. A malformed row fails the whole read with a message naming its line.
std::variant<TraceIndex, QString> readTrace(
    const QString& path, TraceIndex::Format format, double startS = 0, double durationS = 0);

/// The microseconds of an Azure trace TIMESTAMP ("2023-11-16 18:15:46.6805900")
/// since the epoch, or nullopt when it is not one.
std::optional<qint64> parseAzureTimestamp(const QByteArray& text);

} // namespace ks
