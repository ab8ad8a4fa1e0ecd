#include "workload/lengthdist.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ks {

namespace {
using json = nlohmann::json;

const char* kindName(LengthDist::Kind kind)
{
    switch (kind) {
    case LengthDist::Kind::Fixed:
        return "fixed";
    case LengthDist::Kind::Uniform:
        return "uniform";
    case LengthDist::Kind::Normal:
        return "normal";
    case LengthDist::Kind::Lognormal:
        return "lognormal";
    }
    return "fixed";
}

std::optional<int> wholeAtLeastOne(const json& v)
{
    if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > std::numeric_limits<int>::max())
        return std::nullopt;
    return int(v.get<long long>());
}
} // namespace

LengthDist LengthDist::fixed(int n)
{
    LengthDist d;
    d.value = n;
    return d;
}

int LengthDist::draw(std::mt19937_64& rng) const
{
    double x = value;
    switch (kind) {
    case Kind::Fixed:
        return value;
    case Kind::Uniform:
        return std::uniform_int_distribution<int>(min, max)(rng);
    case Kind::Normal:
        x = std::normal_distribution<double>(mean, std)(rng);
        break;
    case Kind::Lognormal: {
        // The parameters of the underlying normal from the lengths' own mean and deviation.
        const double sigma2 = std::log1p((std * std) / (mean * mean));
        const double mu = std::log(mean) - sigma2 / 2;
        x = std::lognormal_distribution<double>(mu, std::sqrt(sigma2))(rng);
        break;
    }
    }
    // Clamped before rounding: an extreme lognormal draw must not overflow llround.
    if (!std::isfinite(x))
        x = x > 0 ? max : min;
    return int(std::llround(std::clamp<double>(x, min, max)));
}

json LengthDist::toJson() const
{
    switch (kind) {
    case Kind::Fixed:
        return value;
    case Kind::Uniform:
        return { { "dist", "uniform" }, { "min", min }, { "max", max } };
    case Kind::Normal:
    case Kind::Lognormal:
        return { { "dist", kindName(kind) }, { "mean", mean }, { "std", std }, { "min", min }, { "max", max } };
    }
    return value;
}

std::optional<LengthDist> parseLengthDist(
    const json& value, const QString& path, std::vector<std::pair<QString, QString>>& errors)
{
    auto fail = [&](const QString& at, const QString& message) {
        errors.emplace_back(at, message);
        return std::nullopt;
    };
    auto field = [&](const char* key) { return path + QLatin1Char('.') + QLatin1String(key); };
    if (value.is_number()) {
        if (const auto n = wholeAtLeastOne(value))
            return LengthDist::fixed(*n);
        return fail(path, QStringLiteral("expected a whole number of at least 1, or a {\"dist\": ...} object"));
    }
    if (!value.is_object())
        return fail(path, QStringLiteral("expected a whole number of at least 1, or a {\"dist\": ...} object"));
    const auto kind = value.find("dist");
    if (kind == value.end() || !kind->is_string())
        return fail(field("dist"), QStringLiteral("required: fixed, uniform, normal or lognormal"));
    const std::string name = kind->get<std::string>();
    LengthDist d;
    std::vector<const char*> known { "dist" };
    const std::size_t before = errors.size();
    auto whole = [&](const char* key, bool required) -> std::optional<int> {
        known.push_back(key);
        const auto it = value.find(key);
        if (it == value.end()) {
            if (required)
                errors.emplace_back(field(key), QStringLiteral("required"));
            return std::nullopt;
        }
        const auto n = wholeAtLeastOne(*it);
        if (!n)
            errors.emplace_back(field(key), QStringLiteral("expected a whole number of at least 1"));
        return n;
    };
    auto positive = [&](const char* key, bool allowZero) -> std::optional<double> {
        known.push_back(key);
        const auto it = value.find(key);
        if (it == value.end()) {
            errors.emplace_back(field(key), QStringLiteral("required"));
            return std::nullopt;
        }
        if (!it->is_number() || !(it->get<double>() > 0 || (allowZero && it->get<double>() == 0))
            || !std::isfinite(it->get<double>())) {
            errors.emplace_back(field(key),
                allowZero ? QStringLiteral("expected a number >= 0") : QStringLiteral("expected a number > 0"));
            return std::nullopt;
        }
        return it->get<double>();
    };
    if (name == "fixed") {
        d.kind = LengthDist::Kind::Fixed;
        d.value = whole("value", true).value_or(1);
    } else if (name == "uniform") {
        d.kind = LengthDist::Kind::Uniform;
        d.min = whole("min", true).value_or(1);
        d.max = whole("max", true).value_or(1);
        if (d.max < d.min)
            errors.emplace_back(field("max"), QStringLiteral("must be at least min (%1)").arg(d.min));
    } else if (name == "normal" || name == "lognormal") {
        d.kind = name == "normal" ? LengthDist::Kind::Normal : LengthDist::Kind::Lognormal;
        d.mean = positive("mean", false).value_or(1);
        d.std = positive("std", true).value_or(0);
        d.min = whole("min", false).value_or(1);
        d.max = whole("max", false).value_or(d.max);
        if (d.max < d.min)
            errors.emplace_back(field("max"), QStringLiteral("must be at least min (%1)").arg(d.min));
    } else {
        return fail(field("dist"),
            QStringLiteral("expected fixed, uniform, normal or lognormal, got \"%1\"")
                .arg(QString::fromStdString(name)));
    }
    for (const auto& item : value.items()) {
        const std::string& key = item.key();
        if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; }))
            errors.emplace_back(
                field(key.c_str()), QStringLiteral("unknown field for a %1 length").arg(QString::fromStdString(name)));
    }
    if (errors.size() != before)
        return std::nullopt;
    return d;
}

} // namespace ks
