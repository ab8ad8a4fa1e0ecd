#include "compare/compareformat.h"

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

bool hasCompareValue(const nlohmann::json& config, const CompareColumn& c)
{
    const auto v = config.find(c.key);
    if (v == config.end() || v->is_null())
        return false;
    if (!c.stat)
        return v->is_number();
    const auto stat = v->find(c.stat);
    return stat != v->end() && stat->is_number();
}

double compareValue(const nlohmann::json& config, const CompareColumn& c)
{
    if (!hasCompareValue(config, c))
        return 0; // summary-only imports may lack a statistic their tool does not report
    const nlohmann::json& v = config[c.key];
    return c.stat ? v[c.stat].get<double>() : v.get<double>();
}

QString compareCell(const nlohmann::json& config, const CompareColumn& c, bool isBaseline)
{
    if (!hasCompareValue(config, c))
        return QStringLiteral("n/a");
    QString text = QString::number(compareValue(config, c), 'f', 1);
    if (isBaseline)
        return text;
    const nlohmann::json& ratio = c.stat
        ? config["ratio"].value(c.key, nlohmann::json::object()).value(c.stat, nlohmann::json(nullptr))
        : config["ratio"].value(c.key, nlohmann::json(nullptr));
    if (ratio.is_null())
        return text;
    text += QStringLiteral(" (%1x").arg(ratio.get<double>(), 0, 'f', 2);
    const nlohmann::json ci = c.stat
        ? config["ratio_ci95"].value(c.key, nlohmann::json::object()).value(c.stat, nlohmann::json(nullptr))
        : nlohmann::json(nullptr);
    if (ci.is_array() && ci.size() == 2) {
        text += QStringLiteral(" [%1-%2]").arg(ci[0].get<double>(), 0, 'f', 2).arg(ci[1].get<double>(), 0, 'f', 2);
        if (config.value("significant", nlohmann::json::object())
                .value(c.key, nlohmann::json::object())
                .value(c.stat, false))
            text += QLatin1Char('*');
    }
    return text + QLatin1Char(')');
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
QString gentleMark(const nlohmann::json& config)
{
    if (!config.value("gentle", false))
        return {};
    const nlohmann::json share = config.value("waiting_share", nlohmann::json());
    return share.is_number()
        ? QStringLiteral(" (gentle: waiting in %1 % of scrapes)").arg(share.get<double>() * 100, 0, 'f', 0)
        : QStringLiteral(" (gentle)");
}

} // namespace

QString specDecodeLine(const nlohmann::json& arm)
{
    QStringList parts;
    bool any = false;
    for (const auto& config : arm.value("configs", nlohmann::json::array())) {
        const nlohmann::json acceptance = config.value("spec_acceptance", nlohmann::json());
        const nlohmann::json length = config.value("spec_mean_accepted", nlohmann::json());
        QStringList figures;
        if (acceptance.is_number())
            figures << QStringLiteral("acceptance %1 %").arg(acceptance.get<double>() * 100, 0, 'f', 1);
        if (length.is_number())
            figures << QStringLiteral("mean accepted length %1").arg(length.get<double>(), 0, 'f', 2);
        any = any || !figures.isEmpty();
        parts << QString::fromStdString(config.value("config", std::string())) + QLatin1Char(' ')
                + (figures.isEmpty() ? QStringLiteral("none") : figures.join(QStringLiteral(", ")));
    }
    return any ? QStringLiteral("Speculative decoding (the server's counters): ") + parts.join(QStringLiteral("; "))
               : QString();
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
        for (const auto& config : arm["configs"]) {
            const bool isBaseline = config["config"] == arm["baseline"];
            QStringList row { QString::fromStdString(config["config"].get<std::string>()) + gentleMark(config)
                + (config.value("workload_differs", false) ? QStringLiteral(" (different workload)") : QString()) };
            for (const CompareColumn& c : kCompareColumns)
                row << compareCell(config, c, isBaseline);
            row << QStringLiteral("%1 (%2 %)")
                       .arg(config["errors"].get<int>())
                       .arg(config["error_rate"].get<double>() * 100, 0, 'f', 1);
            row << (config["max_waiting"].is_null() ? QStringLiteral("n/a")
                                                    : QString::number(config["max_waiting"].get<double>()));
            out += QStringLiteral("| %1 |\n").arg(row.join(QStringLiteral(" | ")));
        }
        out += QStringLiteral("\nRatios are against %1; %2.\n")
                   .arg(QString::fromStdString(arm["baseline"].get<std::string>()), intervalLegend(arm));
        for (const QString& line : intervalLines(arm))
            out += line + QLatin1Char('\n');
        if (const QStringList bounds = sloBounds(arm.value("slo", nlohmann::json())); !bounds.isEmpty())
            out += QStringLiteral("Goodput counts requests meeting %1.\n").arg(bounds.join(QStringLiteral(" and ")));
        else
            out += QStringLiteral("No SLO set: goodput equals throughput.\n");
        for (const QString& line : diagnosisLines(arm))
            out += line + QLatin1Char('\n');
        out += reasoningMarkdown(arm);
        if (const QString spec = specDecodeLine(arm); !spec.isEmpty())
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
std::string csvTail(const nlohmann::json& config, const char* key, const char* stat, bool hasInterval)
{
    if (!hasInterval)
        return ",,,\n";
    const std::optional<bool> measured = runToRunMeasured(config);
    const std::optional<int> rounds = roundsNeeded(config, key, stat);
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
                    out += QString::fromStdString(csvTail(config, key, stat, hasInterval));
                }
            }
            for (const char* key : { "req_per_s", "out_tok_per_s", "goodput_req_per_s", "error_rate" }) {
                out += QString::asprintf("%s%s,,%.4f,", prefix.c_str(), key, config[key].get<double>());
                if (ratios.contains(key))
                    out += QString::asprintf("%.4f,,,,,,\n", ratios[key].get<double>());
                else
                    out += QStringLiteral(",,,,,,\n");
            }
            out += withEmptyTail(reasoningCsv(config, prefix));
        }
    }
    return out;
}

} // namespace ks
