#include "compare/intervalnotes.h"

#include "compare/compareformat.h"

#include <QFileInfo>

#include <cmath>
#include <map>

namespace ks {

namespace {

using json = nlohmann::json;

const char* const kWithinRunNote = "within one run; run-to-run not measured: add repeats or calibrate";

const json& runToRun(const json& config)
{
    static const json none;
    const auto it = config.is_object() ? config.find("run_to_run") : config.end();
    return config.is_object() && it != config.end() && it->is_object() ? *it : none;
}

QString textAt(const json& object, const char* key)
{
    const auto it = object.is_object() ? object.find(key) : object.end();
    return object.is_object() && it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                                                       : QString();
}

std::optional<double> numberAt(const json& object, const char* key)
{
    const auto it = object.is_object() ? object.find(key) : object.end();
    if (!object.is_object() || it == object.end() || !it->is_number() || !std::isfinite(it->get<double>()))
        return std::nullopt;
    return it->get<double>();
}

bool knownMethod(const QString& method)
{
    return method == QLatin1String("within-run") || method == QLatin1String("calibrated")
        || method == QLatin1String("rounds");
}

// The looks of repeats that run until decided: given, or read back from the
// confidence they were spread over (1 - 0.05 / looks, sequentialconfidence.h).
std::optional<int> looksOf(const json& r2r, double confidence)
{
    if (const auto looks = numberAt(r2r, "looks"); looks && *looks > 1)
        return int(*looks);
    if (confidence <= 0.95 + 1e-9 || confidence >= 1)
        return std::nullopt;
    const int looks = int(std::lround(0.05 / (1 - confidence)));
    if (looks < 2 || std::abs(1 - 0.05 / looks - confidence) > 1e-6)
        return std::nullopt;
    return looks;
}

QString calibrationCitation(const json& calibration)
{
    const auto runs = numberAt(calibration, "runs");
    const QString file = QFileInfo(textAt(calibration, "file")).fileName();
    return QStringLiteral("A/A calibration: %1 runs of %2, %3 (%4)")
        .arg(runs ? QString::number(int(*runs)) : QStringLiteral("?"), textAt(calibration, "config"),
            textAt(calibration, "date").left(10), file);
}

QString statLabel(const CompareColumn& c)
{
    return QString::fromLatin1(c.title).remove(QStringLiteral(" ms"));
}

QString percent(double fraction)
{
    return QString::number(fraction * 100, 'g', 3) + QStringLiteral(" %");
}

} // namespace

QString intervalMethod(const json& config)
{
    QString method = textAt(runToRun(config), "method");
    for (const char* key : { "ratio_ci95", "ci95" })
        if (method.isEmpty() && config.is_object() && config.contains(key))
            method = textAt(config[key], "method");
    return knownMethod(method) ? method : QString();
}

std::optional<bool> runToRunMeasured(const json& config)
{
    const json& r2r = runToRun(config);
    const auto it = r2r.find("measured");
    if (r2r.is_object() && it != r2r.end() && it->is_boolean())
        return it->get<bool>();
    const QString method = intervalMethod(config);
    if (method.isEmpty())
        return std::nullopt;
    return method != QLatin1String("within-run");
}

double intervalConfidence(const json& config)
{
    const auto c = numberAt(runToRun(config), "confidence");
    return c && *c > 0 && *c < 1 ? *c : 0.95;
}

QString confidenceText(double confidence)
{
    const double p = confidence * 100;
    if (std::abs(p - std::round(p)) < 1e-9)
        return QString::number(std::lround(p)) + QStringLiteral(" %");
    int decimals = 1; // 99.95 % is not 100.0 %
    while (decimals < 4 && QString::number(p, 'f', decimals).toDouble() >= 100)
        ++decimals;
    return QString::number(p, 'f', decimals) + QStringLiteral(" %");
}

QString intervalMethodText(const json& config)
{
    const QString method = intervalMethod(config);
    if (method.isEmpty())
        return {};
    const json& r2r = runToRun(config);
    const double confidence = intervalConfidence(config);
    const QString level = confidenceText(confidence);
    QString note = textAt(r2r, "note").trimmed();
    while (note.endsWith(QLatin1Char('.')))
        note.chop(1);
    if (method == QLatin1String("rounds")) {
        // Said here rather than taken from the note: the note explains the method, this names it.
        const auto rounds = numberAt(r2r, "rounds");
        const QString kind
            = note.contains(QLatin1String(" unpaired ")) ? QStringLiteral("unpaired") : QStringLiteral("paired");
        const QString across = rounds ? QStringLiteral("across %1 %2 rounds").arg(int(*rounds)).arg(kind)
                                      : QStringLiteral("across %1 rounds").arg(kind);
        if (const auto looks = looksOf(r2r, confidence))
            return QStringLiteral("intervals %1 at %2 per look, %3 looks (repeats until decided)")
                .arg(across, level)
                .arg(*looks);
        return QStringLiteral("%1 intervals %2").arg(level, across);
    }
    // The comparison's own sentence says it, with what kept a given calibration from applying.
    if (!note.isEmpty())
        return note;
    if (method == QLatin1String("calibrated")) {
        const json calibration = r2r.value("calibration", json());
        return calibration.is_object()
            ? QStringLiteral("%1 intervals with %2").arg(level, calibrationCitation(calibration))
            : QStringLiteral("%1 intervals with an A/A calibration").arg(level);
    }
    return QStringLiteral("%1 intervals %2").arg(level, QLatin1String(kWithinRunNote));
}

QString unmeasuredDecisionText()
{
    return QStringLiteral("run-to-run not measured (one run each): this decision rests on one run's interval; add "
                          "repeats or a calibration");
}

std::optional<int> roundsNeeded(const json& config, const char* key, const char* stat)
{
    const auto needed = config.is_object() ? config.find("rounds_needed") : config.end();
    if (!config.is_object() || needed == config.end() || !needed->is_object())
        return std::nullopt;
    const auto metric = needed->find(key);
    if (metric == needed->end() || !metric->is_object())
        return std::nullopt;
    const auto n = numberAt(*metric, stat);
    return n && *n >= 1 ? std::optional<int>(int(std::ceil(*n))) : std::nullopt;
}

namespace {

QString differenceOf(const json& config)
{
    const json needed = config.value("rounds_needed", json::object());
    const auto difference = numberAt(needed, "for");
    return percent(difference && *difference > 0 ? *difference : 0.05);
}

} // namespace

namespace {

// The rounds already run (1 for a single run on a side).
int roundsRun(const json& config)
{
    const auto rounds = numberAt(runToRun(config), "rounds");
    return rounds && *rounds >= 1 ? int(*rounds) : 1;
}

// "the 3 rounds run would already resolve a 5 % difference in X: any difference left there is likely smaller"
QString enoughText(const json& config, const QString& stats)
{
    return QStringLiteral("the %1 rounds run would already resolve a %2 difference%3: any difference left there is "
                          "likely smaller")
        .arg(roundsRun(config))
        .arg(differenceOf(config), stats.isEmpty() ? QString() : QStringLiteral(" in ") + stats);
}

} // namespace

QString roundsNeededText(const json& config)
{
    std::map<int, QStringList> byRounds; // the same count for several statistics is said once
    QStringList enough; // undecided although the rounds run would see the difference: it is smaller
    for (const CompareColumn& c : kCompareColumns)
        if (c.stat)
            if (const auto n = roundsNeeded(config, c.key, c.stat))
                (*n <= roundsRun(config) ? enough : byRounds[*n]) << statLabel(c);
    QStringList parts;
    for (const auto& [n, stats] : byRounds)
        parts << (parts.isEmpty() ? QStringLiteral("about %1 paired rounds would resolve a %2 difference in %3")
                                        .arg(n)
                                        .arg(differenceOf(config), stats.join(QStringLiteral(" and ")))
                                  : QStringLiteral("%1 in %2").arg(n).arg(stats.join(QStringLiteral(" and "))));
    QString text = parts.join(QStringLiteral(", "));
    if (!enough.isEmpty())
        text += (text.isEmpty() ? QString() : QStringLiteral("; "))
            + enoughText(config, enough.join(QStringLiteral(" and ")));
    return text;
}

QString roundsNeededText(const json& config, const char* key, const char* stat)
{
    const auto n = roundsNeeded(config, key, stat);
    if (!n)
        return {};
    return *n <= roundsRun(config)
        ? enoughText(config, QString())
        : QStringLiteral("about %1 paired rounds would resolve a %2 difference").arg(*n).arg(differenceOf(config));
}

QString steadyText(const json& config)
{
    const json steady = config.is_object() ? config.value("steady", json()) : json();
    const auto dropped = numberAt(steady, "dropped");
    const auto requests = numberAt(steady, "requests");
    if (!dropped || !requests || *dropped <= 0)
        return {};
    const QString method = textAt(steady, "method");
    return QStringLiteral("dropped %1 of %2 requests as warm-up%3")
        .arg(qint64(*dropped))
        .arg(qint64(*requests))
        .arg(method.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(method));
}

bool isUnsettled(const json& arm, const json& config)
{
    const json steady = config.is_object() ? config.value("steady", json()) : json();
    if (steady.is_object() && steady.value("settled", json()) == json(false))
        return true;
    const json label = config.is_object() ? config.value("config", json()) : json();
    const json unsettled = arm.is_object() ? arm.value("unsettled", json()) : json();
    if (!unsettled.is_array() || !label.is_string())
        return false;
    for (const json& name : unsettled)
        if (name == label)
            return true;
    return false;
}

QString unsettledText()
{
    return QStringLiteral("TTFT still moving at the end of the run: not steady; its intervals say little");
}

QString intervalLegend(const json& arm)
{
    bool anyMethod = false;
    for (const json& config : arm.value("configs", json::array()))
        anyMethod = anyMethod || !intervalMethod(config).isEmpty();
    return anyMethod ? QStringLiteral("[low-high] is the ratio's interval, made as each configuration's line says; * "
                                      "marks a ratio whose interval excludes 1 with the run-to-run spread measured "
                                      "(one run's interval alone never earns it)")
                     : QStringLiteral("[low-high] is the ratio's interval; * marks one that excludes 1");
}

QStringList intervalLines(const json& arm)
{
    QStringList lines;
    const json baseline = arm.value("baseline", json());
    for (const json& config : arm.value("configs", json::array())) {
        if (!config.is_object() || !config.value("config", json()).is_string())
            continue;
        const bool isBaseline = config["config"] == baseline || config.value("baseline_row", false);
        QStringList parts;
        if (!isBaseline)
            parts << intervalMethodText(config);
        parts << steadyText(config);
        if (!isBaseline)
            parts << roundsNeededText(config);
        if (isUnsettled(arm, config))
            parts << unsettledText();
        parts.removeAll(QString());
        if (!parts.isEmpty())
            lines << QStringLiteral("%1: %2.").arg(
                QString::fromStdString(config["config"].get<std::string>()), parts.join(QStringLiteral("; ")));
    }
    return lines;
}

} // namespace ks
