#include "metrics/compareformat.h"

#include "metrics/runsummary.h"

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

QString compareMarkdown(const nlohmann::json& arms)
{
    QString out;
    for (const auto& arm : arms) {
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
            QStringList row { QString::fromStdString(config["config"].get<std::string>())
                + (config.value("gentle", false) ? QStringLiteral(" (gentle)") : QString()) };
            for (const CompareColumn& c : kCompareColumns)
                row << compareCell(config, c, isBaseline);
            row << QStringLiteral("%1 (%2 %)")
                       .arg(config["errors"].get<int>())
                       .arg(config["error_rate"].get<double>() * 100, 0, 'f', 1);
            row << (config["max_waiting"].is_null() ? QStringLiteral("n/a")
                                                    : QString::number(config["max_waiting"].get<double>()));
            out += QStringLiteral("| %1 |\n").arg(row.join(QStringLiteral(" | ")));
        }
        out += QStringLiteral("\nRatios are against %1; [low-high] is the 95 % bootstrap interval; * marks an "
                              "interval that excludes 1.\n")
                   .arg(QString::fromStdString(arm["baseline"].get<std::string>()));
        if (const QStringList bounds = sloBounds(arm.value("slo", nlohmann::json())); !bounds.isEmpty())
            out += QStringLiteral("Goodput counts requests meeting %1.\n").arg(bounds.join(QStringLiteral(" and ")));
        else
            out += QStringLiteral("No SLO set: goodput equals throughput.\n");
        if (arm.contains("note"))
            out += QStringLiteral("Note: %1.\n").arg(QString::fromStdString(arm["note"].get<std::string>()));
        if (arm.contains("warning"))
            out += QStringLiteral("WARNING: %1\n").arg(QString::fromStdString(arm["warning"].get<std::string>()));
        out += QLatin1Char('\n');
    }
    return out;
}

QString compareCsv(const nlohmann::json& arms)
{
    QString out;
    out += QStringLiteral("arm,config,metric,stat,value,ratio,ratio_low,ratio_high,significant\n");
    for (const auto& arm : arms) {
        for (const auto& config : arm["configs"]) {
            const std::string prefix = arm["arm"].get<std::string>() + ',' + config["config"].get<std::string>() + ',';
            for (const char* key : { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" }) {
                if (config[key].is_null())
                    continue;
                for (const char* stat : { "p50", "p95", "p99" }) {
                    if (!config[key].contains(stat) || !config[key][stat].is_number())
                        continue; // a summary-only import whose tool does not report it
                    const auto& ratio = config["ratio"].value(key, nlohmann::json::object());
                    const auto& ci = config["ratio_ci95"].value(key, nlohmann::json::object());
                    out += QString::asprintf(
                        "%s%s,%s,%.4f,", prefix.c_str(), key, stat, config[key][stat].get<double>());
                    const bool significant = config.value("significant", nlohmann::json::object())
                                                 .value(key, nlohmann::json::object())
                                                 .value(stat, false);
                    if (ratio.contains(stat) && ci.contains(stat))
                        out += QString::asprintf("%.4f,%.4f,%.4f,%s\n", ratio[stat].get<double>(),
                            ci[stat][0].get<double>(), ci[stat][1].get<double>(), significant ? "true" : "false");
                    else if (ratio.contains(stat)) // ratios without intervals (resamples 0)
                        out += QString::asprintf("%.4f,,,\n", ratio[stat].get<double>());
                    else
                        out += QString::asprintf(",,,\n");
                }
            }
            for (const char* key : { "req_per_s", "out_tok_per_s", "goodput_req_per_s", "error_rate" }) {
                out += QString::asprintf("%s%s,,%.4f,", prefix.c_str(), key, config[key].get<double>());
                if (config["ratio"].contains(key))
                    out += QString::asprintf("%.4f,,,\n", config["ratio"][key].get<double>());
                else
                    out += QString::asprintf(",,,\n");
            }
        }
    }
    return out;
}

} // namespace ks
