#include "imageinput.h"

#include "hashing.h"

#include <algorithm>
#include <cmath>

namespace kssim {

namespace {
constexpr int kPatch = 28; // 14-pixel patches merged 2×2
constexpr double kMinPixels = 4.0 * kPatch * kPatch; // 3136, Qwen2-VL's min_pixels
constexpr double kMaxPixels = 16384.0 * kPatch * kPatch; // 12845056, its max_pixels
constexpr int kVisionMarkers = 2; // <|vision_start|> and <|vision_end|>

quint32 bigEndian(const QByteArray& b, qsizetype at, int bytes)
{
    quint32 v = 0;
    for (int i = 0; i < bytes; ++i)
        v = (v << 8) | quint8(b[at + i]);
    return v;
}
} // namespace

std::optional<std::pair<int, int>> imageDimensions(const QByteArray& b)
{
    if (b.startsWith(QByteArrayView("\x89PNG\r\n\x1a\n", 8))) {
        if (b.size() < 24 || b.mid(12, 4) != "IHDR")
            return std::nullopt;
        const quint32 w = bigEndian(b, 16, 4), h = bigEndian(b, 20, 4);
        if (w == 0 || h == 0 || w > 0x7fffffff || h > 0x7fffffff)
            return std::nullopt;
        return std::pair { int(w), int(h) };
    }
    if (b.size() < 4 || quint8(b[0]) != 0xff || quint8(b[1]) != 0xd8)
        return std::nullopt;
    // JPEG: walk the segments to a start-of-frame (SOF0-SOF15 but DHT, JPG and DAC).
    qsizetype at = 2;
    while (at + 4 <= b.size()) {
        if (quint8(b[at]) != 0xff)
            return std::nullopt;
        const int marker = quint8(b[at + 1]);
        if (marker == 0xff) {
            ++at; // fill byte
            continue;
        }
        const qsizetype length = bigEndian(b, at + 2, 2);
        if (marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc) {
            if (at + 9 > b.size())
                return std::nullopt;
            const int h = int(bigEndian(b, at + 5, 2)), w = int(bigEndian(b, at + 7, 2));
            if (w == 0 || h == 0)
                return std::nullopt;
            return std::pair { w, h };
        }
        if (marker == 0xd9 || marker == 0xda || length < 2)
            return std::nullopt; // the image data or its end, and no frame yet
        at += 2 + length;
    }
    return std::nullopt;
}

int imageTokens(int width, int height)
{
    // Qwen2-VL's smart_resize.
    double h = std::max(kPatch, int(std::lround(double(height) / kPatch)) * kPatch);
    double w = std::max(kPatch, int(std::lround(double(width) / kPatch)) * kPatch);
    if (h * w > kMaxPixels) {
        const double beta = std::sqrt(double(height) * width / kMaxPixels);
        h = std::floor(height / beta / kPatch) * kPatch;
        w = std::floor(width / beta / kPatch) * kPatch;
    } else if (h * w < kMinPixels) {
        const double beta = std::sqrt(kMinPixels / (double(height) * width));
        h = std::ceil(height * beta / kPatch) * kPatch;
        w = std::ceil(width * beta / kPatch) * kPatch;
    }
    return int(h / kPatch) * int(w / kPatch) + kVisionMarkers;
}

std::variant<ImageInput, QString> readImageUrl(const std::string& url)
{
    const std::size_t comma = url.find(',');
    if (url.rfind("data:image/", 0) != 0 || comma == std::string::npos || url.compare(comma - 7, 7, ";base64") != 0)
        return QStringLiteral("image_url must be a data:image/...;base64, URL (the simulator fetches no URLs)");
    const auto decoded = QByteArray::fromBase64Encoding(
        QByteArray::fromRawData(url.data() + comma + 1, qsizetype(url.size() - comma - 1)),
        QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return QStringLiteral("image_url's data is not valid base64");
    const auto size = imageDimensions(decoded.decoded);
    if (!size)
        return QStringLiteral("cannot identify image file: not a PNG or JPEG, or cut short");
    ImageInput image;
    image.width = size->first;
    image.height = size->second;
    image.tokens = imageTokens(image.width, image.height);
    image.bytes = decoded.decoded.size();
    image.hash = hashBytes(decoded.decoded);
    return image;
}

} // namespace kssim
