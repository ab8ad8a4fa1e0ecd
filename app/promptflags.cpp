#include "promptflags.h"

#include "workload/promptspec.h"

namespace {

using json = nlohmann::json;

// "uniform:MIN:MAX", "normal:MEAN:STD" or "lognormal:MEAN:STD" as a length object.
std::optional<json> distFromText(const QString& text)
{
    const QStringList parts = text.split(QLatin1Char(':'));
    if (parts.size() != 3)
        return std::nullopt;
    bool okA = false, okB = false;
    const double a = parts[1].toDouble(&okA), b = parts[2].toDouble(&okB);
    if (!okA || !okB)
        return std::nullopt;
    const std::string kind = parts[0].toStdString();
    if (kind == "uniform")
        return json { { "dist", kind }, { "min", (long long)a }, { "max", (long long)b } };
    if (kind == "normal" || kind == "lognormal")
        return json { { "dist", kind }, { "mean", a }, { "std", b } };
    return std::nullopt;
}

QString joinErrors(const std::vector<std::pair<QString, QString>>& errors)
{
    QStringList out;
    for (const auto& [path, message] : errors)
        out << path + QStringLiteral(": ") + message;
    return out.join(QStringLiteral("; "));
}

} // namespace

void addPromptFlags(QCommandLineParser& parser)
{
    parser.addOption({ QStringLiteral("input-dist"),
        QStringLiteral("Synthetic prompt lengths drawn per request: uniform:MIN:MAX, normal:MEAN:STD or "
                       "lognormal:MEAN:STD (seeded by --seed)."),
        QStringLiteral("D") });
    parser.addOption({ QStringLiteral("max-tokens-dist"),
        QStringLiteral("max_tokens drawn per request, in the same forms as --input-dist."), QStringLiteral("D") });
    parser.addOption({ QStringLiteral("shared-prefix"),
        QStringLiteral("Every synthetic prompt starts with one of N fixed texts of T tokens (a system prompt)."),
        QStringLiteral("N:T") });
    parser.addOption({ QStringLiteral("prompt-file"),
        QStringLiteral("Prompts from a file of OpenAI messages or ShareGPT conversations: JSON Lines, or one JSON "
                       "array (ShareGPT as published)."),
        QStringLiteral("FILE") });
    parser.addOption({ QStringLiteral("prompt-format"), QStringLiteral("openai or sharegpt (for --prompt-file)."),
        QStringLiteral("F"), QStringLiteral("openai") });
    parser.addOption({ QStringLiteral("turns"),
        QStringLiteral("Multi-turn sessions of N turns, each carrying the server's earlier replies; sessions fill "
                       "the --concurrency slots."),
        QStringLiteral("N") });
}

QString readPromptFlags(const QCommandLineParser& p, ks::LoadSpec& spec, json* promptsJson)
{
    auto isSet = [&](const char* name) { return p.isSet(QString::fromLatin1(name)); };
    auto value = [&](const char* name) { return p.value(QString::fromLatin1(name)); };
    json prompts = { { "seed", spec.seed } };
    if (isSet("prompt-file")) {
        if (isSet("input-dist") || isSet("shared-prefix"))
            return QStringLiteral(
                "--prompt-file excludes --input-dist and --shared-prefix: the file gives the prompts");
        prompts["source"] = "file";
        prompts["path"] = value("prompt-file").toStdString();
        prompts["format"] = value("prompt-format").toStdString();
    } else {
        prompts["source"] = "synthetic";
        prompts["input_tokens"] = spec.inputTokens;
        if (isSet("input-dist")) {
            const auto dist = distFromText(value("input-dist"));
            if (!dist)
                return QStringLiteral("--input-dist: expected uniform:MIN:MAX, normal:MEAN:STD or lognormal:MEAN:STD, "
                                      "got '%1'")
                    .arg(value("input-dist"));
            prompts["input_tokens"] = *dist;
        }
        if (isSet("shared-prefix")) {
            const QStringList parts = value("shared-prefix").split(QLatin1Char(':'));
            bool okN = false, okT = false;
            const int n = parts.size() == 2 ? parts[0].toInt(&okN) : 0;
            const int t = parts.size() == 2 ? parts[1].toInt(&okT) : 0;
            if (!okN || !okT)
                return QStringLiteral("--shared-prefix: expected N:TOKENS, got '%1'").arg(value("shared-prefix"));
            prompts["shared_prefix"] = { { "prefixes", n }, { "prefix_tokens", t } };
        }
    }
    if (isSet("turns")) {
        bool ok = false;
        const int turns = value("turns").toInt(&ok);
        if (!ok)
            return QStringLiteral("--turns: expected a whole number, got '%1'").arg(value("turns"));
        prompts["multi_turn"] = { { "turns", turns } };
    }
    std::vector<std::pair<QString, QString>> errors;
    const auto parsed = ks::parsePromptSpec(prompts, QStringLiteral("prompts"), errors);
    if (!parsed)
        return joinErrors(errors);
    spec.prompts = *parsed;
    if (spec.prompts.inputTokens && spec.prompts.inputTokens->isFixed())
        spec.prompts.inputTokens.reset();
    spec.prompts.seed.reset(); // --seed is the load's seed already
    if (isSet("max-tokens-dist")) {
        const auto dist = distFromText(value("max-tokens-dist"));
        if (!dist)
            return QStringLiteral("--max-tokens-dist: expected uniform:MIN:MAX, normal:MEAN:STD or lognormal:MEAN:STD, "
                                  "got '%1'")
                .arg(value("max-tokens-dist"));
        spec.maxTokensDist = ks::parseLengthDist(*dist, QStringLiteral("--max-tokens-dist"), errors);
        if (!spec.maxTokensDist)
            return joinErrors(errors);
    }
    *promptsJson = prompts;
    return spec.validate();
}
