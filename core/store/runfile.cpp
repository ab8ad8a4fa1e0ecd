#include "store/runfile.h"

#include "store/requestlineparser.h"

#include "store/recordjson.h"

#include <QFile>

#include <unordered_map>

namespace ks {

bool readRunFile(const QString& path, RunFile* out, QString* error, const ReadProgress& progress)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return false;
    }
    std::unordered_map<std::string, std::size_t> runIndex;
    RunData* lastRun = nullptr; // requests come in long runs of one label: skip the lookup
    auto runFor = [&](const std::string& name) -> RunData& {
        auto it = runIndex.find(name);
        if (it == runIndex.end()) {
            lastRun = nullptr; // the vector may move
            it = runIndex.emplace(name, out->runs.size()).first;
            RunData data;
            data.run = QString::fromStdString(name);
            out->runs.push_back(std::move(data));
        }
        return out->runs[it->second];
    };
    qint64 lineNumber = 0;
    const qint64 total = file.size();
    while (!file.atEnd()) {
        QByteArray line = file.readLine();
        ++lineNumber;
        if (progress && lineNumber % 4096 == 0)
            progress(file.pos(), total);
        const bool hadNewline = line.endsWith('\n');
        if (hadNewline)
            line.chop(1);
        if (line.trimmed().isEmpty())
            continue;
        if (line.contains("\"type\":\"request\"")) {
            // Nearly every line is a request: the fast path; anything odd falls through to the DOM path.
            const QString* sameRun = lastRun ? &lastRun->run : nullptr;
            if (std::optional<RequestRecord> record = parseRequestLine(line, sameRun)) {
                if (!lastRun || lastRun->run != record->run)
                    lastRun = &runFor(record->run.toStdString());
                lastRun->requests.push_back(std::move(*record));
                continue;
            }
        }
        const nlohmann::json j = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("type") || !j["type"].is_string()) {
            if (!hadNewline && file.atEnd()) {
                out->truncated = true;
                out->issues.push_back(
                    { lineNumber, QStringLiteral("truncated last line (the writer was stopped mid-line)") });
            } else {
                out->issues.push_back({ lineNumber, QStringLiteral("not a JSON object with a \"type\"") });
            }
            continue;
        }
        const std::string type = j["type"].get<std::string>();
        if (type == "experiment") {
            out->experiment = j;
        } else if (type == "run" && j.contains("run") && j["run"].is_string()) {
            RunData& run = runFor(j["run"].get<std::string>());
            run.info = j;
            run.config = QString::fromStdString(j.value("config", ""));
            run.arm = QString::fromStdString(j.value("arm", ""));
        } else if (type == "request") {
            QString problem;
            std::optional<RequestRecord> record = requestFromJson(j, &problem);
            if (!record) {
                out->issues.push_back({ lineNumber, problem });
                continue;
            }
            runFor(record->run.toStdString()).requests.push_back(std::move(*record));
        } else if (type == "summary" && j.contains("run") && j["run"].is_string()) {
            runFor(j["run"].get<std::string>()).summary = j;
        }
    }
    out->lines = lineNumber;
    return true;
}

} // namespace ks
