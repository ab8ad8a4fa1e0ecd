#include "compare/intervalnotes.h"

#include "compare/compareformat.h"
#include "compare/comparisonreader.h"

#include <QFileInfo>

#include <cmath>
#include <map>

namespace ks {

namespace {

const char* const kWithinRunNote = "within one run; run-to-run not measured: add repeats or calibrate";

bool knownMethod(const QString& method)
{
    return method == QLatin1String("within-run") || method == QLatin1String("calibrated")
        || method == QLatin1String("rounds");
}

// The looks of repeats that run until decided, read back from the confidence
// they were spread over (1 - 0.05 / looks, sequentialconfidence.h).
std::optional<int> looksOf(double confidence)
{
    if (confidence <= 0.95 + 1e-9 || confidence >= 1)
        return std::nullopt;
    const int looks = int(std::lround(0.05 / (1 - confidence)));
    if (looks < 2 || std::abs(1 - 0.05 / looks - confidence) > 1e-6)
        return std::nullopt;
    return looks;
}

QString citationText(const CalibrationCitation& calibration)
{
    return QStringLiteral("A/A calibration: %1 runs of %2, %3 (%4)")
        .arg(calibration.runs)
        .arg(calibration.config, calibration.date.left(10), QFileInfo(calibration.file).fileName());
}

QString statLabel(const CompareColumn& c)
{
    return QString::fromLatin1(c.title).remove(QStringLiteral(" ms"));
}

QString percent(double fraction)
{
    return QString::number(fraction * 100, 'g', 3) + QStringLiteral(" %");
}

QString differenceOf(const ComparedConfig& config)
{
    const std::optional<double> difference = config.roundsNeededFor;
    return percent(difference && *difference > 0 && std::isfinite(*difference) ? *difference : 0.05);
}

// The rounds already run (1 for a single run on a side).
int roundsRun(const ComparedConfig& config)
{
    return config.runToRun && config.runToRun->rounds >= 1 ? int(config.runToRun->rounds) : 1;
}

// "the 3 rounds run would already resolve a 5 % difference in X: any difference left there is likely smaller"
QString enoughText(const ComparedConfig& config, const QString& stats)
{
    return QStringLiteral("the %1 rounds run would already resolve a %2 difference%3: any difference left there is "
                          "likely smaller")
        .arg(roundsRun(config))
        .arg(differenceOf(config), stats.isEmpty() ? QString() : QStringLiteral(" in ") + stats);
}

} // namespace

QString intervalMethod(const ComparedConfig& config)
{
    QString method = config.runToRun ? config.runToRun->method : QString();
    for (const QString& grid : { config.ratioCiMethod, config.ciMethod })
        if (method.isEmpty())
            method = grid;
    return knownMethod(method) ? method : QString();
}

std::optional<bool> runToRunMeasured(const ComparedConfig& config)
{
    if (config.runToRun)
        return config.runToRun->measured;
    const QString method = intervalMethod(config);
    if (method.isEmpty())
        return std::nullopt;
    return method != QLatin1String("within-run");
}

double intervalConfidence(const ComparedConfig& config)
{
    const double c = config.runToRun ? config.runToRun->confidence : 0.95;
    return c > 0 && c < 1 ? c : 0.95;
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

QString intervalMethodText(const ComparedConfig& config)
{
    const QString method = intervalMethod(config);
    if (method.isEmpty())
        return {};
    const double confidence = intervalConfidence(config);
    const QString level = confidenceText(confidence);
    QString note = config.runToRun ? config.runToRun->note.trimmed() : QString();
    while (note.endsWith(QLatin1Char('.')))
        note.chop(1);
    // A quick first pass computed ratios only; its note says so (and what the intervals will rest on).
    if (config.runToRun && !config.runToRun->intervals)
        return note;
    if (method == QLatin1String("rounds")) {
        // Said here rather than taken from the note: the note explains the method, this names it.
        const QString kind
            = config.runToRun && !config.runToRun->paired ? QStringLiteral("unpaired") : QStringLiteral("paired");
        const QString across = config.runToRun
            ? QStringLiteral("across %1 %2 rounds").arg(config.runToRun->rounds).arg(kind)
            : QStringLiteral("across %1 rounds").arg(kind);
        if (const auto looks = looksOf(confidence))
            return QStringLiteral("intervals %1 at %2 per look, %3 looks (repeats until decided)")
                .arg(across, level)
                .arg(*looks);
        return QStringLiteral("%1 intervals %2").arg(level, across);
    }
    // The comparison's own sentence says it, with what kept a given calibration from applying.
    if (!note.isEmpty())
        return note;
    if (method == QLatin1String("calibrated"))
        return config.runToRun && config.runToRun->calibration
            ? QStringLiteral("%1 intervals with %2").arg(level, citationText(*config.runToRun->calibration))
            : QStringLiteral("%1 intervals with an A/A calibration").arg(level);
    return QStringLiteral("%1 intervals %2").arg(level, QLatin1String(kWithinRunNote));
}

QString unmeasuredDecisionText()
{
    return QStringLiteral("run-to-run not measured (one run each): this decision rests on one run's interval; add "
                          "repeats or a calibration");
}

std::optional<int> roundsNeeded(const ComparedConfig& config, LatencyMetric metric, LatencyStat stat)
{
    const std::optional<int>& n = config.stat(metric, stat).roundsNeeded;
    return n && *n >= 1 ? n : std::nullopt;
}

QString roundsNeededText(const ComparedConfig& config)
{
    std::map<int, QStringList> byRounds; // the same count for several statistics is said once
    QStringList enough; // undecided although the rounds run would see the difference: it is smaller
    for (const CompareColumn& c : kCompareColumns) {
        const auto metric = latencyMetricOf(c.key);
        const auto stat = c.stat ? latencyStatOf(c.stat) : std::nullopt;
        if (metric && stat)
            if (const auto n = roundsNeeded(config, *metric, *stat))
                (*n <= roundsRun(config) ? enough : byRounds[*n]) << statLabel(c);
    }
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

QString roundsNeededText(const ComparedConfig& config, LatencyMetric metric, LatencyStat stat)
{
    const auto n = roundsNeeded(config, metric, stat);
    if (!n)
        return {};
    return *n <= roundsRun(config)
        ? enoughText(config, QString())
        : QStringLiteral("about %1 paired rounds would resolve a %2 difference").arg(*n).arg(differenceOf(config));
}

QString steadyText(const ComparedConfig& config)
{
    if (!config.steady || config.steady->dropped <= 0)
        return {};
    const QString& method = config.steady->method;
    return QStringLiteral("dropped %1 of %2 requests as warm-up%3")
        .arg(config.steady->dropped)
        .arg(config.steady->requests)
        .arg(method.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(method));
}

bool isUnsettled(const ComparedArm& arm, const ComparedConfig& config)
{
    return (config.steady && !config.steady->settled) || arm.unsettled.contains(config.config);
}

QString unsettledText()
{
    return QStringLiteral("TTFT still moving at the end of the run: not steady; its intervals say little");
}

QString intervalLegend(const ComparedArm& arm)
{
    const bool anyMethod = std::any_of(arm.configs.begin(), arm.configs.end(),
        [](const ComparedConfig& config) { return !intervalMethod(config).isEmpty(); });
    return anyMethod ? QStringLiteral("[low-high] is the ratio's interval, made as each configuration's line says; * "
                                      "marks a ratio whose interval excludes 1 with the run-to-run spread measured "
                                      "(one run's interval alone never earns it)")
                     : QStringLiteral("[low-high] is the ratio's interval; * marks one that excludes 1");
}

QStringList intervalLines(const ComparedArm& arm, const QStringList& baselineRows)
{
    QStringList lines;
    for (const ComparedConfig& config : arm.configs) {
        if (config.config.isEmpty())
            continue;
        const bool isBaseline = config.config == arm.baseline || baselineRows.contains(config.config);
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
            lines << QStringLiteral("%1: %2.").arg(config.config, parts.join(QStringLiteral("; ")));
    }
    return lines;
}

// The overloads on JSON, for the readers not yet typed.

QString intervalMethod(const nlohmann::json& config)
{
    return intervalMethod(comparedConfigFromJson(config));
}

std::optional<bool> runToRunMeasured(const nlohmann::json& config)
{
    return runToRunMeasured(comparedConfigFromJson(config));
}

double intervalConfidence(const nlohmann::json& config)
{
    return intervalConfidence(comparedConfigFromJson(config));
}

QString intervalMethodText(const nlohmann::json& config)
{
    return intervalMethodText(comparedConfigFromJson(config));
}

std::optional<int> roundsNeeded(const nlohmann::json& config, const char* key, const char* stat)
{
    const auto metric = latencyMetricOf(key);
    const auto s = latencyStatOf(stat);
    return metric && s ? roundsNeeded(comparedConfigFromJson(config), *metric, *s) : std::nullopt;
}

QString roundsNeededText(const nlohmann::json& config)
{
    return roundsNeededText(comparedConfigFromJson(config));
}

QString roundsNeededText(const nlohmann::json& config, const char* key, const char* stat)
{
    const auto metric = latencyMetricOf(key);
    const auto s = latencyStatOf(stat);
    return metric && s ? roundsNeededText(comparedConfigFromJson(config), *metric, *s) : QString();
}

QString steadyText(const nlohmann::json& config)
{
    return steadyText(comparedConfigFromJson(config));
}

bool isUnsettled(const nlohmann::json& arm, const nlohmann::json& config)
{
    ComparedArm unsettled; // only the arm's list: reading the whole arm for each configuration would be quadratic
    if (arm.is_object() && arm.value("unsettled", nlohmann::json()).is_array())
        for (const nlohmann::json& name : arm["unsettled"])
            if (name.is_string())
                unsettled.unsettled << QString::fromStdString(name.get<std::string>());
    return isUnsettled(unsettled, comparedConfigFromJson(config));
}

QString intervalLegend(const nlohmann::json& arm)
{
    return intervalLegend(comparedArmFromJson(arm));
}

QStringList intervalLines(const nlohmann::json& arm)
{
    // A sweep's steps table marks each step's baseline row (comparepage.cpp).
    QStringList baselineRows;
    if (arm.is_object() && arm.value("configs", nlohmann::json()).is_array())
        for (const nlohmann::json& config : arm["configs"])
            if (config.is_object() && config.value("baseline_row", false)
                && config.value("config", nlohmann::json()).is_string())
                baselineRows << QString::fromStdString(config["config"].get<std::string>());
    return intervalLines(comparedArmFromJson(arm), baselineRows);
}

} // namespace ks
