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

QString sweepMarkdown(const nlohmann::json& arm)
{
    const nlohmann::json& sweep = arm["sweep"];
    const bool rate = sweep.value("over", std::string("rate")) == "rate";
    QString out = QStringLiteral("## %1 (sweep over %2)\n\n")
                      .arg(QString::fromStdString(arm["arm"].get<std::string>()),
                          rate ? QStringLiteral("rate") : QStringLiteral("concurrency"));
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
                           QString::fromStdString(run.substr(run.find('/') + 1)), number(p["achieved_req_per_s"], 2),
                           number(p["ttft_p50_ms"], 1), number(p["ttft_p99_ms"], 1), number(p["tpot_p50_ms"], 1),
                           number(p["tpot_p99_ms"], 1), verdict);
        }
    }
    out += QStringLiteral("\nCapacity: the highest step whose every repeat met the SLO at p99 and, for rate steps, "
                          "completed at least 90 % of the rate its schedule offered.\n");
    const nlohmann::json stops = sweep.value("stop", nlohmann::json::object());
    for (const auto& [config, reason] : stops.items())
        out += QStringLiteral("%1 stopped early: %2.\n")
                   .arg(QString::fromStdString(config), QString::fromStdString(reason.get<std::string>()));
    return out + QLatin1Char('\n');
}

// Where TTFT went, per configuration, from the server's own figures
// (docs/metrics.md): each line names its source; a configuration without one
// says so instead of showing nothing, or a guess.
QString ttftSplitMarkdown(const nlohmann::json& arm)
{
    QString out;
    bool anySplit = false;
    for (const auto& config : arm["configs"]) {
        const QString label = QString::fromStdString(config["config"].get<std::string>());
        const nlohmann::json split = config.value("ttft_split_ms", nlohmann::json());
        if (!split.is_object()) {
            out += QStringLiteral("- %1: no split: %2\n").arg(label, noTtftSplitReason());
            continue;
        }
        anySplit = true;
        out += QStringLiteral("- %1, from %2 (%3 requests): queue %4; prefill %5; rest %6 ms\n")
                   .arg(label, QString::fromStdString(split.value("source", std::string())),
                       number(split.value("requests", nlohmann::json()), 0), ttftSplitPartText(split, "queue"),
                       ttftSplitPartText(split, "prefill"), ttftSplitPartText(split, "rest"));
    }
    if (!anySplit && arm["configs"].size() > 0)
        return QStringLiteral("TTFT split: none: %1.\n").arg(noTtftSplitReason());
    return QStringLiteral("TTFT split (queue, prefill, rest), from the server's own figures as named on each line; "
                          "llamacpp-timings: per request; vllm-histograms: exact means, percentiles known only to "
                          "vLLM's buckets:\n")
        + out;
}

// The images each configuration's requests carried, when any did.
QString imagesMarkdown(const nlohmann::json& arm)
{
    QStringList parts;
    for (const auto& config : arm["configs"]) {
        const nlohmann::json images = config.value("images", nlohmann::json());
        if (images.is_object())
            parts << QStringLiteral("%1 %2 (p50 %3 a request, %4 KB p50 / %5 KB p99 a request)")
                         .arg(QString::fromStdString(config["config"].get<std::string>()),
                             number(images.value("total", nlohmann::json()), 0),
                             number(images.value("per_request_p50", nlohmann::json()), 0),
                             number(images.value("bytes_p50", 0.0) / 1024, 0),
                             number(images.value("bytes_p99", 0.0) / 1024, 0));
    }
    return parts.isEmpty() ? QString() : QStringLiteral("Images: %1.\n").arg(parts.join(QStringLiteral("; ")));
}

QString repeatsMarkdown(const nlohmann::json& arm)
{
    QString out;
    for (const auto& config : arm["configs"]) {
        const auto repeats = config.find("repeats");
        if (repeats == config.end())
            continue;
        const nlohmann::json spread = (*repeats)["spread"];
        QStringList parts;
        for (const auto& [key, label] : { std::pair { "ttft_ms", "TTFT p50" }, std::pair { "tpot_ms", "TPOT p50" } }) {
            if (!spread.contains(key))
                continue;
            const nlohmann::json& s = spread[key]["p50"];
            QString part = QStringLiteral("%1 mean %2 ms, CV %3 %")
                               .arg(QLatin1String(label), number(s["mean"], 1))
                               .arg(s.value("cv", 0.0) * 100, 0, 'f', 1);
            if (s["t_ci95"].is_array())
                part += QStringLiteral(", t-interval [%1, %2]")
                            .arg(number(s["t_ci95"][0], 1), number(s["t_ci95"][1], 1));
            parts << part;
        }
        out += QStringLiteral("Repeats of %1 (%2 runs): %3.\n")
                   .arg(QString::fromStdString(config["config"].get<std::string>()))
                   .arg((*repeats)["n"].get<int>())
                   .arg(parts.join(QStringLiteral("; ")));
    }
    return out;
}

} // namespace

