#pragma once

#include "compare/comparison.h"

#include <QTest>

namespace ks::test {

/// compareRunsJson(), checked on the way: the typed comparison must give back
/// every byte of the JSON it was read from (comparisonAssembly) and name every
/// key compare writes (nothing left in an arm's or a configuration's `rest`).
/// Records a failure at the caller's line and returns the JSON either way.
inline nlohmann::json comparedChecked(const RunFile& file, const CompareOptions& options, QString* error,
    const char* where = __builtin_FILE(), int line = __builtin_LINE())
{
    QString assemblyError;
    const nlohmann::json assembly = comparisonAssembly(file, options, &assemblyError);
    const nlohmann::json typed = compareRunsJson(file, options, error);
    QTest::qVerify(typed.dump() == assembly.dump(), "comparisonToJson(compareRuns()) == comparisonAssembly()",
        "the typed comparison changed compare --json", where, line);
    for (const ComparedArm& arm : comparisonFromJson(assembly)) {
        QTest::qVerify(arm.rest.empty(), "arm.rest.empty()",
            qPrintable(QStringLiteral("arm keys not named: %1").arg(QString::fromStdString(arm.rest.dump()))), where,
            line);
        for (const ComparedConfig& config : arm.configs) {
            QTest::qVerify(config.rest.empty(), "config.rest.empty()",
                qPrintable(
                    QStringLiteral("configuration keys not named: %1").arg(QString::fromStdString(config.rest.dump()))),
                where, line);
            if (const auto& figures = config.reasoningTools) {
                const nlohmann::json left = { { "figures", figures->rest },
                    { "ratio", figures->ratio ? figures->ratio->rest : nlohmann::json::object() } };
                QTest::qVerify(figures->rest.empty() && left["ratio"].empty(), "reasoningTools->rest.empty()",
                    qPrintable(
                        QStringLiteral("reasoning_tools keys not named: %1").arg(QString::fromStdString(left.dump()))),
                    where, line);
            }
        }
    }
    return typed;
}

} // namespace ks::test
