// The simdjson fast path of the run-file reader against the tolerant nlohmann
// path: for every line the fast path accepts, the tolerant path must read the
// same record with no issue; everything else must be declined (and so read by
// the tolerant path, which names the problem).
#include "store/requestlinefast.h"
#include "store/requestlineparser.h"

#include <QFile>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace ks;
using nlohmann::json;

namespace {

bool same(const RequestRecord& a, const RequestRecord& b)
{
    return a.run == b.run && a.id == b.id && a.probe == b.probe && a.probeRepeat == b.probeRepeat
        && a.tSchedUs == b.tSchedUs && a.tSendUs == b.tSendUs && a.tWireUs == b.tWireUs && a.ttftUs == b.ttftUs
        && a.ttfcUs == b.ttfcUs && a.e2eUs == b.e2eUs && a.itlUs == b.itlUs && a.inTokens == b.inTokens
        && a.outTokens == b.outTokens && a.outTokensFromUsage == b.outTokensFromUsage && a.status == b.status
        && a.ok == b.ok && a.warmup == b.warmup && a.error == b.error && a.errorDetail == b.errorDetail
        && a.outputSha256 == b.outputSha256 && a.reasoningSha256 == b.reasoningSha256 && a.outputText == b.outputText
        && a.reasoningText == b.reasoningText && a.tHeadersUs == b.tHeadersUs && a.server == b.server;
}

// Returns whether the fast path took the line; fails the test if it took it
// and the tolerant path disagrees.
bool check(const std::string& line, QString* problem)
{
    std::string padded = line;
    padded.append(FastRequestParser::kPadding, 'x'); // the padding's content must not matter
    FastRequestParser fast;
    RequestRecord a;
    if (!fast.parse(padded.data(), line.size(), padded.size(), &a, nullptr))
        return false;
    std::vector<RunFileIssue> issues;
    RequestRecord b;
    QString syntax;
    const RequestLineResult result
        = parseRequestLine(QByteArrayView(line.data(), qsizetype(line.size())), 1, &b, issues, nullptr, &syntax);
    if (result != RequestLineResult::Record)
        *problem = QStringLiteral("the tolerant path did not read a record: ") + syntax;
    else if (!issues.empty())
        *problem = QStringLiteral("the tolerant path had an issue: ") + issues.front().message;
    else if (!same(a, b))
        *problem = QStringLiteral("the records differ");
    return true;
}

std::vector<std::string> fixtureRequests()
{
    std::vector<std::string> lines;
    QFile file(QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/fixture.jsonl"));
    if (!file.open(QIODevice::ReadOnly))
        return lines;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        if (line.contains("\"type\":\"request\""))
            lines.push_back(line.toStdString());
    }
    return lines;
}

} // namespace

