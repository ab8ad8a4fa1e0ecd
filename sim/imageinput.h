#pragma once

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace kssim {

/// An image of a chat request as the simulator charges it (docs/simulator.md,
/// "Images"): its size from the PNG or JPEG header, never a full decode.
struct ImageInput {
    int width = 0;
    int height = 0;
    int tokens = 0; ///< imageTokens(width, height)
    qint64 bytes = 0; ///< the image file's bytes (after base64 decoding)
    std::uint64_t hash = 0; ///< of the image's bytes: equal images share prefix-cache blocks
};

/// Width and height from a PNG's IHDR or a JPEG's start-of-frame marker; nullopt
/// when the bytes are neither, or are cut short before the size.
std::optional<std::pair<int, int>> imageDimensions(const QByteArray& bytes);

/// Qwen2-VL's rule: the image is resized to multiples of 28 pixels (rounded,
/// then scaled into [4, 16384] patches of 28×28), one token a patch, plus the
/// vision start and end tokens.
int imageTokens(int width, int height);

/// Reads an image_url's `url`: a `data:image/...;base64,` URL. The error is the
/// message of the 400 answer.
std::variant<ImageInput, QString> readImageUrl(const std::string& url);

} // namespace kssim
