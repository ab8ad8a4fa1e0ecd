#include "workload/imagespec.h"

#include <QDir>
#include <QFileInfo>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace ks {

namespace {
using json = nlohmann::json;

// Bounds that keep a spec's images within what a request body and memory can hold.
constexpr int kMaxImagesPerMessage = 64;
constexpr int kMaxSide = 8192;
constexpr int kMaxDistinct = 1024;
constexpr qint64 kMaxPoolRawBytes = qint64(1) << 30; // the synthetic pool's pixels, 3 bytes each

bool known(const std::string& key, std::initializer_list<const char*> keys)
{
    return std::any_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; });
}

std::optional<int> intIn(const json& object, const char* key, int low, int high, const QString& path,
    std::vector<std::pair<QString, QString>>& errors)
{
    const auto it = object.find(key);
    if (it == object.end())
        return std::nullopt;
    if (!it->is_number_integer() || it->get<long long>() < low || it->get<long long>() > high) {
        errors.emplace_back(path + QLatin1Char('.') + QLatin1String(key),
            QStringLiteral("expected a whole number from %1 to %2").arg(low).arg(high));
        return std::nullopt;
    }
    return int(it->get<long long>());
}
} // namespace

json ImageSpec::toJson() const
{
    json j = { { "count", count.toJson() } };
    if (source == Source::Folder) {
        j["source"] = "folder";
        j["path"] = path.toStdString();
        j["files"] = files.size();
    } else {
        j["source"] = "synthetic";
        j["width"] = width;
        j["height"] = height;
        j["format"] = "png";
        j["distinct"] = distinct;
    }
    return j;
}

std::optional<ImageSpec> parseImageSpec(
    const json& value, const QString& path, std::vector<std::pair<QString, QString>>& errors)
{
    if (!value.is_object()) {
        errors.emplace_back(path, QStringLiteral("expected {\"count\": N, \"source\": \"synthetic\"|\"folder\", ...}"));
        return std::nullopt;
    }
    const std::size_t before = errors.size();
    auto field = [&](const char* key) { return path + QLatin1Char('.') + QLatin1String(key); };
    ImageSpec spec;
    const std::string source = value.value("source", json("synthetic")).is_string()
        ? value.value("source", std::string("synthetic"))
        : std::string();
    if (source != "synthetic" && source != "folder")
        errors.emplace_back(field("source"), QStringLiteral("expected \"synthetic\" or \"folder\""));
    spec.source = source == "folder" ? ImageSpec::Source::Folder : ImageSpec::Source::Synthetic;
    const bool synthetic = spec.source == ImageSpec::Source::Synthetic;
    for (const auto& item : value.items()) {
        const bool ok = known(item.key(), { "count", "source" })
            || (synthetic ? known(item.key(), { "width", "height", "format", "distinct" })
                          : known(item.key(), { "path" }));
        if (!ok)
            errors.emplace_back(field(item.key().c_str()),
                QStringLiteral("unknown field for %1 images (known: %2)")
                    .arg(QString::fromStdString(source),
                        synthetic ? QStringLiteral("count, source, width, height, format, distinct")
                                  : QStringLiteral("count, source, path")));
    }
    if (const auto it = value.find("count"); it != value.end()) {
        if (auto count = parseLengthDist(*it, field("count"), errors)) {
            spec.count = *count;
            if (spec.maxCount() > kMaxImagesPerMessage)
                errors.emplace_back(field("count"),
                    QStringLiteral("at most %1 images a message (set the distribution's max)")
                        .arg(kMaxImagesPerMessage));
        }
    } else {
        errors.emplace_back(field("count"), QStringLiteral("required: images per request"));
    }
    if (synthetic) {
        const auto width = intIn(value, "width", 1, kMaxSide, path, errors);
        const auto height = intIn(value, "height", 1, kMaxSide, path, errors);
        if (!value.contains("width") || !value.contains("height"))
            errors.emplace_back(path, QStringLiteral("synthetic images need \"width\" and \"height\" in pixels"));
        spec.width = width.value_or(spec.width);
        spec.height = height.value_or(spec.height);
        spec.distinct = intIn(value, "distinct", 1, kMaxDistinct, path, errors).value_or(spec.distinct);
        if (const auto it = value.find("format"); it != value.end() && *it != "png")
            errors.emplace_back(
                field("format"), QStringLiteral("synthetic images are PNG (\"png\"); send JPEG files from a folder"));
        if (qint64(spec.width) * spec.height * 3 * spec.distinct > kMaxPoolRawBytes)
            errors.emplace_back(field("distinct"),
                QStringLiteral("%1 images of %2x%3 exceed 1 GiB of pixels; lower distinct or the size")
                    .arg(spec.distinct)
                    .arg(spec.width)
                    .arg(spec.height));
    } else {
        const auto it = value.find("path");
        if (it == value.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
            errors.emplace_back(field("path"), QStringLiteral("required: a folder of .png or .jpg images"));
        } else {
            spec.path = QString::fromStdString(it->get<std::string>());
            const QDir dir(spec.path);
            const QFileInfoList entries
                = dir.entryInfoList({ QStringLiteral("*.png"), QStringLiteral("*.jpg"), QStringLiteral("*.jpeg") },
                    QDir::Files, QDir::Name);
            for (const QFileInfo& f : entries)
                spec.files << f.absoluteFilePath();
            if (!dir.exists())
                errors.emplace_back(field("path"), QStringLiteral("no such folder: %1").arg(spec.path));
            else if (spec.files.isEmpty())
                errors.emplace_back(field("path"), QStringLiteral("no .png, .jpg or .jpeg files in %1").arg(spec.path));
        }
    }
    if (errors.size() != before)
        return std::nullopt;
    return spec;
}

} // namespace ks