namespace {

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

QString compareMarkdown(const nlohmann::json& arms)
{
    QString out;
    for (const auto& arm : arms) {
        if (arm.contains("sweep")) {
            out += sweepMarkdown(arm);
            continue;
        }
        out += QStringLiteral("## %1 (baseline %2)\n\n")
                   .arg(QString::fromStdString(arm["arm"].get<std::string>()),
                       QString::fromStdString(arm["baseline"].get<std::string>()));
        QStringList header { QStringLiteral("config") };
        for (const CompareColumn& c : kCompareColumns)
            header << QString::fromLatin1(c.title);
        header << QStringLiteral("errors") << QStringLiteral("peak waiting");
        out += QStringLiteral("| %1 |\n|%2\n")
                   .arg(header.join(QStringLiteral(" | ")), QStringLiteral("---|").repeated(header.size()));
        const ComparedArm typed = comparedArmFromJson(arm);
        for (const ComparedConfig& config : typed.configs) {
            const bool isBaseline = config.config == typed.baseline;
            QStringList row { config.config + gentleMark(config)
                + (config.workloadDiffers.value_or(false) ? QStringLiteral(" (different workload)") : QString()) };
            for (const CompareColumn& c : kCompareColumns)
                row << compareCell(config, c, isBaseline);
            row << QStringLiteral("%1 (%2 %)").arg(config.errors).arg(config.errorRate * 100, 0, 'f', 1);
            row << (config.maxWaiting ? QString::number(*config.maxWaiting) : QStringLiteral("n/a"));
            out += QStringLiteral("| %1 |\n").arg(row.join(QStringLiteral(" | ")));
        }
        out += QStringLiteral("\nRatios are against %1; %2.\n").arg(typed.baseline, intervalLegend(typed));
        for (const QString& line : intervalLines(typed))
            out += line + QLatin1Char('\n');
        if (const QStringList bounds = sloBounds(arm.value("slo", nlohmann::json())); !bounds.isEmpty())
            out += QStringLiteral("Goodput counts requests meeting %1.\n").arg(bounds.join(QStringLiteral(" and ")));
        else
            out += QStringLiteral("No SLO set: goodput equals throughput.\n");
        for (const QString& line : diagnosisLines(typed))
            out += line + QLatin1Char('\n');
        out += reasoningMarkdown(typed);
        if (const QString spec = specDecodeLine(typed); !spec.isEmpty())
            out += spec + QStringLiteral(".\n");
        out += ttftSplitMarkdown(arm);
        out += imagesMarkdown(arm);
        out += repeatsMarkdown(arm);
        if (arm.contains("note"))
            out += QStringLiteral("Note: %1.\n").arg(QString::fromStdString(arm["note"].get<std::string>()));
        if (arm.contains("warning"))
            out += QStringLiteral("WARNING: %1\n").arg(QString::fromStdString(arm["warning"].get<std::string>()));
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

} // namespace

QString compareCsv(const nlohmann::json& arms)
{
    QString out;
    out += QStringLiteral("arm,config,metric,stat,value,ratio,ratio_low,ratio_high,significant,method,"
                          "run_to_run_measured,rounds_needed\n");
    for (const auto& arm : arms) {
        if (const auto sweep = arm.find("sweep"); sweep != arm.end()) {
            const nlohmann::json capacities = sweep->value("capacity", nlohmann::json::object());
            for (const auto& [config, capacity] : capacities.items())
                out += QString::asprintf("%s,%s,capacity,,%s,,,,,,,\n", arm["arm"].get<std::string>().c_str(),
                    config.c_str(), capacity.is_number() ? qPrintable(QString::number(capacity.get<double>())) : "");
        }
        for (const auto& config : arm["configs"]) {
            // A configuration that ran another workload keeps the mark in every row that names it.
            const std::string prefix = arm["arm"].get<std::string>() + ',' + config["config"].get<std::string>()
                + (config.value("workload_differs", false) ? " (different workload)" : "") + ',';
            const ComparedConfig typed = comparedConfigFromJson(config);
            const nlohmann::json ratios = config.value("ratio", nlohmann::json::object());
            const nlohmann::json intervals = config.value("ratio_ci95", nlohmann::json::object());
            for (const char* key : { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" }) {
                if (config[key].is_null())
                    continue;
                for (const char* stat : { "p50", "p95", "p99" }) {
                    if (!config[key].contains(stat) || !config[key][stat].is_number())
                        continue; // a summary-only import whose tool does not report it
                    const auto ratio = ratios.value(key, nlohmann::json::object());
                    const auto ci = intervals.value(key, nlohmann::json::object());
                    out += QString::asprintf(
                        "%s%s,%s,%.4f,", prefix.c_str(), key, stat, config[key][stat].get<double>());
                    const bool significant = config.value("significant", nlohmann::json::object())
                                                 .value(key, nlohmann::json::object())
                                                 .value(stat, false);
                    const bool hasInterval = ratio.contains(stat) && ci.contains(stat);
                    if (hasInterval)
                        out += QString::asprintf("%.4f,%.4f,%.4f,%s", ratio[stat].get<double>(),
                            ci[stat][0].get<double>(), ci[stat][1].get<double>(), significant ? "true" : "false");
                    else if (ratio.contains(stat)) // ratios without intervals (resamples 0)
                        out += QString::asprintf("%.4f,,,", ratio[stat].get<double>());
                    else
                        out += QStringLiteral(",,,");
                    out += QString::fromStdString(csvTail(typed, key, stat, hasInterval));
                }
            }
            for (const char* key : { "req_per_s", "out_tok_per_s", "goodput_req_per_s", "error_rate" }) {
                out += QString::asprintf("%s%s,,%.4f,", prefix.c_str(), key, config[key].get<double>());
                if (ratios.contains(key))
                    out += QString::asprintf("%.4f,,,,,,\n", ratios[key].get<double>());
                else
                    out += QStringLiteral(",,,,,,\n");
            }
            out += withEmptyTail(reasoningCsv(typed, prefix));
        }
    }
    return out;
}

// The tables are still written from the JSON (the arms' sweep, reasoning and
// repeats objects are read there); the same bytes either way.
QString compareMarkdown(const Comparison& comparison)
{
    return compareMarkdown(comparisonToJson(comparison));
}

QString compareCsv(const Comparison& comparison)
{
    return compareCsv(comparisonToJson(comparison));
}

} // namespace ks
