#include "import/resultfile.h"

#include "import/aiperfexport.h"
#include "import/fieldreader.h"
#include "import/guidellmreport.h"
#include "import/vllmresult.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace ks {

namespace {

constexpr const char* kAiperfSummaryName = "profile_export_aiperf.json";
constexpr const char* kAiperfRecordsName = "profile_export.jsonl";

nlohmann::json parseObject(QByteArrayView bytes)
{
    return parseJsonGuarded(bytes);
}

QByteArrayView firstLine(const QByteArray& bytes)
{
    qsizetype start = 0;
    while (start < bytes.size()) {
        qsizetype end = bytes.indexOf('\n', start);
        if (end < 0)
            end = bytes.size();
        const QByteArrayView line(bytes.constData() + start, end - start);
        if (!line.trimmed().isEmpty())
            return line;
        start = end + 1;
    }
    return {};
}

bool isKnobscopeLine(const nlohmann::json& o)
{
    static const std::vector<std::string> kTypes
        = { "experiment", "run", "request", "summary", "server", "server_event" };
    const auto type = o.is_object() ? o.find("type") : o.end();
    return type != o.end() && type->is_string()
        && std::find(kTypes.begin(), kTypes.end(), type->get<std::string>()) != kTypes.end();
}

ResultFormat detectBytes(const QByteArray& bytes)
{
    const nlohmann::json first = parseObject(firstLine(bytes));
    if (isKnobscopeLine(first))
        return ResultFormat::Knobscope;
    const nlohmann::json whole = parseObject(bytes);
    if (whole.is_object()) {
        if (looksLikeGuideLlmReport(whole))
            return ResultFormat::GuideLlm;
        if (looksLikeAiperfSummary(whole))
            return ResultFormat::AiperfSummary;
        if (looksLikeVllmResult(whole))
            return ResultFormat::Vllm;
    }
    if (looksLikeAiperfRecord(first))
        return ResultFormat::AiperfRecords;
    if (looksLikeVllmResult(first))
        return ResultFormat::Vllm; // --append-result: one object per line
    return ResultFormat::Unknown;
}

QString unknownFormat(const QString& path)
{
    return QStringLiteral("%1: not a format knobscope reads: neither a knobscope run file (JSONL with a \"type\" "
                          "on each line) nor a vLLM bench serve result (\"request_throughput\", \"completed\"), a "
                          "GuideLLM benchmarks report (\"benchmarks\") or an AIPerf export (%2 or %3)")
        .arg(path, QLatin1String(kAiperfSummaryName), QLatin1String(kAiperfRecordsName));
}

bool readBytes(const QString& path, QByteArray* bytes, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return false;
    }
    *bytes = file.readAll();
    return true;
}

ImportSource sourceOf(const QString& tool, const QByteArray& bytes)
{
    return { tool, QStringLiteral("unknown"), sha256Hex(bytes) };
}

void importVllmBytes(const QByteArray& bytes, RunFile* out)
{
    const ImportSource source = sourceOf(QStringLiteral("vllm"), bytes);
    const nlohmann::json whole = parseObject(bytes);
    if (whole.is_object()) {
        importVllmResult(whole, 1, source, out);
        return;
    }
    qint64 lineNumber = 0;
    for (const QByteArray& line : bytes.split('\n')) {
        ++lineNumber;
        if (line.trimmed().isEmpty())
            continue;
        const nlohmann::json object = parseObject(line);
        if (!looksLikeVllmResult(object)) {
            out->issues.push_back({ lineNumber,
                object.is_discarded() ? QStringLiteral("not valid JSON; line skipped")
                                      : QStringLiteral("not a vLLM result object; line skipped") });
            continue;
        }
        importVllmResult(object, lineNumber, source, out);
    }
}

} // namespace

ResultFormat detectResultFormat(const QString& path, QString* error)
{
    QByteArray bytes;
    if (!readBytes(path, &bytes, error))
        return ResultFormat::Unknown;
    return detectBytes(bytes);
}

