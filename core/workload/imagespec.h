#pragma once

#include "workload/lengthdist.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <utility>
#include <vector>

namespace ks {

/// The images a chat request carries (docs/experiments.md, "Images"): `images` in
/// a `prompts` block. Each user message gets `count` images, synthetic W×H PNGs
/// drawn from a pool of `distinct` seeded images, or files of a folder in a seeded order.
struct ImageSpec {
    enum class Source { Synthetic, Folder };
    Source source = Source::Synthetic;
    LengthDist count = LengthDist::fixed(1);
    int width = 512; ///< synthetic
    int height = 512;
    int distinct = 16; ///< synthetic: the pool's size; image k of the run is pool image k % distinct
    QString path; ///< folder
    QStringList files; ///< folder: the image files (absolute paths), sorted by name

    /// The most images one message can carry (the count's fixed value or its max).
    int maxCount() const { return count.isFixed() ? count.value : count.max; }
    nlohmann::json toJson() const;
};

/// Reads an `images` object. A folder is listed here (its .png, .jpg and .jpeg
/// files), so an empty or missing folder stops the run before anything is sent.
/// Problems go to `errors` as (path, message).
std::optional<ImageSpec> parseImageSpec(
    const nlohmann::json& value, const QString& path, std::vector<std::pair<QString, QString>>& errors);

} // namespace ks
