// Every discriminator of every line kind of a real run file set to each wrong
// JSON type: every command that reads run files (as the real `knobscope`
// process) and the dashboard (in process) read the rest and never crash, abort
// or throw (CONTRIBUTING.md, "Bad input"). tst_runfilematrix checks what the reader
// makes of each wrong field; this checks what the commands and pages make of
// the reader's result.
//
// The cap, so the test stays near a minute in the debug build on two cores:
// one field of one line is changed per case (the first line of the kind that
// carries the field, else the first of its kind), which makes 275 files;
// every command and the dashboard on each would cost a quarter of an hour of
// CPU. So the cases are grouped by what the program reads of them, and each
// group runs once (its row names the first case and how many more it stands
// for):
// - the commands read a file only through readAnyRunFile(): files it reads into
//   the same RunFile (experiment line, runs, records, summaries, issue count)
//   are one input to them, apart from the wording of the issues on stderr;
// - the dashboard also replays every line (server samples, events, ticks)
//   through readRunLine(): files whose changed line decodes alike (kind, label,
//   cleaned object or record, detected format) are one input to it.
// And each row runs every command in one form; the other forms take turns
// (commandsNeverCrash says which; KNOBSCOPE_WRONGTYPES_ALL=1 runs them all).
#include "feeds/runfileloader.h"
#include "import/resultfile.h"
#include "models/driftmatrixmodel.h"
#include "pages/comparepage.h"
#include "pages/driftpage.h"
#include "store/recordjson.h"
#include "store/runline.h"
#include "window/mainwindow.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <memory>

using namespace ks;
using nlohmann::json;

