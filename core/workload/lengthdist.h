#pragma once

#include <QString>

#include <nlohmann/json.hpp>

#include <optional>
#include <random>
#include <vector>

namespace ks {

/// A token count: a fixed number or a seeded distribution (docs/experiments.md,
/// "Prompts"). `normal` and `lognormal` take the mean and standard deviation of
/// the lengths themselves; every draw is rounded and clamped to [min, max].
struct LengthDist {
    enum class Kind { Fixed, Uniform, Normal, Lognormal };
    Kind kind = Kind::Fixed;
    int value = 128; ///< fixed
    double mean = 0;
    double std = 0;
    int min = 1;
    int max = 1 << 20;

    static LengthDist fixed(int n);
    bool isFixed() const { return kind == Kind::Fixed; }
    int draw(std::mt19937_64& rng) const;
    /// A number for a fixed length, else {"dist", ...}: what the run line records.
    nlohmann::json toJson() const;
};

/// Reads a length: a whole number >= 1, or {"dist": fixed|uniform|normal|lognormal,
/// ...}. Problems go to `errors` as (path, message).
std::optional<LengthDist> parseLengthDist(
    const nlohmann::json& value, const QString& path, std::vector<std::pair<QString, QString>>& errors);

} // namespace ks
