#pragma once

#include <QByteArray>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

// A failed property is a finding: print it and abort, which libFuzzer reports
// as a crash and saves the input for.
#define KS_FUZZ_CHECK(condition)                                                                                       \
    do {                                                                                                               \
        if (!(condition)) {                                                                                            \
            std::fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #condition);                      \
            std::abort();                                                                                              \
        }                                                                                                              \
    } while (false)

namespace ksfuzz {

/// A stream and the sizes of the reads it arrives in, both taken from one fuzz
/// input: byte 0 says how many of the next bytes are read sizes (0..15, each
/// byte + 1, used in turn); the rest is the stream. With no read sizes the
/// stream arrives in one read. The seeds in corpus/ start with such a header.
struct SplitInput {
    QByteArray stream;
    std::vector<qsizetype> reads;

    SplitInput(const std::uint8_t* data, std::size_t size)
    {
        std::size_t pos = 0;
        const std::size_t count = size > 0 ? data[pos++] % 16 : 0;
        for (std::size_t i = 0; i < count && pos < size; ++i)
            reads.push_back(qsizetype(data[pos++]) + 1);
        stream = QByteArray(reinterpret_cast<const char*>(data + pos), qsizetype(size - pos));
    }

    /// Calls `onRead(const char*, qsizetype)` for each read, in order.
    template <typename F> void forEachRead(F&& onRead) const
    {
        qsizetype pos = 0;
        std::size_t i = 0;
        while (pos < stream.size()) {
            const qsizetype n
                = reads.empty() ? stream.size() : std::min(reads[i++ % reads.size()], stream.size() - pos);
            onRead(stream.constData() + pos, n);
            pos += n;
        }
    }
};

} // namespace ksfuzz