namespace {

const QString kFixture = QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/fixture.jsonl");

// What the readers branch on, per line kind: the discriminators `type` and
// `run`, the labels runs are grouped by, and the fields whose presence or
// shape selects a path (probe passes, sweeps, repeats, shards, imports,
// workloads, summaries' verdicts). A dotted name is a field of an object.
struct Target {
    const char* kind;
    std::vector<const char*> fields;
};
const std::vector<Target> kTargets {
    { "experiment", { "type", "spec", "spec.name", "spec.probes", "spec.slo", "spec.arms" } },
    { "run",
        { "type", "run", "config", "arm", "model", "ticks", "sweep", "sweep.arm", "sweep.over", "sweep.value",
            "sweep.step", "repeat", "probes", "probes.set", "imported", "shard", "prompts", "merged" } },
    { "request", { "type", "run", "ok", "probe", "probe_repeat", "error", "warmup" } },
    { "summary",
        { "type", "run", "status", "gentle", "drift", "sweep", "repeat", "server", "client", "ttft_ms",
            "ttft_ms.p50" } },
    { "server", { "type", "run", "running", "waiting" } },
    { "server_event", { "type", "run", "t_us", "event" } },
    { "tick", { "type", "run", "t_us" } },
};

// A field of an object the line lacks is set inside this object, so that the rest
// of it is valid (a run line with a sweep whose `value` is wrong is still a sweep step).
const std::map<std::string, json> kSeeds {
    { "sweep", { { "arm", "burst-sweep" }, { "over", "rate" }, { "value", 4 }, { "step", "rate" } } },
};

const std::vector<std::pair<const char*, json>> kWrongValues {
    { "number", 42 },
    { "array", json::array({ 1, "x" }) },
    { "null", nullptr },
    { "object", json::object({ { "k", 1 } }) },
    { "bool", true },
    { "string", "x" },
};

json::json_pointer pointerOf(const char* dotted)
{
    json::json_pointer p;
    for (const QString& part : QString::fromLatin1(dotted).split(QLatin1Char('.')))
        p /= part.toStdString();
    return p;
}

json::value_t typeClass(const json& v)
{
    return v.is_number() ? json::value_t::number_integer : v.type(); // 42 is no wrong type for a float
}

struct Case {
    QString name; ///< "run.sweep = object (line 5)"
    qint64 line = 0; ///< 1-based
    QByteArray text; ///< the changed line
};

struct Row {
    QString name;
    QByteArray file;
    int cases = 1;
};

// The reader's decoding of one line, as the replay sees it.
std::string decodingKey(const QByteArray& line, qint64 number)
{
    std::vector<RunFileIssue> issues;
    const RunLine decoded = readRunLine(line, number, issues);
    std::string key = std::to_string(int(decoded.kind)) + '|' + decoded.run.toStdString() + '|';
    key += decoded.kind == RunLine::Kind::Request ? toJson(decoded.request).dump() : decoded.object.dump();
    return key;
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeAll(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

// What the commands read of a file: readAnyRunFile()'s result (runs, records, summaries,
// the experiment line, how many issues), the issues' wording aside.
std::string runFileKey(const QString& path)
{
    RunFile file;
    QString error;
    if (!readAnyRunFile(path, &file, &error))
        return "error|" + error.toStdString();
    std::string key
        = file.experiment.dump() + '|' + std::to_string(file.truncated) + '|' + std::to_string(file.issues.size());
    for (const RunData& run : file.runs) {
        key += '|' + run.run.toStdString() + '|' + run.config.toStdString() + '|' + run.arm.toStdString() + '|'
            + run.info.dump() + '|' + (run.summary ? runSummaryToJson(*run.summary).dump() : std::string("null"));
        for (const RequestRecord& r : run.requests)
            key += toJson(r).dump();
    }
    return key;
}

struct Rows {
    std::vector<Row> commands; ///< one per distinct readAnyRunFile() result
    std::vector<Row> dashboard; ///< one per distinct decoding of the changed line
    int cases = 0;
};

// Adds a case to the row of its key (a new row for a new key); row 0 is the fixture's.
void group(std::vector<Row>& rows, std::map<std::string, std::size_t>& rowOf, const std::string& key, const Case& c,
    const QByteArray& file)
{
    const auto [it, added] = rowOf.emplace(key, rows.size());
    if (added)
        rows.push_back({ c.name, file, 1 });
    else
        ++rows[it->second].cases;
}

// Every case, grouped twice; the fixture itself is the first row of both.
Rows buildRows(const QTemporaryDir& dir)
{
    const QByteArray fixture = readAll(kFixture);
    const QList<QByteArray> lines = fixture.split('\n');
    std::vector<Case> cases;
    for (const Target& target : kTargets) {
        for (const char* field : target.fields) {
            const json::json_pointer at = pointerOf(field);
            // The first line of the kind that carries the field (not as null), else the first of its kind.
            qsizetype chosen = -1, fallback = -1;
            for (qsizetype i = 0; i < lines.size() && chosen < 0; ++i) {
                const json j = json::parse(lines[i].toStdString(), nullptr, false);
                if (!j.is_object() || j.value("type", std::string()) != target.kind)
                    continue;
                if (fallback < 0)
                    fallback = i;
                if (j.contains(at) && !j.at(at).is_null())
                    chosen = i;
            }
            if (chosen < 0)
                chosen = fallback;
            if (chosen < 0)
                continue;
            const json original = json::parse(lines[chosen].toStdString());
            for (const auto& [label, value] : kWrongValues) {
                json j = original;
                if (!j.contains(at.parent_pointer()) || !j.at(at.parent_pointer()).is_object()) {
                    const auto seed = kSeeds.find(at.parent_pointer().back());
                    j[at.parent_pointer()] = seed != kSeeds.end() ? seed->second : json::object();
                }
                if (j.contains(at) && typeClass(j.at(at)) == typeClass(value))
                    continue; // not a wrong type
                j[at] = value;
                cases.push_back({ QStringLiteral("%1.%2 = %3 (line %4)")
                                      .arg(QLatin1String(target.kind), QLatin1String(field), QLatin1String(label))
                                      .arg(chosen + 1),
                    chosen + 1, QByteArray::fromStdString(j.dump()) });
            }
        }
    }

    Rows rows;
    rows.cases = int(cases.size());
    const QString probe = dir.filePath(QStringLiteral("probe.jsonl"));
    writeAll(probe, fixture);
    rows.commands.push_back({ QStringLiteral("fixture as recorded"), fixture, 1 });
    rows.dashboard.push_back(rows.commands.front());
    std::map<std::string, std::size_t> commandRow { { runFileKey(probe), 0 } }, dashboardRow { { "as recorded", 0 } };
    for (const Case& c : cases) {
        QList<QByteArray> mutated = lines;
        mutated[c.line - 1] = c.text;
        const QByteArray file = mutated.join('\n');
        writeAll(probe, file);
        group(rows.commands, commandRow, runFileKey(probe), c, file);
        // The replay reads every line (server samples, events, ticks too) through readRunLine().
        QString error;
        const std::string decoded = decodingKey(c.text, c.line);
        const std::string key = decoded == decodingKey(lines[c.line - 1], c.line)
            ? std::string("as recorded")
            : std::to_string(c.line) + '|' + decoded + '|' + std::to_string(int(detectResultFormat(probe, &error)));
        group(rows.dashboard, dashboardRow, key, c, file);
    }
    return rows;
}

struct Command {
    QString name;
    QStringList args;
    QProcess* process = nullptr;
};

} // namespace

class TestWrongTypes : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    Rows m_rows;

    static void rowsData(const std::vector<Row>& rows)
    {
        QTest::addColumn<int>("row");
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const Row& r = rows[i];
            const QString name = r.cases > 1 ? QStringLiteral("%1 (+%2 alike)").arg(r.name).arg(r.cases - 1) : r.name;
            QTest::newRow(qPrintable(name)) << int(i);
        }
    }