QString resultFormatName(ResultFormat format)
{
    switch (format) {
    case ResultFormat::Knobscope:
        return QStringLiteral("knobscope run file");
    case ResultFormat::Vllm:
        return QStringLiteral("vLLM bench serve result");
    case ResultFormat::GuideLlm:
        return QStringLiteral("GuideLLM benchmarks report");
    case ResultFormat::AiperfSummary:
        return QStringLiteral("AIPerf profile_export_aiperf.json");
    case ResultFormat::AiperfRecords:
        return QStringLiteral("AIPerf profile_export.jsonl");
    case ResultFormat::Unknown:
        break;
    }
    return QStringLiteral("unknown format");
}

bool readAnyRunFile(const QString& path, RunFile* out, QString* error, const ReadProgress& progress)
{
    {
        // Sniff the first line only: a knobscope run file can be gigabytes.
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
            return false;
        }
        QByteArray line;
        while (!file.atEnd() && line.trimmed().isEmpty())
            line = file.readLine(); // the whole line: a first line can hold a megabyte string
        if (isKnobscopeLine(parseObject(line)))
            return readRunFile(path, out, error, progress);
    }
    QByteArray bytes;
    if (!readBytes(path, &bytes, error))
        return false;
    const ResultFormat format = detectBytes(bytes);
    switch (format) {
    case ResultFormat::Knobscope:
        return readRunFile(path, out, error, progress);
    case ResultFormat::Vllm:
        importVllmBytes(bytes, out);
        break;
    case ResultFormat::GuideLlm:
        importGuideLlmReport(parseObject(bytes), sourceOf(QStringLiteral("guidellm"), bytes), out);
        break;
    case ResultFormat::AiperfSummary:
    case ResultFormat::AiperfRecords: {
        const QDir dir = QFileInfo(path).dir();
        const bool isSummary = format == ResultFormat::AiperfSummary;
        const QString summaryPath = isSummary ? path : dir.filePath(QLatin1String(kAiperfSummaryName));
        const QString recordsPath = isSummary ? dir.filePath(QLatin1String(kAiperfRecordsName)) : path;
        QByteArray summaryBytes = isSummary ? bytes : QByteArray();
        QByteArray recordBytes = isSummary ? QByteArray() : bytes;
        QString ignored;
        if (!isSummary && QFileInfo::exists(summaryPath))
            readBytes(summaryPath, &summaryBytes, &ignored);
        if (isSummary && QFileInfo::exists(recordsPath))
            readBytes(recordsPath, &recordBytes, &ignored);
        const nlohmann::json summary = summaryBytes.isEmpty() ? nlohmann::json() : parseObject(summaryBytes);
        if (!summaryBytes.isEmpty() && !looksLikeAiperfSummary(summary))
            out->issues.push_back(
                { 1, QStringLiteral("%1: not an AIPerf summary; records read alone").arg(summaryPath) });
        importAiperf(looksLikeAiperfSummary(summary) ? summary : nlohmann::json(), recordBytes,
            sourceOf(QStringLiteral("aiperf"), summaryBytes.isEmpty() ? recordBytes : summaryBytes), out);
        break;
    }
    case ResultFormat::Unknown:
        if (path.endsWith(QLatin1String(".jsonl"))) // a run file whose first line is damaged: its reader says how
            return readRunFile(path, out, error, progress);
        *error = unknownFormat(path);
        return false;
    }
    out->lines = bytes.count('\n') + (bytes.endsWith('\n') || bytes.isEmpty() ? 0 : 1);
    // Pages and commands read the experiment's name and SLO from here: an import has no spec of its own.
    out->experiment = importExperimentLine({ path });
    out->experiment["spec"]["name"] = QFileInfo(path).completeBaseName().toStdString();
    return true;
}

} // namespace ks
