#include "workload/imagepool.h"

#include "workload/pngencoder.h"

#include <QFile>

#include <algorithm>
#include <numeric>

namespace ks {

namespace {
ImageRef encoded(const QByteArray& file, const char* mime)
{
    auto image = std::make_shared<EncodedImage>();
    image->bytes = file.size();
    image->dataUrl = QByteArray("data:") + mime + ";base64," + file.toBase64();
    return image;
}
} // namespace

ImagePool::ImagePool(const ImageSpec& spec, quint64 seed)
    : m_spec(spec)
{
    if (m_spec.source == ImageSpec::Source::Synthetic) {
        for (int k = 0; k < m_spec.distinct; ++k)
            m_synthetic.push_back(encoded(syntheticPng(seed, k, m_spec.width, m_spec.height), "image/png"));
    } else {
        m_order.resize(std::size_t(m_spec.files.size()));
        std::iota(m_order.begin(), m_order.end(), 0);
        std::shuffle(m_order.begin(), m_order.end(), std::mt19937_64(seed * 0x9e3779b97f4a7c15ULL + 0x1a6e));
    }
}

QByteArray ImagePool::syntheticPng(quint64 seed, int k, int width, int height)
{
    std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ULL + 0x1a6e5 + quint64(k));
    const int hue = int(rng() % 256);
    QByteArray rgb(qsizetype(width) * height * 3, Qt::Uninitialized);
    char* p = rgb.data();
    quint64 bits = 0;
    int left = 0;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const int base[3] = { x * 192 / width, y * 192 / height, (hue + (x + y) * 96 / (width + height)) % 192 };
            for (int c = 0; c < 3; ++c) {
                if (left == 0) {
                    bits = rng();
                    left = 16;
                }
                *p++ = char(base[c] + int(bits & 15) * 4); // 4 bits of noise a channel
                bits >>= 4;
                --left;
            }
        }
    }
    return encodePng(rgb, width, height);
}

std::vector<ImageRef> ImagePool::imagesFor(qint64 message, std::mt19937_64& rng) const
{
    const int count = m_spec.count.draw(rng);
    std::vector<ImageRef> out;
    out.reserve(std::size_t(count));
    const qint64 first = message * m_spec.maxCount();
    for (int j = 0; j < count; ++j) {
        const qint64 k = first + j;
        ImageRef image = m_spec.source == ImageSpec::Source::Synthetic
            ? m_synthetic[std::size_t(k % qint64(m_synthetic.size()))]
            : fromFolder(m_order[std::size_t(k % qint64(m_order.size()))]);
        if (image)
            out.push_back(std::move(image));
    }
    return out;
}

ImageRef ImagePool::fromFolder(int file) const
{
    {
        const std::lock_guard lock(m_mutex);
        if (const auto it = m_cache.find(file); it != m_cache.end()) {
            m_recent.splice(m_recent.begin(), m_recent, it->second.second);
            return it->second.first;
        }
    }
    const QString path = m_spec.files[file];
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return nullptr; // gone since the spec was read: the request goes without it
    const bool png = path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive);
    ImageRef image = encoded(f.readAll(), png ? "image/png" : "image/jpeg");
    const std::lock_guard lock(m_mutex);
    if (m_cache.count(file) == 0) {
        m_recent.push_front(file);
        m_cache.emplace(file, std::pair { image, m_recent.begin() });
        m_cachedBytes += image->dataUrl.size();
    }
    while (m_cachedBytes > kFolderCacheBytes && m_recent.size() > 1) {
        const auto last = m_cache.find(m_recent.back());
        m_cachedBytes -= last->second.first->dataUrl.size();
        m_cache.erase(last);
        m_recent.pop_back();
    }
    return image;
}

} // namespace ks
