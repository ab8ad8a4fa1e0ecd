#pragma once

#include "workload/imagespec.h"

#include <QByteArray>

#include <list>
#include <memory>
#include <mutex>
#include <random>
#include <unordered_map>
#include <vector>

namespace ks {

/// One image as a request sends it: its `data:` URL (base64, ready to splice
/// into a body) and the size of the image file itself.
struct EncodedImage {
    QByteArray dataUrl;
    qint64 bytes = 0;
};
using ImageRef = std::shared_ptr<const EncodedImage>;

/// The images of an arm, encoded once: request bodies splice the cached data URLs
/// and never encode on the send path. A synthetic pool is encoded when the pool is
/// made (`distinct` PNGs); folder files are read and base64-encoded on first use
/// and kept in a bounded least-recently-used cache. Thread-safe.
class ImagePool {
public:
    ImagePool(const ImageSpec& spec, quint64 seed);

    /// The images of user message `message` (a run-wide message number); the count is drawn from `rng`.
    std::vector<ImageRef> imagesFor(qint64 message, std::mt19937_64& rng) const;
    /// Synthetic pool image `k` (k < distinct): seeded noise over a gradient, so its
    /// PNG size is near a photograph's rather than a flat colour's.
    static QByteArray syntheticPng(quint64 seed, int k, int width, int height);

    static constexpr qint64 kFolderCacheBytes = qint64(256) << 20;

private:
    ImageRef fromFolder(int file) const;

    ImageSpec m_spec;
    std::vector<ImageRef> m_synthetic;
    std::vector<int> m_order; ///< folder: the files in seeded order
    mutable std::mutex m_mutex;
    mutable std::list<int> m_recent; ///< folder cache, most recent first
    mutable std::unordered_map<int, std::pair<ImageRef, std::list<int>::iterator>> m_cache;
    mutable qint64 m_cachedBytes = 0;
};

} // namespace ks
