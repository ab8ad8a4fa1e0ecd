#include "workload/pngencoder.h"

#include <array>

namespace ks {

namespace {
constexpr std::array<quint32, 256> makeCrcTable()
{
    std::array<quint32, 256> table {};
    for (quint32 n = 0; n < 256; ++n) {
        quint32 c = n;
        for (int k = 0; k < 8; ++k)
            c = (c & 1) ? 0xedb88320U ^ (c >> 1) : c >> 1;
        table[n] = c;
    }
    return table;
}
constexpr std::array<quint32, 256> kCrcTable = makeCrcTable();

void appendBigEndian(QByteArray& out, quint32 v)
{
    out += char(v >> 24);
    out += char(v >> 16);
    out += char(v >> 8);
    out += char(v);
}

void appendChunk(QByteArray& out, const char type[4], const char* data, qsizetype size)
{
    appendBigEndian(out, quint32(size));
    const qsizetype start = out.size();
    out.append(type, 4);
    out.append(data, size);
    appendBigEndian(out, crc32(out.constData() + start, size + 4));
}
} // namespace

quint32 crc32(const char* data, qsizetype size, quint32 crc)
{
    crc = ~crc;
    for (qsizetype i = 0; i < size; ++i)
        crc = kCrcTable[(crc ^ quint8(data[i])) & 0xff] ^ (crc >> 8);
    return ~crc;
}

QByteArray encodePng(const QByteArray& rgb, int width, int height)
{
    const qsizetype stride = qsizetype(width) * 3;
    if (width < 1 || height < 1 || rgb.size() != stride * height)
        return {};
    QByteArray raw;
    // Filter "Sub" on every row (each byte less the same channel of the pixel to
    // its left), as PNG writers choose for photographs: gradients become small numbers.
    raw.resize((stride + 1) * height);
    char* out = raw.data();
    for (int y = 0; y < height; ++y) {
        const auto* row = reinterpret_cast<const quint8*>(rgb.constData() + stride * y);
        *out++ = char(1);
        for (qsizetype x = 0; x < stride; ++x)
            *out++ = char(quint8(row[x] - (x >= 3 ? row[x - 3] : 0)));
    }
    // qCompress writes the length as 4 big-endian bytes, then a zlib stream: what IDAT holds.
    const QByteArray z = qCompress(raw, 1);
    QByteArray ihdr;
    appendBigEndian(ihdr, quint32(width));
    appendBigEndian(ihdr, quint32(height));
    ihdr += char(8); // bit depth
    ihdr += char(2); // colour type: RGB
    ihdr += char(0); // deflate
    ihdr += char(0); // adaptive filtering
    ihdr += char(0); // no interlace
    QByteArray png("\x89PNG\r\n\x1a\n", 8);
    png.reserve(z.size() + 64);
    appendChunk(png, "IHDR", ihdr.constData(), ihdr.size());
    appendChunk(png, "IDAT", z.constData() + 4, z.size() - 4);
    appendChunk(png, "IEND", nullptr, 0);
    return png;
}

} // namespace ks
