#pragma once

#include <QByteArray>

namespace ks {

/// A PNG file of 8-bit RGB pixels (`rgb`: height rows of width*3 bytes), written
/// without QtGui so the core stays widget- and GUI-free: one IDAT chunk deflated
/// by qCompress (zlib), filter type 1 (Sub) on every row. Returns an empty array when
/// `rgb` does not hold width*height*3 bytes.
QByteArray encodePng(const QByteArray& rgb, int width, int height);

/// The CRC-32 of PNG chunks (ISO 3309, as zlib's crc32).
quint32 crc32(const char* data, qsizetype size, quint32 crc = 0);

} // namespace ks
