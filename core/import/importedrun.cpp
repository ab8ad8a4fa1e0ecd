#include "import/importedrun.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QFileInfo>

namespace ks {

nlohmann::json percentileJson(const ToolStats& stats)
{
    nlohmann::json out = nlohmann::json::object();
    const std::pair<const char*, const std::optional<double>*> fields[]
        = { { "p50", &stats.p50 }, { "p90", &stats.p90 }, { "p95", &stats.p95 }, { "p99", &stats.p99 },
              { "max", &stats.max }, { "mean", &stats.mean } };
    for (const auto& [key, value] : fields) {
        if (value->has_value())
            out[key] = **value;
    }
    if (out.empty())
        return nullptr;
    if (stats.count)
        out["count"] = *stats.count;
    return out;
}

QByteArray sha256Hex(const QByteArray& bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

void addImportedRun(RunFile* file, const ImportSource& source, const QString& config, const QString& arm,
    const QString& model, std::vector<RequestRecord> requests, nlohmann::json toolSummary, bool sendTimes)
{
    const QString base = config + QLatin1Char('/') + arm;
    QString label = base;
    for (int n = 2; std::any_of(file->runs.begin(), file->runs.end(), [&](const RunData& r) { return r.run == label; });
         ++n)
        label = base + QStringLiteral("#%1").arg(n);
    RunData run;
    run.run = label;
    run.config = config;
    run.arm = arm;
    const bool summaryOnly = requests.empty();
    nlohmann::json imported = { { "tool", source.tool.toStdString() }, { "version", source.version.toStdString() },
        { "file_sha256", source.sha256.toStdString() }, { "summary_only", summaryOnly } };
    if (!summaryOnly && !sendTimes)
        imported["send_times"] = false;
    run.info = { { "run", label.toStdString() }, { "config", config.toStdString() }, { "arm", arm.toStdString() },
        { "model", model.toStdString() }, { "knobs", nlohmann::json::object() }, { "imported", imported } };
    run.requests.setRun(label);
    run.requests.reserve(requests.size(), 0);
    for (RequestRecord& r : requests) {
        r.run = label;
        run.requests.push_back(r);
    }
    toolSummary["run"] = label.toStdString();
    toolSummary["config"] = config.toStdString();
    toolSummary["arm"] = arm.toStdString();
    if (!toolSummary.contains("warnings"))
        toolSummary["warnings"] = nlohmann::json::array();
    run.summary = runSummaryFromJson(std::move(toolSummary));
    file->runs.push_back(std::move(run));
}

namespace {

const nlohmann::json* importedOf(const RunData& run)
{
    if (!run.info.is_object())
        return nullptr;
    const auto it = run.info.find("imported");
    return it != run.info.end() && it->is_object() ? &*it : nullptr;
}

std::string toolName(const nlohmann::json& imported)
{
    const std::string tool = imported.value("tool", std::string("another tool"));
    const std::string version = imported.value("version", std::string("unknown"));
    return version == "unknown" ? tool + " (version not recorded)" : tool + " " + version;
}

} // namespace

bool isImported(const RunData& run)
{
    return importedOf(run) != nullptr;
}

bool isSummaryOnly(const RunData& run)
{
    const nlohmann::json* imported = importedOf(run);
    return imported && imported->value("summary_only", false);
}

nlohmann::json importedRunSummary(const RunData& run, const Slo& slo)
{
    const nlohmann::json& imported = *importedOf(run);
    const std::string tool = toolName(imported);
    nlohmann::json s;
    if (isSummaryOnly(run)) {
        s = run.summary ? runSummaryToJson(*run.summary) : nlohmann::json::object();
        s["run"] = run.run.toStdString();
        s["config"] = run.config.toStdString();
        s["arm"] = run.arm.toStdString();
        if (!s.contains("warnings") || !s["warnings"].is_array())
            s["warnings"] = nlohmann::json::array();
        s["warnings"].push_back("summary-only: imported from " + tool
            + " without per-request data; the figures are the tool's own aggregates (mapped by definition, "
              "docs/metrics.md), with no bootstrap intervals");
        if (slo.any())
            s["warnings"].push_back(
                "the SLO cannot be applied to a summary-only run: goodput is the tool's own figure");
    } else {
        s = summarizeRun(run.run, run.config, run.arm, run.requests, slo);
        s["warnings"].push_back("imported from " + tool + " with per-request data; recomputed from its records");
        if (!imported.value("send_times", true) && run.summary) {
            const nlohmann::json figures = runSummaryToJson(*run.summary);
            for (const char* key : { "req_per_s", "out_tok_per_s" }) {
                if (figures.contains(key))
                    s[key] = figures[key];
            }
            if (!slo.any() && figures.contains("req_per_s"))
                s["goodput_req_per_s"] = figures["req_per_s"];
            s["warnings"].push_back("the records carry no send times: throughput is the tool's own figure");
        }
    }
    s["imported"] = imported;
    return s;
}

nlohmann::json importExperimentLine(const QStringList& sources)
{
    nlohmann::json files = nlohmann::json::array();
    for (const QString& path : sources)
        files.push_back(QFileInfo(path).fileName().toStdString());
    return { { "type", "experiment" }, { "schema", 1 }, { "tool", "knobscope " KNOBSCOPE_VERSION " import" },
        { "started_at", QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString() },
        { "imported_from", files }, { "spec", { { "name", "imported" } } } };
}

} // namespace ks
