#include "comparereport.h"

#include "charts/comparecharts.h"
#include "compare/compareformat.h"
#include "feeds/runfileloader.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <vector>

namespace ks {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("ComparePage", text);
}

} // namespace

bool writeCompareTable(const Comparison& compare, const QString& path, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        *error = tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    const QString text
        = path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive) ? compareCsv(compare) : compareMarkdown(compare);
    file.write(text.toUtf8());
    return true;
}

bool writeCompareReport(const LoadedRunFile& result, const QString& directory, QString* error)
{
    if (!result.file || result.comparison.empty()) {
        *error = tr("nothing to export: no load arms");
        return false;
    }
    QDir dir(directory);
    if (!dir.mkpath(QStringLiteral("."))) {
        *error = tr("cannot create %1").arg(directory);
        return false;
    }
    QString index
        = QStringLiteral("# %1\n\nRun file: `%2`\n\n")
              .arg(result.file->experimentName(QStringLiteral("experiment")), QFileInfo(result.path).fileName());
    for (const QString& arm : comparedArms(result)) {
        index += QStringLiteral("## %1\n\n").arg(arm);
        const ComparedArm* entry = armNamed(result.comparison, arm);
        const bool sweep = entry && entry->isSweep();
        const std::vector<const char*> charts = sweep
            ? std::vector<const char*> { "knee" }
            : std::vector<const char*> { "ttft", "tpot", "itl", "e2e", "throughput", "cdf-ttft", "cdf-e2e" };
        for (const char* chart : charts) {
            const QString base = QStringLiteral("%1-%2").arg(arm, QLatin1String(chart));
            for (const char* format : { "png", "svg" }) {
                if (!exportCompareChart(result, QString::fromLatin1(chart), arm,
                        dir.filePath(base + QLatin1Char('.') + QLatin1String(format)), QSize(1200, 750), error))
                    return false;
            }
            index += QStringLiteral("![%1](%1.png) ([SVG](%1.svg))\n\n").arg(base);
        }
    }
    if (!writeCompareTable(result.comparison, dir.filePath(QStringLiteral("compare.md")), error)
        || !writeCompareTable(result.comparison, dir.filePath(QStringLiteral("compare.csv")), error))
        return false;
    QFile table(dir.filePath(QStringLiteral("compare.md")));
    table.open(QIODevice::ReadOnly);
    index += QStringLiteral("## Tables\n\n[compare.md](compare.md) · [compare.csv](compare.csv)\n\n")
        + QString::fromUtf8(table.readAll());
    QFile out(dir.filePath(QStringLiteral("index.md")));
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        *error = tr("cannot write %1").arg(out.fileName());
        return false;
    }
    out.write(index.toUtf8());
    return true;
}

} // namespace ks
