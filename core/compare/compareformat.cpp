#include "compare/compareformat.h"

#include "compare/comparisonreader.h"
#include "compare/comparisonwriter.h"
#include "compare/diagnosis.h"
#include "compare/intervalnotes.h"
#include "compare/reasoningfigures.h"
#include "compare/sweepcompare.h"
#include "metrics/runsummary.h"
#include "metrics/ttftsplit.h"

#include <QStringList>

namespace ks {

const CompareColumn kCompareColumns[8] = {
    { "TTFT p50 ms", "ttft_ms", "p50" },
    { "TTFT p99 ms", "ttft_ms", "p99" },
    { "TPOT p50 ms", "tpot_ms", "p50" },
    { "ITL p50 ms", "itl_ms", "p50" },
    { "E2E p50 ms", "e2e_ms", "p50" },
    { "req/s", "req_per_s", nullptr },
    { "tok/s", "out_tok_per_s", nullptr },
    { "goodput req/s", "goodput_req_per_s", nullptr },
};

namespace {

std::optional<LatencyMetric> metricOf(const CompareColumn& c)
{
    return c.stat ? latencyMetricOf(c.key) : std::nullopt;
}

std::optional<LatencyStat> statOf(const CompareColumn& c)
{
    return c.stat ? latencyStatOf(c.stat) : std::nullopt;
}

// A rate column's figure and ratio.
std::pair<std::optional<double>, std::optional<double>> rateOf(const ComparedConfig& config, const CompareColumn& c)
{
    const std::string_view key = c.key;
    if (key == "req_per_s")
        return { config.reqPerS, config.reqPerSRatio };
    if (key == "out_tok_per_s")
        return { config.outTokPerS, config.outTokPerSRatio };
    if (key == "goodput_req_per_s")
        return { config.goodputReqPerS, config.goodputRatio };
    return {};
}

} // namespace

bool hasCompareValue(const ComparedConfig& config, const CompareColumn& c)
{
    if (!c.stat)
        return rateOf(config, c).first.has_value();
    const auto metric = metricOf(c);
    const auto stat = statOf(c);
    return metric && stat && config.value(*metric, *stat).has_value();
}

double compareValue(const ComparedConfig& config, const CompareColumn& c)
{
    if (!c.stat)
        return rateOf(config, c).first.value_or(0);
    const auto metric = metricOf(c);
    const auto stat = statOf(c);
    // summary-only imports may lack a statistic their tool does not report
    return metric && stat ? config.value(*metric, *stat).value_or(0) : 0;
}

QString compareCell(const ComparedConfig& config, const CompareColumn& c, bool isBaseline)
{
    if (!hasCompareValue(config, c))
        return QStringLiteral("n/a");
    QString text = QString::number(compareValue(config, c), 'f', 1);
    if (isBaseline)
        return text;
    const auto metric = metricOf(c);
    const auto stat = statOf(c);
    const ComparedStat* cell = metric && stat ? &config.stat(*metric, *stat) : nullptr;
    const std::optional<double> ratio = cell ? cell->ratio : rateOf(config, c).second;
    if (!ratio)
        return text;
    text += QStringLiteral(" (%1x").arg(*ratio, 0, 'f', 2);
    if (cell && cell->ratioCi) {
        text += QStringLiteral(" [%1-%2]").arg(cell->ratioCi->low, 0, 'f', 2).arg(cell->ratioCi->high, 0, 'f', 2);
        if (cell->significant.value_or(false))
            text += QLatin1Char('*');
    }
    return text + QLatin1Char(')');
}

bool hasCompareValue(const nlohmann::json& config, const CompareColumn& c)
{
    return hasCompareValue(comparedConfigFromJson(config), c);
}

double compareValue(const nlohmann::json& config, const CompareColumn& c)
{
    return compareValue(comparedConfigFromJson(config), c);
}

QString compareCell(const nlohmann::json& config, const CompareColumn& c, bool isBaseline)
{
    return compareCell(comparedConfigFromJson(config), c, isBaseline);
}

namespace {

QString number(const nlohmann::json& v, int decimals)
{
    return v.is_number() ? QString::number(v.get<double>(), 'f', decimals) : QStringLiteral("n/a");
}

// A sweep's own entry: its `sweep` object, passed on as compare made it (docs/formats.md, "Sweeps").
QString sweepMarkdown(const ComparedArm& arm)
{
    const nlohmann::json& sweep = arm.sweep;
    const bool rate = sweep.value("over", std::string("rate")) == "rate";
    QString out = QStringLiteral("## %1 (sweep over %2)\n\n")
                      .arg(arm.arm, rate ? QStringLiteral("rate") : QStringLiteral("concurrency"));
    out += sweepCapacityLine(arm) + QStringLiteral(".\n\n");
    out += QStringLiteral("| config | step | achieved req/s | TTFT p50 ms | TTFT p99 ms | TPOT p50 ms | TPOT p99 ms | "
                          "verdict |\n|---|---|---|---|---|---|---|---|\n");
    const nlohmann::json points = sweep.value("points", nlohmann::json::object());
    const nlohmann::json configs = sweep.value("configs", nlohmann::json::array());
    for (const auto& config : configs) {
        const nlohmann::json list = points.value(config.get<std::string>(), nlohmann::json::array());
        for (const auto& p : list) {
            const std::string run = p.value("run", std::string());
            const QString verdict = !p.value("kept_up", true) ? QStringLiteral("fell behind")
                : p.value("meets_slo", true)                  ? QStringLiteral("meets SLO")
                                                              : QStringLiteral("breaks SLO");
            out += QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 | %8 |\n")
                       .arg(QString::fromStdString(config.get<std::string>()),
                           QString::fromStdString(run.substr(run.find('/') + 1)),
                           number(p.value("achieved_req_per_s", nlohmann::json()), 2),
                           number(p.value("ttft_p50_ms", nlohmann::json()), 1),
                           number(p.value("ttft_p99_ms", nlohmann::json()), 1),
                           number(p.value("tpot_p50_ms", nlohmann::json()), 1),
                           number(p.value("tpot_p99_ms", nlohmann::json()), 1), verdict);
        }
    }
    out += QStringLiteral("\nCapacity: the highest step whose every repeat met the SLO at p99 and, for rate steps, "
                          "completed at least 90 % of the rate its schedule offered.\n");
    const nlohmann::json stops = sweep.value("stop", nlohmann::json::object());
    for (const auto& [config, reason] : stops.items())
        out += QStringLiteral("%1 stopped early: %2.\n")
                   .arg(QString::fromStdString(config),
                       reason.is_string() ? QString::fromStdString(reason.get<std::string>()) : QString());
    return out + QLatin1Char('\n');
}

// Where TTFT went, per configuration, from the server's own figures
// (docs/metrics.md): each line names its source; a configuration without one
// says so instead of showing nothing, or a guess.
QString ttftSplitMarkdown(const ComparedArm& arm)
{
    QString out;
    bool anySplit = false;
    for (const ComparedConfig& config : arm.configs) {
        const nlohmann::json& split = config.ttftSplitMs;
        if (!split.is_object()) {
            out += QStringLiteral("- %1: no split: %2\n").arg(config.config, noTtftSplitReason());
            continue;
        }
        anySplit = true;
        out += QStringLiteral("- %1, from %2 (%3 requests): queue %4; prefill %5; rest %6 ms\n")
                   .arg(config.config, ttftSplitSource(split), ttftSplitRequestsText(split),
                       ttftSplitPartText(split, "queue"), ttftSplitPartText(split, "prefill"),
                       ttftSplitPartText(split, "rest"));
    }
    if (!anySplit && !arm.configs.empty())
        return QStringLiteral("TTFT split: none: %1.\n").arg(noTtftSplitReason());
    return QStringLiteral("TTFT split (queue, prefill, rest), from the server's own figures as named on each line; "
                          "llamacpp-timings: per request; vllm-histograms: exact means, percentiles known only to "
                          "vLLM's buckets:\n")
        + out;
}

// The images each configuration's requests carried, when any did.
QString imagesMarkdown(const ComparedArm& arm)
{
    QStringList parts;
    for (const ComparedConfig& config : arm.configs) {
        const nlohmann::json& images = config.images;
        if (images.is_object())
            parts << QStringLiteral("%1 %2 (p50 %3 a request, %4 KB p50 / %5 KB p99 a request)")
                         .arg(config.config, number(images.value("total", nlohmann::json()), 0),
                             number(images.value("per_request_p50", nlohmann::json()), 0),
                             number(images.value("bytes_p50", 0.0) / 1024, 0),
                             number(images.value("bytes_p99", 0.0) / 1024, 0));
    }
    return parts.isEmpty() ? QString() : QStringLiteral("Images: %1.\n").arg(parts.join(QStringLiteral("; ")));
}

QString repeatsMarkdown(const ComparedArm& arm)
{
    QString out;
    for (const ComparedConfig& config : arm.configs)
        if (config.repeats)
            out += QStringLiteral("Repeats of %1 (%2 runs): %3.\n")
                       .arg(config.config)
                       .arg(config.repeats->n)
                       .arg(repeatsSpreadText(*config.repeats));
    return out;
}

// "(gentle)" with its own definition beside the peak-waiting column: a short
// opening burst can queue a few scrapes and still leave the arm gentle.
QString gentleMark(const ComparedConfig& config)
{
    if (!config.gentle)
        return {};
    return config.waitingShare
        ? QStringLiteral(" (gentle: waiting in %1 % of scrapes)").arg(*config.waitingShare * 100, 0, 'f', 0)
        : QStringLiteral(" (gentle)");
}

} // namespace

QString repeatsSpreadText(const RepeatFigures& repeats)
{
    QStringList parts;
    for (const auto& [metric, label] :
        { std::pair { LatencyMetric::Ttft, "TTFT p50" }, std::pair { LatencyMetric::Tpot, "TPOT p50" } }) {
        const std::optional<RoundsSpread>& s = repeats.spread(metric, LatencyStat::P50);
        if (!s)
            continue;
        QString part = QStringLiteral("%1 mean %2 ms, CV %3 %")
                           .arg(QLatin1String(label), QString::number(s->mean, 'f', 1))
                           .arg(s->cv * 100, 0, 'f', 1);
        if (s->tCi95)
            part += QStringLiteral(", t-interval [%1, %2]")
                        .arg(QString::number(s->tCi95->low, 'f', 1), QString::number(s->tCi95->high, 'f', 1));
        parts << part;
    }
    return parts.join(QStringLiteral("; "));
}

QString specDecodeLine(const ComparedArm& arm)
{
    QStringList parts;
    bool any = false;
    for (const ComparedConfig& config : arm.configs) {
        QStringList figures;
        if (config.specAcceptance)
            figures << QStringLiteral("acceptance %1 %").arg(*config.specAcceptance * 100, 0, 'f', 1);
        if (config.specMeanAccepted)
            figures << QStringLiteral("mean accepted length %1").arg(*config.specMeanAccepted, 0, 'f', 2);
        any = any || !figures.isEmpty();
        parts << config.config + QLatin1Char(' ')
                + (figures.isEmpty() ? QStringLiteral("none") : figures.join(QStringLiteral(", ")));
    }
    return any ? QStringLiteral("Speculative decoding (the server's counters): ") + parts.join(QStringLiteral("; "))
               : QString();
}

QString specDecodeLine(const nlohmann::json& arm)
{
    return specDecodeLine(comparedArmFromJson(arm));
}

QString compareMarkdown(const Comparison& comparison)
{
    QString out;
    for (const ComparedArm& arm : comparison) {
        if (arm.isSweep()) {
            out += sweepMarkdown(arm);
            continue;
        }
        out += QStringLiteral("## %1 (baseline %2)\n\n").arg(arm.arm, arm.baseline);
        QStringList header { QStringLiteral("config") };
        for (const CompareColumn& c : kCompareColumns)
            header << QString::fromLatin1(c.title);
        header << QStringLiteral("errors") << QStringLiteral("peak waiting");
        out += QStringLiteral("| %1 |\n|%2\n")
                   .arg(header.join(QStringLiteral(" | ")), QStringLiteral("---|").repeated(header.size()));
        for (const ComparedConfig& config : arm.configs) {
            const bool isBaseline = config.config == arm.baseline;
            QStringList row { config.config + gentleMark(config)
                + (config.workloadDiffers.value_or(false) ? QStringLiteral(" (different workload)") : QString()) };
            for (const CompareColumn& c : kCompareColumns)
                row << compareCell(config, c, isBaseline);
            row << QStringLiteral("%1 (%2 %)").arg(config.errors).arg(config.errorRate * 100, 0, 'f', 1);
            row << (config.maxWaiting ? QString::number(*config.maxWaiting) : QStringLiteral("n/a"));
            out += QStringLiteral("| %1 |\n").arg(row.join(QStringLiteral(" | ")));
        }
        out += QStringLiteral("\nRatios are against %1; %2.\n").arg(arm.baseline, intervalLegend(arm));
        for (const QString& line : intervalLines(arm))
            out += line + QLatin1Char('\n');
        if (const QStringList bounds = arm.slo ? sloBounds(*arm.slo) : QStringList(); !bounds.isEmpty())
            out += QStringLiteral("Goodput counts requests meeting %1.\n").arg(bounds.join(QStringLiteral(" and ")));
        else
            out += QStringLiteral("No SLO set: goodput equals throughput.\n");
        for (const QString& line : diagnosisLines(arm))
            out += line + QLatin1Char('\n');
        out += reasoningMarkdown(arm);
        if (const QString spec = specDecodeLine(arm); !spec.isEmpty())
            out += spec + QStringLiteral(".\n");
        out += ttftSplitMarkdown(arm) + imagesMarkdown(arm) + repeatsMarkdown(arm);
        if (arm.note)
            out += QStringLiteral("Note: %1.\n").arg(*arm.note);
        if (arm.warning)
            out += QStringLiteral("WARNING: %1\n").arg(*arm.warning);
        out += QLatin1Char('\n');
    }
    return out;
}

namespace {

// The columns after `significant`: how the row's interval was made, whether it
// measured the run-to-run spread, and the rounds an undecided ratio would need.
std::string csvTail(const ComparedConfig& config, const char* key, const char* stat, bool hasInterval)
{
    if (!hasInterval)
        return ",,,\n";
    const std::optional<bool> measured = runToRunMeasured(config);
    const auto metric = latencyMetricOf(key);
    const auto s = latencyStatOf(stat);
    const std::optional<int> rounds = metric && s ? roundsNeeded(config, *metric, *s) : std::nullopt;
    return ',' + intervalMethod(config).toStdString() + ',' + (measured ? (*measured ? "true" : "false") : "") + ','
        + (rounds ? std::to_string(*rounds) : std::string()) + '\n';
}

// Rows written elsewhere (reasoning figures) get the new columns empty.
QString withEmptyTail(QString rows)
{
    return rows.replace(QLatin1Char('\n'), QStringLiteral(",,,\n"));
}

// A rate column and its ratio; error_rate has none.
struct RateRow {
    const char* key;
    double ComparedConfig::*value;
    std::optional<double> ComparedConfig::*ratio;
};
const RateRow kRateRows[] = { { "req_per_s", &ComparedConfig::reqPerS, &ComparedConfig::reqPerSRatio },
    { "out_tok_per_s", &ComparedConfig::outTokPerS, &ComparedConfig::outTokPerSRatio },
    { "goodput_req_per_s", &ComparedConfig::goodputReqPerS, &ComparedConfig::goodputRatio },
    { "error_rate", &ComparedConfig::errorRate, nullptr } };

} // namespace

QString compareCsv(const Comparison& comparison)
{
    QString out;
    out += QStringLiteral("arm,config,metric,stat,value,ratio,ratio_low,ratio_high,significant,method,"
                          "run_to_run_measured,rounds_needed\n");
    for (const ComparedArm& arm : comparison) {
        const std::string armName = arm.arm.toStdString();
        if (arm.isSweep()) {
            const nlohmann::json capacities = arm.sweep.value("capacity", nlohmann::json::object());
            for (const auto& [config, capacity] : capacities.items())
                out += QString::asprintf("%s,%s,capacity,,%s,,,,,,,\n", armName.c_str(), config.c_str(),
                    capacity.is_number() ? qPrintable(QString::number(capacity.get<double>())) : "");
        }
        for (const ComparedConfig& config : arm.configs) {
            // A configuration that ran another workload keeps the mark in every row that names it.
            const std::string prefix = armName + ',' + config.config.toStdString()
                + (config.workloadDiffers.value_or(false) ? " (different workload)" : "") + ',';
            for (LatencyMetric metric : kLatencyMetrics)
                for (LatencyStat stat : kLatencyStats) {
                    const std::optional<double> value = config.value(metric, stat);
                    if (!value)
                        continue; // no such latency, or a summary-only import whose tool does not report it
                    const ComparedStat& cell = config.stat(metric, stat);
                    out += QString::asprintf(
                        "%s%s,%s,%.4f,", prefix.c_str(), latencyKey(metric), statKey(stat), *value);
                    const bool hasInterval = cell.ratio && cell.ratioCi;
                    if (hasInterval)
                        out += QString::asprintf("%.4f,%.4f,%.4f,%s", *cell.ratio, cell.ratioCi->low,
                            cell.ratioCi->high, cell.significant.value_or(false) ? "true" : "false");
                    else if (cell.ratio) // ratios without intervals (resamples 0)
                        out += QString::asprintf("%.4f,,,", *cell.ratio);
                    else
                        out += QStringLiteral(",,,");
                    out += QString::fromStdString(csvTail(config, latencyKey(metric), statKey(stat), hasInterval));
                }
            for (const RateRow& rate : kRateRows) {
                out += QString::asprintf("%s%s,,%.4f,", prefix.c_str(), rate.key, config.*rate.value);
                if (rate.ratio && config.*rate.ratio)
                    out += QString::asprintf("%.4f,,,,,,\n", *(config.*rate.ratio));
                else
                    out += QStringLiteral(",,,,,,\n");
            }
            out += withEmptyTail(reasoningCsv(config, prefix));
        }
    }
    return out;
}

// Hand-made or older JSON: read into the types first, so both give the same bytes.
QString compareMarkdown(const nlohmann::json& arms)
{
    return compareMarkdown(comparisonFromJson(arms));
}

QString compareCsv(const nlohmann::json& arms)
{
    return compareCsv(comparisonFromJson(arms));
}

} // namespace ks