class TestRequestLineFast : public QObject {
    Q_OBJECT
private slots:
    void takesEveryWriterLine()
    {
        const std::vector<std::string> lines = fixtureRequests();
        QVERIFY(lines.size() > 50); // the fixture: load and probe requests of a recorded run
        for (const std::string& line : lines) {
            QString problem;
            QVERIFY2(check(line, &problem), line.substr(0, 200).c_str());
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
    }

    void agreesOrDeclinesOnMutations()
    {
        const std::vector<std::string> lines = fixtureRequests();
        QVERIFY(!lines.empty());
        // One load request and one probe request (with texts and repeat).
        std::vector<json> bases { json::parse(lines.front()) };
        for (const std::string& line : lines) {
            const json j = json::parse(line);
            if (j.value("probe", json()).is_string()) {
                bases.push_back(j);
                break;
            }
        }
        const std::vector<json> values { nullptr, true, false, -7, 0, 12, json::parse("12.0"), json::parse("1e3"),
            json::parse("123456789012345678901234567890"), 4294967296LL, 2147483648LL, 1e300, "wrong", "",
            std::string(64, 'a'), std::string(64, 'G'), std::string(300, 'x'), std::string(5000, 'y'),
            "esc\\\"aped \xe6\x9d\xb1", json::array(), json::array({ 1, 2, 3 }), json::array({ 1, "x" }),
            json::array({ -1 }), json::array({ 2147483648LL }), json::object(), json::object({ { "k", 1 } }) };
        int taken = 0, declined = 0;
        for (const json& base : bases) {
            for (auto it = base.begin(); it != base.end(); ++it) {
                for (const json& value : values) {
                    json mutated = base;
                    mutated[it.key()] = value;
                    QString problem;
                    if (check(mutated.dump(), &problem))
                        ++taken;
                    else
                        ++declined;
                    QVERIFY2(problem.isEmpty(),
                        qPrintable(QStringLiteral("%1 = %2: %3")
                                       .arg(QString::fromStdString(it.key()),
                                           QString::fromStdString(value.dump()).left(80), problem)));
                }
            }
        }
        QVERIFY(taken > 0 && declined > 0);
    }

    // A llama.cpp request line (headers and the server's timings) stays on the
    // fast path, and every mutation of its `server` object is either read the
    // same by both paths or declined.
    void takesLlamaCppLinesAndAgreesOnTimings()
    {
        json base = json::parse(fixtureRequests().front());
        base["t_headers_us"] = base["t_send_us"].get<qint64>() + 1500;
        base["server"] = { { "prompt_ms", 62.703 }, { "predicted_ms", 102.018 }, { "prompt_n", 335 },
            { "predicted_n", 20 }, { "cache_n", 128 }, { "source", "llamacpp-timings" } };
        {
            std::string padded = base.dump();
            const std::size_t size = padded.size();
            padded.append(FastRequestParser::kPadding, ' ');
            FastRequestParser fast;
            RequestRecord r;
            QVERIFY(fast.parse(padded.data(), size, padded.size(), &r, nullptr));
            QCOMPARE(r.tHeadersUs, base["t_send_us"].get<qint64>() + 1500);
            const ServerTimings expected { 62.703, 102.018, 335, 20, 128 };
            QVERIFY(r.server == expected);
        }
        const std::vector<json> values { nullptr, true, -1, 0, 7, json::parse("12.0"), 0.5, json::parse("1e3"),
            4294967296LL, "x", json::array(), json::object() };
        int taken = 0, declined = 0;
        for (const char* key :
            { "prompt_ms", "predicted_ms", "prompt_n", "predicted_n", "cache_n", "source", "other" }) {
            for (const json& value : values) {
                json mutated = base;
                mutated["server"][key] = value;
                QString problem;
                (check(mutated.dump(), &problem) ? taken : declined)++;
                QVERIFY2(problem.isEmpty(),
                    qPrintable(QStringLiteral("server.%1 = %2: %3")
                                   .arg(QLatin1String(key), QString::fromStdString(value.dump()), problem)));
            }
        }
        for (const json& value : values) {
            json mutated = base;
            mutated["t_headers_us"] = value;
            QString problem;
            (check(mutated.dump(), &problem) ? taken : declined)++;
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
        QString problem;
        QVERIFY(check(base.dump(), &problem));
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(taken > 20 && declined > 20);
    }

    void declinesWhatIsNotOneCleanObject()
    {
        const std::string line = fixtureRequests().front();
        const std::vector<std::string> odd {
            line + " {}", // trailing content
            line + "x",
            line.substr(0, line.size() / 2), // truncated
            "[" + line + "]",
            line.substr(0, line.size() - 1) + ",\"unknown_field\":1}", // a field the writer does not write
            line.substr(0, line.size() - 1) + ",\"ok\":null}", // a required field repeated as null
            std::string("\xff\xfe") + line,
            "",
        };
        for (const std::string& l : odd) {
            QString problem;
            QVERIFY2(!check(l, &problem), l.substr(0, 120).c_str());
        }
    }

    void repeatedKeysCountOnceAsOnTheTolerantPath()
    {
        json j = json::parse(fixtureRequests().front());
        const std::string line = j.dump();
        // The last itl_us wins on both paths.
        const std::string twice = line.substr(0, line.size() - 1) + ",\"itl_us\":[5,6]}";
        QString problem;
        QVERIFY(check(twice, &problem));
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
};

QTEST_GUILESS_MAIN(TestRequestLineFast)
#include "tst_requestlinefast.moc"