    QString fileOf(const char* list, int row) const
    {
        return m_dir.filePath(QStringLiteral("%1%2.jsonl").arg(QLatin1String(list)).arg(row));
    }

public:
    // The rows are built here, before the _data() functions run (also for -datatags).
    TestWrongTypes() { m_rows = buildRows(m_dir); }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        qInfo("%d cases over %zu line kinds: %zu distinct files as the commands read them, %zu as the replay "
              "reads them (the fixture included)",
            m_rows.cases, kTargets.size(), m_rows.commands.size(), m_rows.dashboard.size());
        QVERIFY(m_rows.cases > 200);
        QVERIFY(m_rows.commands.size() > 20);
        QVERIFY(m_rows.dashboard.size() > m_rows.commands.size()); // server lines, events and ticks are replay's
        for (std::size_t i = 0; i < m_rows.commands.size(); ++i)
            QVERIFY(writeAll(fileOf("commands", int(i)), m_rows.commands[i].file));
        for (std::size_t i = 0; i < m_rows.dashboard.size(); ++i)
            QVERIFY(writeAll(fileOf("dashboard", int(i)), m_rows.dashboard[i].file));
    }

    // Each command as a real process: it exits 0 or 2 (never a signal, never "terminate called").
    void commandsNeverCrash_data() { rowsData(m_rows.commands); }
    void commandsNeverCrash()
    {
        QFETCH(int, row);
        const QString file = fileOf("commands", row);
        const QString out = m_dir.filePath(QStringLiteral("out%1").arg(row));
        QVERIFY(QDir().mkpath(out));
        // compare's intervals: fewer resamples than the default 1000, the same code path.
        const QStringList resamples { QStringLiteral("--resamples"), QStringLiteral("100") };
        auto chart = [&](const char* name) {
            return Command { QStringLiteral("export --chart ") + QLatin1String(name),
                { QStringLiteral("export"), file, QStringLiteral("--chart"), QLatin1String(name),
                    QStringLiteral("--out"), out + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".png") } };
        };
        // On every row: each command that reads the file, in one of its forms (the issue's
        // `export --chart ttft` among them).
        std::vector<Command> commands {
            { QStringLiteral("report"), { QStringLiteral("report"), file } },
            { QStringLiteral("report --json"), { QStringLiteral("report"), file, QStringLiteral("--json") } },
            { QStringLiteral("compare --json"),
                QStringList { QStringLiteral("compare"), file, QStringLiteral("--json") } + resamples },
            { QStringLiteral("drift --json"), { QStringLiteral("drift"), file, QStringLiteral("--json") } },
            { QStringLiteral("drift FIXTURE FILE --json"),
                { QStringLiteral("drift"), kFixture, file, QStringLiteral("--json") } },
            chart("ttft"),
            { QStringLiteral("export --vllm-json"),
                { QStringLiteral("export"), file, QStringLiteral("--vllm-json"), out + QStringLiteral("/vllm") } },
            { QStringLiteral("merge"),
                { QStringLiteral("merge"), file, QStringLiteral("--out"), out + QStringLiteral("/merged.jsonl") } },
            { QStringLiteral("import"),
                { QStringLiteral("import"), file, QStringLiteral("--out"), out + QStringLiteral("/imported.jsonl") } },
        };
        // The other forms take turns, one per row (every one on the fixture, and on every row with
        // KNOBSCOPE_WRONGTYPES_ALL=1: about three times as long). `export --report` alone costs as
        // much as the rest of a row: it draws every bar and CDF chart of every arm, with intervals.
        const std::vector<Command> turns {
            { QStringLiteral("compare"), QStringList { QStringLiteral("compare"), file } + resamples },
            { QStringLiteral("drift"), { QStringLiteral("drift"), file } },
            { QStringLiteral("export --report"),
                { QStringLiteral("export"), file, QStringLiteral("--report"), out + QStringLiteral("/report") } },
            chart("tpot"),
            chart("itl"),
            chart("throughput"),
            chart("drift"),
            chart("knee"),
            { QStringLiteral("export --chart live-ttft --baseline FILE"),
                { QStringLiteral("export"), file, QStringLiteral("--chart"), QStringLiteral("live-ttft"),
                    QStringLiteral("--baseline"), file, QStringLiteral("--out"), out + QStringLiteral("/live.png") } },
        };
        if (row == 0 || qEnvironmentVariableIsSet("KNOBSCOPE_WRONGTYPES_ALL"))
            commands.insert(commands.end(), turns.begin(), turns.end());
        else
            commands.push_back(turns[std::size_t(row - 1) % turns.size()]);

        // All at once: they are independent, and the machine's cores share them.
        std::vector<std::unique_ptr<QProcess>> processes;
        for (Command& c : commands) {
            processes.push_back(std::make_unique<QProcess>());
            c.process = processes.back().get();
            c.process->setStandardOutputFile(QProcess::nullDevice()); // unread, it could fill its pipe
            c.process->start(QStringLiteral(KNOBSCOPE_BIN), c.args);
        }
        QStringList failures;
        for (Command& c : commands) {
            QProcess& p = *c.process;
            if (!p.waitForFinished(120000)) {
                p.kill();
                p.waitForFinished();
                failures << c.name + QStringLiteral(": did not finish");
                continue;
            }
            const QByteArray err = p.readAllStandardError();
            const bool crashed = p.exitStatus() != QProcess::NormalExit || err.contains("terminate called");
            if (crashed || (p.exitCode() != 0 && p.exitCode() != 2)) {
                const qsizetype what = err.indexOf("terminate called");
                failures << QStringLiteral("%1: %2 %3: %4")
                                .arg(c.name, crashed ? QStringLiteral("crashed, signal/exit") : QStringLiteral("exit"))
                                .arg(p.exitCode())
                                .arg(QString::fromUtf8(what >= 0 ? err.mid(what, 200) : err.right(200)));
            } else if (row == 0 && p.exitCode() != 0 && !c.name.startsWith(QLatin1String("export --chart knee"))
                && c.name != QLatin1String("merge") && c.name != QLatin1String("import")) {
                // The fixture as recorded: everything but the knee chart (no sweep), merge (not a
                // shard) and import (already a run file) succeeds, so the harness can fail.
                failures << QStringLiteral("%1: exit %2 on the fixture: %3")
                                .arg(c.name)
                                .arg(p.exitCode())
                                .arg(QString::fromUtf8(err.right(300)));
            }
        }
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QStringLiteral("\n    "))));
    }

    // The dashboard: open the file (replay on the Live page, Compare and Drift
    // filled by the loader), every arm and metric of Compare, a cell of Drift.
    // What runs on the GUI thread is checked for throws here; a throw on a
    // worker thread or in an event handler ends the test, which fails it too.
    void dashboardNeverThrows_data() { rowsData(m_rows.dashboard); }
    void dashboardNeverThrows()
    {
        QFETCH(int, row);
        MainWindow window;
        QSignalSpy ended(&window, &MainWindow::replayEnded);
        window.openRunFile(fileOf("dashboard", row));
        QVERIFY(ended.wait(60000));
        QTRY_VERIFY_WITH_TIMEOUT(window.loader()->current()
                && (window.loader()->current()->intervals || !window.loader()->current()->error.isEmpty()),
            60000);
        if (row == 0) {
            QCOMPARE(ended.first().first().toString(), QString());
            QVERIFY(window.loader()->current()->error.isEmpty());
        }
        try {
            ComparePage* compare = window.comparePage();
            for (const QString& arm : compare->arms()) {
                compare->selectArm(arm);
                for (const char* metric : { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "throughput" })
                    compare->selectMetric(QLatin1String(metric));
            }
            DriftPage* drift = window.driftPage();
            if (drift->matrix()->rowCount() > 0 && drift->matrix()->columnCount() > 0)
                drift->showCell(0, drift->matrix()->columnCount() - 1);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
    }
};

QTEST_MAIN(TestWrongTypes)
#include "tst_wrongtypes.moc"
