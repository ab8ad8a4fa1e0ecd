#include "library/cataloguerecord.h"

#include "compare/comparison.h"
#include "server/serverversion.h"
#include "store/runfile.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>

#include <nlohmann/json.hpp>

namespace ks {

namespace {

using json = nlohmann::json;

QString textOf(const json& object, const char* key)
{
    if (!object.is_object())
        return {};
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

// compare's figure for metric.stat, with its interval.
CatalogueFigure figureOf(const ComparedConfig& config, LatencyMetric metric, LatencyStat stat)
{
    CatalogueFigure figure;
    figure.value = config.value(metric, stat);
    if (const std::optional<Interval>& ci = config.stat(metric, stat).ci) {
        figure.low = ci->low;
        figure.high = ci->high;
    }
    return figure;
}

QString armShapeOf(const RunFile& file, const QString& arm)
{
    const json& arms = file.spec().contains("arms") ? file.spec()["arms"] : json();
    if (!arms.is_array())
        return {};
    for (const json& a : arms) {
        if (textOf(a, "name") == arm)
            return QString::fromStdString(a.dump());
    }
    return {};
}

// Without compare's figures (it refused the file): the rows from the run lines alone.
void armsFromRunLines(const RunFile& file, CatalogueFile* out)
{
    for (const RunData& run : file.runs) {
        CatalogueArm row;
        row.config = run.config;
        row.arm = run.arm;
        row.model = textOf(run.info, "model");
        row.knobs
            = run.info.contains("knobs") ? QString::fromStdString(run.info["knobs"].dump()) : QStringLiteral("{}");
        row.armShape = armShapeOf(file, run.arm);
        row.requests = qint64(run.requests.size());
        out->arms.push_back(row);
    }
}

} // namespace

QString fileSha256(const QString& path, QString* error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read %1: %2").arg(path, f.errorString());
        return {};
    }
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!hash.addData(&f)) {
        if (error)
            *error = QStringLiteral("cannot read %1: %2").arg(path, f.errorString());
        return {};
    }
    return QString::fromLatin1(hash.result().toHex());
}

bool catalogueRecordOf(const QString& path, const RunFile& file, CatalogueFile* out, QString* error)
{
    const QFileInfo info(path);
    *out = {};
    out->path = info.absoluteFilePath();
    out->size = info.size();
    out->mtimeMs = info.lastModified().toMSecsSinceEpoch();
    out->sha256 = fileSha256(path, error);
    if (out->sha256.isEmpty())
        return false;
    out->specName = file.experimentName(info.completeBaseName());
    const json& environment = file.environment();
    out->host = textOf(environment, "host");
    out->knobscopeVersion = textOf(environment, "knobscope");
    if (out->knobscopeVersion.isEmpty())
        out->knobscopeVersion = textOf(file.experiment, "tool");
    out->serverVersions = serverVersionsOf(file).join(QStringLiteral("; "));
    out->startedAt = textOf(file.experiment, "started_at");
    if (out->startedAt.isEmpty() && !file.runs.empty())
        out->startedAt = textOf(file.runs.front().info, "t0_wall");

    CompareOptions options;
    options.resamples = 200;
    options.allowDifferentWorkloads = true;
    QString refused;
    const Comparison arms = compareRuns(file, options, &refused);
    if (!refused.isEmpty()) {
        out->note = refused;
        armsFromRunLines(file, out);
        return true;
    }
    for (const ComparedArm& arm : arms)
        for (const ComparedConfig& config : arm.configs) {
            CatalogueArm row;
            row.config = config.config;
            row.arm = arm.arm;
            row.model = config.model.value_or(QString());
            row.knobs = QString::fromStdString(config.knobs.dump());
            row.armShape = armShapeOf(file, arm.arm);
            row.requests = config.requests;
            row.errors = config.errors;
            row.ttftP50 = figureOf(config, LatencyMetric::Ttft, LatencyStat::P50);
            row.ttftP99 = figureOf(config, LatencyMetric::Ttft, LatencyStat::P99);
            row.tpotP50 = figureOf(config, LatencyMetric::Tpot, LatencyStat::P50);
            row.e2eP50 = figureOf(config, LatencyMetric::E2e, LatencyStat::P50);
            row.reqPerS = config.reqPerS;
            row.outTokPerS = config.outTokPerS;
            row.intervalMethod = config.ciMethod;
            out->arms.push_back(row);
        }
    return true;
}

} // namespace ks
