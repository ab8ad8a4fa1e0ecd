// knobscope compare: configurations side by side per arm, with ratios and
// bootstrap intervals from the core (metrics/comparison).
#include "commands.h"
#include "loadflags.h"
#include "metrics/comparison.h"

#include <QCommandLineParser>

#include <cstdio>

namespace {

struct Column {
    const char* title;
    const char* key;
    const char* stat; ///< nullptr for scalar metrics
};

const Column kColumns[] = {
    { "TTFT p50 ms", "ttft_ms", "p50" },
    { "TTFT p99 ms", "ttft_ms", "p99" },
    { "TPOT p50 ms", "tpot_ms", "p50" },
    { "ITL p50 ms", "itl_ms", "p50" },
    { "E2E p50 ms", "e2e_ms", "p50" },
    { "req/s", "req_per_s", nullptr },
    { "tok/s", "out_tok_per_s", nullptr },
    { "goodput req/s", "goodput_req_per_s", nullptr },
};

double valueOf(const nlohmann::json& config, const Column& c)
{
    const nlohmann::json& v = config[c.key];
    if (v.is_null())
        return 0;
    return c.stat ? v[c.stat].get<double>() : v.get<double>();
}

QString cell(const nlohmann::json& config, const Column& c, bool isBaseline)
{
    QString text = QString::number(valueOf(config, c), 'f', 1);
    if (isBaseline)
        return text;
    const nlohmann::json& ratio = c.stat
        ? config["ratio"].value(c.key, nlohmann::json::object()).value(c.stat, nlohmann::json(nullptr))
        : config["ratio"].value(c.key, nlohmann::json(nullptr));
    if (ratio.is_null())
        return text;
    text += QStringLiteral(" (%1x").arg(ratio.get<double>(), 0, 'f', 2);
    if (c.stat && config["ratio_ci95"].contains(c.key)) {
        const auto& ci = config["ratio_ci95"][c.key][c.stat];
        text += QStringLiteral(" [%1-%2]").arg(ci[0].get<double>(), 0, 'f', 2).arg(ci[1].get<double>(), 0, 'f', 2);
        if (config["significant"][c.key].value(c.stat, false))
            text += QLatin1Char('*');
    }
    return text + QLatin1Char(')');
}

void printMarkdown(const nlohmann::json& arms)
{
    for (const auto& arm : arms) {
        std::printf("## %s (baseline %s)\n\n", arm["arm"].get<std::string>().c_str(),
            arm["baseline"].get<std::string>().c_str());
        QStringList header { QStringLiteral("config") };
        for (const Column& c : kColumns)
            header << QString::fromLatin1(c.title);
        header << QStringLiteral("errors") << QStringLiteral("peak waiting");
        std::printf("| %s |\n|%s\n", qPrintable(header.join(QStringLiteral(" | "))),
            qPrintable(QStringLiteral("---|").repeated(header.size())));
        for (const auto& config : arm["configs"]) {
            const bool isBaseline = config["config"] == arm["baseline"];
            QStringList row { QString::fromStdString(config["config"].get<std::string>())
                + (config.value("gentle", false) ? QStringLiteral(" (gentle)") : QString()) };
            for (const Column& c : kColumns)
                row << cell(config, c, isBaseline);
            row << QStringLiteral("%1 (%2 %)")
                       .arg(config["errors"].get<int>())
                       .arg(config["error_rate"].get<double>() * 100, 0, 'f', 1);
            row << (config["max_waiting"].is_null() ? QStringLiteral("n/a")
                                                    : QString::number(config["max_waiting"].get<double>()));
            std::printf("| %s |\n", qPrintable(row.join(QStringLiteral(" | "))));
        }
        std::printf("\nRatios are against %s; [low-high] is the 95 %% bootstrap interval; * marks an interval that "
                    "excludes 1.\n",
            arm["baseline"].get<std::string>().c_str());
        if (arm.contains("warning"))
            std::printf("WARNING: %s\n", arm["warning"].get<std::string>().c_str());
        std::printf("\n");
    }
}

void printCsv(const nlohmann::json& arms)
{
    std::printf("arm,config,metric,stat,value,ratio,ratio_low,ratio_high,significant\n");
    for (const auto& arm : arms) {
        for (const auto& config : arm["configs"]) {
            const std::string prefix = arm["arm"].get<std::string>() + ',' + config["config"].get<std::string>() + ',';
            for (const char* key : { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" }) {
                if (config[key].is_null())
                    continue;
                for (const char* stat : { "p50", "p95", "p99" }) {
                    const auto& ratio = config["ratio"].value(key, nlohmann::json::object());
                    const auto& ci = config["ratio_ci95"].value(key, nlohmann::json::object());
                    std::printf("%s%s,%s,%.4f,", prefix.c_str(), key, stat, config[key][stat].get<double>());
                    if (ratio.contains(stat))
                        std::printf("%.4f,%.4f,%.4f,%s\n", ratio[stat].get<double>(), ci[stat][0].get<double>(),
                            ci[stat][1].get<double>(),
                            config["significant"][key].value(stat, false) ? "true" : "false");
                    else
                        std::printf(",,,\n");
                }
            }
            for (const char* key : { "req_per_s", "out_tok_per_s", "goodput_req_per_s", "error_rate" }) {
                std::printf("%s%s,,%.4f,", prefix.c_str(), key, config[key].get<double>());
                if (config["ratio"].contains(key))
                    std::printf("%.4f,,,\n", config["ratio"][key].get<double>());
                else
                    std::printf(",,,\n");
            }
        }
    }
}

} // namespace

int compareCommand(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Per arm, the configurations of a run file side by side: latency percentiles, throughput, goodput, errors and\n"
        "peak server queue, with ratios against a baseline and 95 % bootstrap intervals (seeded)."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("RUNS.jsonl"), QStringLiteral("A run file from knobscope run."));
    parser.addOption({ QStringLiteral("baseline"),
        QStringLiteral("Configuration label to compare against (default: the first)."), QStringLiteral("LABEL") });
    parser.addOption({ QStringLiteral("json"), QStringLiteral("Print JSON (one object per arm).") });
    parser.addOption(
        { QStringLiteral("format"), QStringLiteral("md or csv."), QStringLiteral("format"), QStringLiteral("md") });
    parser.addOption({ QStringLiteral("resamples"), QStringLiteral("Bootstrap resamples (at least 1000)."),
        QStringLiteral("N"), QStringLiteral("1000") });
    parser.addOption(
        { QStringLiteral("seed"), QStringLiteral("Bootstrap seed."), QStringLiteral("S"), QStringLiteral("1") });
    if (const auto exitCode = parseOrExit(parser, arguments, "knobscope compare"))
        return *exitCode;
    if (parser.positionalArguments().size() != 1) {
        std::fputs("knobscope compare: give exactly one run file\n", stderr);
        return 2;
    }
    const QString format = parser.value(QStringLiteral("format"));
    if (format != QLatin1String("md") && format != QLatin1String("csv")) {
        std::fputs("knobscope compare: --format: expected md or csv\n", stderr);
        return 2;
    }
    ks::CompareOptions options;
    options.baseline = parser.value(QStringLiteral("baseline"));
    options.resamples = std::max(1000, parser.value(QStringLiteral("resamples")).toInt());
    options.seed = parser.value(QStringLiteral("seed")).toULongLong();
    ks::RunFile file;
    QString error;
    if (!ks::readRunFile(parser.positionalArguments().first(), &file, &error)) {
        std::fprintf(stderr, "knobscope compare: %s\n", qPrintable(error));
        return 2;
    }
    for (const ks::RunFileIssue& issue : file.issues)
        std::fprintf(stderr, "knobscope compare: line %lld: %s (skipped)\n", static_cast<long long>(issue.line),
            qPrintable(issue.message));
    const nlohmann::json arms = ks::compareRuns(file, options, &error);
    if (!error.isEmpty()) {
        std::fprintf(stderr, "knobscope compare: %s\n", qPrintable(error));
        return 2;
    }
    if (parser.isSet(QStringLiteral("json")))
        std::printf("%s\n", arms.dump(2).c_str());
    else if (format == QLatin1String("csv"))
        printCsv(arms);
    else
        printMarkdown(arms);
    return 0;
}
