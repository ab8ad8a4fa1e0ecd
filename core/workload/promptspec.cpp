#include "workload/promptspec.h"

#include <algorithm>
#include <limits>

namespace ks {

namespace {
using json = nlohmann::json;

bool knownKey(const std::string& key, std::initializer_list<const char*> known)
{
    return std::any_of(known.begin(), known.end(), [&](const char* k) { return key == k; });
}

std::optional<int> positiveInt(const json& object, const char* key, int minimum, const QString& path,
    std::vector<std::pair<QString, QString>>& errors)
{
    const auto it = object.find(key);
    const QString at = path + QLatin1Char('.') + QLatin1String(key);
    if (it == object.end()) {
        errors.emplace_back(at, QStringLiteral("required"));
        return std::nullopt;
    }
    if (!it->is_number_integer() || it->get<long long>() < minimum
        || it->get<long long>() > std::numeric_limits<int>::max()) {
        errors.emplace_back(at, QStringLiteral("expected a whole number of at least %1").arg(minimum));
        return std::nullopt;
    }
    return int(it->get<long long>());
}
} // namespace

std::optional<PromptSpec> parsePromptSpec(
    const json& value, const QString& path, std::vector<std::pair<QString, QString>>& errors)
{
    if (!value.is_object()) {
        errors.emplace_back(path, QStringLiteral("expected an object"));
        return std::nullopt;
    }
    const std::size_t before = errors.size();
    auto field = [&](const char* key) { return path + QLatin1Char('.') + QLatin1String(key); };
    PromptSpec spec;
    QString source = QStringLiteral("synthetic");
    if (const auto it = value.find("source"); it != value.end()) {
        if (it->is_string())
            source = QString::fromStdString(it->get<std::string>());
        if (!it->is_string() || (source != QLatin1String("synthetic") && source != QLatin1String("file")))
            errors.emplace_back(field("source"), QStringLiteral("expected \"synthetic\" or \"file\""));
    }
    spec.source = source == QLatin1String("file") ? PromptSpec::Source::File : PromptSpec::Source::Synthetic;
    const bool synthetic = spec.source == PromptSpec::Source::Synthetic;
    for (const auto& item : value.items()) {
        const std::string& key = item.key();
        const bool common = knownKey(key, { "source", "seed", "multi_turn", "tools", "tool_choice", "images" });
        const bool own
            = synthetic ? knownKey(key, { "input_tokens", "shared_prefix" }) : knownKey(key, { "path", "format" });
        if (!common && !own)
            errors.emplace_back(field(key.c_str()),
                QStringLiteral("unknown field for %1 prompts (known: %2)")
                    .arg(source,
                        synthetic
                            ? QStringLiteral(
                                "source, input_tokens, seed, shared_prefix, multi_turn, tools, tool_choice, images")
                            : QStringLiteral("source, path, format, seed, multi_turn, tools, tool_choice, images")));
    }
    if (const auto it = value.find("tools"); it != value.end()) {
        if (!it->is_array() || it->empty()
            || !std::all_of(it->begin(), it->end(), [](const auto& t) { return t.is_object(); }))
            errors.emplace_back(field("tools"), QStringLiteral("expected a non-empty list of tool objects"));
        else
            spec.toolsJson = it->dump();
    }
    if (const auto it = value.find("tool_choice"); it != value.end()) {
        if (!it->is_string() && !it->is_object())
            errors.emplace_back(
                field("tool_choice"), QStringLiteral("expected \"auto\", \"none\", \"required\" or an object"));
        else
            spec.toolChoiceJson = it->dump();
    }
    if (const auto it = value.find("images"); it != value.end())
        spec.images = parseImageSpec(*it, field("images"), errors);
    if (const auto it = value.find("seed"); it != value.end()) {
        if (!it->is_number_integer() || it->get<long long>() < 0)
            errors.emplace_back(field("seed"), QStringLiteral("expected a whole number >= 0"));
        else
            spec.seed = quint64(it->get<long long>());
    }
    if (const auto it = value.find("input_tokens"); it != value.end() && synthetic)
        spec.inputTokens = parseLengthDist(*it, field("input_tokens"), errors);
    if (const auto it = value.find("shared_prefix"); it != value.end() && synthetic) {
        const QString at = field("shared_prefix");
        if (!it->is_object()) {
            errors.emplace_back(at, QStringLiteral("expected {\"prefixes\": N, \"prefix_tokens\": T}"));
        } else {
            for (const auto& item : it->items())
                if (!knownKey(item.key(), { "prefixes", "prefix_tokens" }))
                    errors.emplace_back(at + QLatin1Char('.') + QString::fromStdString(item.key()),
                        QStringLiteral("unknown field (known: prefixes, prefix_tokens)"));
            spec.prefixes = positiveInt(*it, "prefixes", 1, at, errors).value_or(0);
            spec.prefixTokens = positiveInt(*it, "prefix_tokens", 1, at, errors).value_or(0);
        }
    }
    if (const auto it = value.find("multi_turn"); it != value.end()) {
        const QString at = field("multi_turn");
        if (!it->is_object()) {
            errors.emplace_back(at, QStringLiteral("expected {\"turns\": N}"));
        } else {
            for (const auto& item : it->items())
                if (item.key() != "turns")
                    errors.emplace_back(at + QLatin1Char('.') + QString::fromStdString(item.key()),
                        QStringLiteral("unknown field (known: turns)"));
            spec.turns = positiveInt(*it, "turns", 1, at, errors).value_or(1);
        }
    }
    if (!synthetic) {
        const auto pathIt = value.find("path");
        if (pathIt == value.end() || !pathIt->is_string() || pathIt->get_ref<const std::string&>().empty())
            errors.emplace_back(field("path"), QStringLiteral("required: the prompt file"));
        else
            spec.path = QString::fromStdString(pathIt->get<std::string>());
        const auto format = value.find("format");
        if (format == value.end() || !format->is_string() || (*format != "openai" && *format != "sharegpt"))
            errors.emplace_back(field("format"), QStringLiteral("required: \"openai\" or \"sharegpt\""));
        else
            spec.format = *format == "sharegpt" ? PromptDataset::Format::ShareGpt : PromptDataset::Format::OpenAi;
        if (errors.size() == before) {
            auto loaded = loadPromptDataset(spec.path, spec.format);
            if (auto* error = std::get_if<QString>(&loaded))
                errors.emplace_back(field("path"), *error);
            else
                spec.dataset = std::make_shared<const PromptDataset>(std::move(std::get<PromptDataset>(loaded)));
        }
    }
    if (errors.size() != before)
        return std::nullopt;
    return spec;
}

} // namespace ks
