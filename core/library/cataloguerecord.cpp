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

std::optional<double> numberOf(const json& object, const char* key)
{
    if (!object.is_object())
        return std::nullopt;
    auto it = object.find(key);
    if (it == object.end() || !it->is_number())
        return std::nullopt;
    return it->get<double>();
}

// compare's figure for metric.stat, with its interval from ci95.metric.stat.
CatalogueFigure figureOf(const json& config, const char* metric, const char* stat)
{
    CatalogueFigure figure;
    if (config.contains(metric))
        figure.value = numberOf(config[metric], stat);
    const json& ci = config.contains("ci95") ? config["ci95"] : json();
    if (ci.is_object() && ci.contains(metric) && ci[metric].is_object() && ci[metric].contains(stat)) {
        const json& pair = ci[metric][stat];
        if (pair.is_array() && pair.size() == 2 && pair[0].is_number() && pair[1].is_number()) {
            figure.low = pair[0].get<double>();
            figure.high = pair[1].get<double>();
        }
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
    const json arms = compareRunsJson(file, options, &refused);
    if (!refused.isEmpty() || !arms.is_array()) {
        out->note = refused.isEmpty() ? QStringLiteral("compare gave no figures") : refused;
        armsFromRunLines(file, out);
        return true;
    }
    for (const json& arm : arms) {
        const QString armName = textOf(arm, "arm");
        if (!arm.contains("configs") || !arm["configs"].is_array())
            continue;
        for (const json& config : arm["configs"]) {
            CatalogueArm row;
            row.config = textOf(config, "config");
            row.arm = armName;
            row.model = textOf(config, "model");
            row.knobs
                = config.contains("knobs") ? QString::fromStdString(config["knobs"].dump()) : QStringLiteral("{}");
            row.armShape = armShapeOf(file, armName);
            row.requests = qint64(numberOf(config, "requests").value_or(0));
            row.errors = qint64(numberOf(config, "errors").value_or(0));
            row.ttftP50 = figureOf(config, "ttft_ms", "p50");
            row.ttftP99 = figureOf(config, "ttft_ms", "p99");
            row.tpotP50 = figureOf(config, "tpot_ms", "p50");
            row.e2eP50 = figureOf(config, "e2e_ms", "p50");
            row.reqPerS = numberOf(config, "req_per_s");
            row.outTokPerS = numberOf(config, "out_tok_per_s");
            if (config.contains("ci95"))
                row.intervalMethod = textOf(config["ci95"], "method");
            out->arms.push_back(row);
        }
    }
    return true;
}

} // namespace ks
