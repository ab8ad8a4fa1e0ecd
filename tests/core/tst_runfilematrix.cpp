// The tolerant reader against a generated matrix of slightly wrong files: every
// field of every record type (and of their objects) set to each wrong JSON
// type, to null, to a huge number, to a 1 MB string; plus truncated and binary
// lines. Every command's core path (report's summaries and table, compare,
// drift, replay) must read each file without a throw, and every changed type
// must be named as an issue with its line and field.
#include "common/comparisonroundtrip.h"
#include "compare/compareformat.h"
#include "compare/comparison.h"
#include "drift/driftanalysis.h"
#include "metrics/runsummary.h"
#include "source/jsonlreplay.h"
#include "store/runfile.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <map>
#include <set>

using namespace ks;
using nlohmann::json;

namespace {

std::vector<std::string> baseLines()
{
    std::vector<std::string> lines;
    QFile file(QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/fixture.jsonl"));
    if (!file.open(QIODevice::ReadOnly))
        return lines;
    // A few request and server lines per run are enough: the mutations go to
    // the first line of each type, and a short file keeps the matrix quick.
    std::map<std::string, int> perRunAndType;
    while (!file.atEnd()) {
        const std::string line = file.readLine().trimmed().toStdString();
        const json j = json::parse(line, nullptr, false);
        const std::string type = j.is_object() ? j.value("type", std::string()) : std::string();
        if ((type == "request" || type == "server") && ++perRunAndType[type + j.value("run", std::string())] > 3)
            continue;
        lines.push_back(line);
    }
    return lines;
}

struct Case {
    std::size_t line; ///< 0-based
    json::json_pointer field;
    json value;
    QString path; ///< "run.config"
};

// The fixture is a real recorded run file: two configurations, a load arm,
// and probe passes with a restart, so drift's fields are in the matrix too.

// The values a field is set to: each JSON type, null, a huge number, a long string.
std::vector<std::pair<const char*, json>> mutations()
{
    return {
        { "null", nullptr },
        { "bool", true },
        { "int", -7 },
        { "huge", json::parse("123456789012345678901234567890") },
        { "float", 1e300 },
        { "string", "wrong" },
        { "array", json::array({ 1, "x" }) },
        { "object", json::object({ { "k", 1 } }) },
        { "1MB string", std::string(1 << 20, 'x') },
    };
}

void collect(const json& value, const json::json_pointer& at, const QString& path, std::size_t line,
    std::vector<Case>& out, int depth)
{
    for (auto it = value.begin(); it != value.end(); ++it) {
        const json::json_pointer child = at / it.key();
        const QString childPath = path + QLatin1Char('.') + QString::fromStdString(it.key());
        out.push_back({ line, child, nullptr, childPath });
        if (it->is_object() && depth < 2)
            collect(*it, child, childPath, line, out, depth + 1);
    }
}

// One field of each record type's first line (and one level of its objects).
std::vector<Case> fieldCases(const std::vector<std::string>& lines)
{
    std::vector<Case> cases;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const json j = json::parse(lines[i]);
        const std::string type = j.at("type").get<std::string>();
        const bool probeRun = type == "run" && j.contains("probes");
        const bool probeRequest = type == "request" && j.contains("probe") && j.at("probe").is_string();
        const std::string key = type + (probeRun || probeRequest ? "+probe" : "");
        if (!seen.insert(key).second)
            continue;
        collect(j, json::json_pointer(), QString::fromStdString(type), i, cases, 0);
    }
    return cases;
}

QString writeFile(const QTemporaryDir& dir, const std::vector<std::string>& lines, const QByteArray& tail = {})
{
    const QString path = dir.filePath(QStringLiteral("case.jsonl"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    for (const std::string& line : lines) {
        file.write(line.data(), qint64(line.size()));
        file.write("\n");
    }
    file.write(tail);
    return path;
}

// Everything the commands and pages compute from a run file, in-process.
// Returns an empty string, or what threw.
QString exercise(const QString& path, RunFile* file, bool replay = true)
{
    try {
        QString error;
        if (!readRunFile(path, file, &error))
            return QStringLiteral("read: ") + error;
        for (const RunData& run : file->runs) {
            const json s = summarizeRun(run.run, run.config, run.arm, run.requests, experimentSlo(file->experiment));
            formatSummaryTable(s);
            if (run.summary) {
                json merged = s;
                const json stored = runSummaryToJson(*run.summary);
                for (const char* key : { "client", "server", "gentle", "status", "drift", "warnings" }) {
                    if (stored.contains(key))
                        merged[key] = stored[key];
                }
                formatSummaryTable(merged);
            }
        }
        CompareOptions options;
        options.resamples = 0;
        const json arms = test::comparedChecked(*file, options, &error);
        if (arms.is_array()) {
            compareMarkdown(arms);
            compareCsv(arms);
        }
        json set;
        const std::vector<ProbePass> passes = probePassesOf(*file, 0, &set);
        const DriftReport drift = analyzeDrift(passes, set);
        drift.toJson();
        if (!replay)
            return {};
        // The replay path, as fast as possible.
        JsonlReplay source(path, 0);
        QSignalSpy finished(&source, &JsonlReplay::finished);
        source.start();
        if (finished.isEmpty() && !finished.wait(10000))
            return QStringLiteral("replay did not finish");
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

class TestRunFileMatrix : public QObject {
    Q_OBJECT
private slots:
    void everyWrongFieldIsNamedAndNothingThrows()
    {
        const std::vector<std::string> lines = baseLines();
        QVERIFY(lines.size() > 40);
        QTemporaryDir dir;
        RunFile clean;
        QCOMPARE(exercise(writeFile(dir, lines), &clean), QString());
        QVERIFY(clean.issues.empty());

        int cases = 0, named = 0;
        for (const Case& c : fieldCases(lines)) {
            const json original = json::parse(lines[c.line]).at(c.field);
            const bool nested = c.field.parent_pointer() != json::json_pointer();
            for (const auto& [label, value] : mutations()) {
                const std::string kind = label;
                // Nested fields get the three type changes; the replay path reads one per field.
                if (nested && kind != "null" && kind != "string" && kind != "object")
                    continue;
                std::vector<std::string> mutated = lines;
                json j = json::parse(lines[c.line]);
                j.at(c.field) = value;
                mutated[c.line] = j.dump();
                RunFile file;
                const QString thrown = exercise(writeFile(dir, mutated), &file, kind == "object");
                const QString where
                    = QStringLiteral("%1 = %2 (line %3)").arg(c.path, QLatin1String(label)).arg(c.line + 1);
                QVERIFY2(thrown.isEmpty(), qPrintable(where + QStringLiteral(": ") + thrown));
                ++cases;
                // Same type, or null for an optional field, or any value where the file had null
                // (its type is not known from the file): maybe fine, maybe out of range.
                if (value.type() == original.type() || (value.is_number() && original.is_number())
                    || (value.is_null() && c.path != QLatin1String("request.run")) || original.is_null())
                    continue;
                // A different type: an issue on that line names the field (or the record it belongs to).
                const qint64 lineNumber = qint64(c.line + 1);
                // A wrong `type` leaves no record kind to name: the issue says "type: ...".
                const QString field = c.path.endsWith(QLatin1String(".type")) && c.path.count(QLatin1Char('.')) == 1
                    ? QStringLiteral("type:")
                    : c.path.section(QLatin1Char('.'), 0, 1);
                const bool found = std::any_of(file.issues.begin(), file.issues.end(), [&](const RunFileIssue& i) {
                    return i.line == lineNumber && (i.message.startsWith(c.path) || i.message.startsWith(field));
                });
                // Unknown-to-the-reader fields (free-form objects such as knobs) may take any type.
                const bool freeForm = c.path.startsWith(QLatin1String("run.knobs."))
                    || c.path.startsWith(QLatin1String("experiment.spec.configs"))
                    || c.path.startsWith(QLatin1String("experiment.spec.arms"))
                    || c.path.startsWith(QLatin1String("experiment.spec.server."))
                    || c.path.startsWith(QLatin1String("experiment.spec.prompts."))
                    || c.path.startsWith(QLatin1String("experiment.spec.probes."))
                    || c.path == QLatin1String("experiment.spec.prompts")
                    || c.path == QLatin1String("experiment.spec.probes")
                    || c.path == QLatin1String("experiment.spec.server")
                    || c.path.startsWith(QLatin1String("summary.errors_by_reason"))
                    || c.path.startsWith(QLatin1String("summary.error_details"));
                if (freeForm && !found)
                    continue;
                QVERIFY2(found, qPrintable(where + QStringLiteral(": no issue names it")));
                ++named;
            }
        }
        qInfo("%d mutated files, %d wrong types named by line and field", cases, named);
        QVERIFY(cases > 800);
    }

    void truncatedAndBinaryLinesAreSkippedWithTheirNumbers_data()
    {
        QTest::addColumn<QByteArray>("bad");
        QTest::newRow("half a request") << QByteArray("{\"type\":\"request\",\"run\":\"mns2/burst\",\"id\":3,\"t_se");
        QTest::newRow("binary") << QByteArray("\x00\x01\xff\xfe{\"type\":\"run\"}\x80", 20);
        QTest::newRow("invalid UTF-8 in a string")
            << QByteArray("{\"type\":\"request\",\"run\":\"\xc3\x28\",\"id\":1,\"t_send_us\":1,\"ok\":true}");
        QTest::newRow("deeply nested") << QByteArray(20000, '[') + QByteArray(20000, ']');
        QTest::newRow("a number") << QByteArray("42");
    }
    void truncatedAndBinaryLinesAreSkippedWithTheirNumbers()
    {
        QFETCH(QByteArray, bad);
        std::vector<std::string> lines = baseLines();
        const std::size_t at = lines.size() / 2;
        lines.insert(lines.begin() + qsizetype(at), bad.toStdString());
        QTemporaryDir dir;
        RunFile file;
        QCOMPARE(exercise(writeFile(dir, lines), &file), QString());
        QVERIFY(!file.issues.empty());
        QCOMPARE(file.issues.front().line, qint64(at + 1));
        QCOMPARE(file.runs.size(), std::size_t(6)); // the rest of the file is read
        // The same bytes as a killed writer's last line: "truncated", not an error in the middle.
        RunFile killed;
        QCOMPARE(exercise(writeFile(dir, baseLines(), bad.left(bad.size() / 2 + 1)), &killed), QString());
        if (!killed.issues.empty())
            QVERIFY(killed.truncated || killed.issues.back().line == qint64(baseLines().size() + 1));
    }
};

QTEST_GUILESS_MAIN(TestRunFileMatrix)
#include "tst_runfilematrix.moc"
