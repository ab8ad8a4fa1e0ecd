#include "store/runfile.h"

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
    std::unordered_map<QString, std::size_t> runIndex;
    RunData* lastRun = nullptr; // requests come in long runs of one label: skip the lookup
    auto runFor = [&](const QString& name) -> RunData& {
        if (lastRun && lastRun->run == name)
            return *lastRun;
        auto it = runIndex.find(name);
        if (it == runIndex.end()) {
            it = runIndex.emplace(name, out->runs.size()).first;
            RunData data;
            data.run = name;
            out->runs.push_back(std::move(data));
        }
        lastRun = &out->runs[it->second];
        return *lastRun;
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
        const std::size_t issuesBefore = out->issues.size();
        RunLine decoded = readRunLine(line, lineNumber, out->issues, lastRun ? &lastRun->run : nullptr);
        if (!hadNewline && file.atEnd() && decoded.kind == RunLine::Kind::Skipped) {
            // A killed writer leaves half a line: say so instead of "not valid JSON".
            out->truncated = true;
            out->issues.resize(issuesBefore);
            out->issues.push_back(
                { lineNumber, QStringLiteral("truncated last line (the writer was stopped mid-line)") });
            continue;
        }
        switch (decoded.kind) {
        case RunLine::Kind::Experiment:
            out->experiment = std::move(decoded.object);
            break;
        case RunLine::Kind::Run: {
            RunData& run = runFor(decoded.run);
            run.config = QString::fromStdString(decoded.object.value("config", std::string()));
            run.arm = QString::fromStdString(decoded.object.value("arm", std::string()));
            run.info = std::move(decoded.object);
            break;
        }
        case RunLine::Kind::Request:
            runFor(decoded.run).requests.push_back(std::move(decoded.request));
            break;
        case RunLine::Kind::Summary:
            runFor(decoded.run).summary = std::move(decoded.object);
            break;
        default:
            break; // server samples and events: the replay's business; blank, unknown and skipped lines
        }
    }
    out->lines = lineNumber;
    return true;
}

} // namespace ks
