// Secrets never reach a run file or a log: the redaction rules on server
// commands, server output and the stored spec.
#include "util/redact.h"

#include <QTest>

using namespace ks;

namespace {
QStringList words(std::initializer_list<const char*> parts)
{
    QStringList out;
    for (const char* p : parts)
        out << QString::fromUtf8(p);
    return out;
}
QString u(const char* text)
{
    return QString::fromUtf8(text);
}
} // namespace

class TestRedact : public QObject {
    Q_OBJECT
private slots:
    void argv_data()
    {
        QTest::addColumn<QStringList>("in");
        QTest::addColumn<QStringList>("out");
        const char* r = "[redacted]";
        QTest::newRow("vllm --api-key") << words({ "vllm", "serve", "m", "--api-key", "sk-123", "--port", "8000" })
                                        << words({ "vllm", "serve", "m", "--api-key", r, "--port", "8000" });
        QTest::newRow("equals form") << words({ "x", "--api-key=sk-123" }) << words({ "x", "--api-key=[redacted]" });
        QTest::newRow("hf token") << words({ "x", "--hf-token", "hf_abc" }) << words({ "x", "--hf-token", r });
        QTest::newRow("token counts are knobs")
            << words({ "vllm", "--max-num-batched-tokens", "8192", "--tokenizer", "t" })
            << words({ "vllm", "--max-num-batched-tokens", "8192", "--tokenizer", "t" });
        QTest::newRow("password") << words({ "x", "--db-password", "hunter2" }) << words({ "x", "--db-password", r });
        QTest::newRow("flag without a value")
            << words({ "x", "--api-key", "--port", "1" }) << words({ "x", "--api-key", "--port", "1" });
    }
    void argv()
    {
        QFETCH(QStringList, in);
        QFETCH(QStringList, out);
        QCOMPARE(redactArgv(in), out);
    }

    void lines_data()
    {
        QTest::addColumn<QString>("in");
        QTest::addColumn<QString>("secret");
        QTest::addColumn<QString>("kept");
        QTest::newRow("header") << u("INFO request headers: Authorization: Bearer sk-live-999") << u("sk-live-999")
                                << u("INFO request headers: Authorization: Bearer");
        QTest::newRow("json header") << u(R"({"authorization": "Bearer abc.def"})") << u("abc.def")
                                     << u("authorization");
        QTest::newRow("bare bearer") << u("got token Bearer xyz123 from client") << u("xyz123") << u("from client");
        QTest::newRow("env echo") << u("HF_TOKEN=hf_secret loaded") << u("hf_secret") << u("loaded");
        QTest::newRow("argv echo") << u("args: --port 8000 --api-key sk-42 --max-num-seqs 32") << u("sk-42")
                                   << u("--max-num-seqs 32");
        QTest::newRow("harmless") << u("max_tokens=256 took 3 ms") << u("") << u("max_tokens=256 took 3 ms");
    }
    void lines()
    {
        QFETCH(QString, in);
        QFETCH(QString, secret);
        QFETCH(QString, kept);
        const QString out = redactLine(in);
        if (!secret.isEmpty()) {
            QVERIFY2(!out.contains(secret), qPrintable(out));
            QVERIFY2(out.contains(kRedacted), qPrintable(out));
        } else {
            QCOMPARE(out, in);
        }
        QVERIFY2(out.contains(kept), qPrintable(out));
    }

    void specKeepsItsShape()
    {
        const nlohmann::json spec = { { "name", "n" },
            { "server",
                { { "command",
                      { "vllm", "serve", "{model}", "--api-key", "sk-1", "--max-num-seqs", "{max_num_seqs}" } },
                    { "env", { { "HF_TOKEN", "hf_x" }, { "OLLAMA_NUM_PARALLEL", "{max_num_seqs}" } } } } } };
        const nlohmann::json clean = redactSpec(spec);
        QCOMPARE(clean["server"]["command"][4].get<std::string>(), kRedacted.toStdString());
        QCOMPARE(clean["server"]["command"][6].get<std::string>(), std::string("{max_num_seqs}"));
        QCOMPARE(clean["server"]["env"]["HF_TOKEN"].get<std::string>(), kRedacted.toStdString());
        QCOMPARE(clean["server"]["env"]["OLLAMA_NUM_PARALLEL"].get<std::string>(), std::string("{max_num_seqs}"));
        QVERIFY(redactSpec(nlohmann::json("not a spec")) == nlohmann::json("not a spec"));
        nlohmann::json odd = { { "server", { { "command", { 1, "--api-key", nullptr } } } } };
        QCOMPARE(redactSpec(odd)["server"]["command"][0].get<int>(), 1); // wrong types survive, never throw
    }
};

QTEST_GUILESS_MAIN(TestRedact)
#include "tst_redact.moc"
