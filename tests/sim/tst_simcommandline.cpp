#include "simcommandline.h"

#include <QTest>

using namespace kssim;

namespace {
std::variant<SimOptions, HelpRequested, QString> parse(const QStringList& args)
{
    return parseSimCommandLine(QStringList { QStringLiteral("knobscope-sim") } + args);
}
} // namespace

class TestSimCommandLine : public QObject {
    Q_OBJECT
private slots:
    void defaults()
    {
        const auto parsed = parse({});
        const auto* o = std::get_if<SimOptions>(&parsed);
        QVERIFY(o);
        QCOMPARE(o->engine.profile.name, QStringLiteral("sim-8b"));
        QCOMPARE(o->servedModelName, QStringLiteral("sim-8b"));
        QCOMPARE(o->port, quint16(8000));
        QCOMPARE(o->host.toString(), QStringLiteral("127.0.0.1"));
        QCOMPARE(o->engine.maxNumSeqs, 128);
        QVERIFY(o->engine.prefixCaching);
        QVERIFY(o->kernelArrivalStamps);
    }

    void printsTheProjectVersion()
    {
        const auto parsed = parse({ QStringLiteral("--version") });
        const auto* text = std::get_if<HelpRequested>(&parsed);
        QVERIFY(text);
        QCOMPARE(text->text, QStringLiteral("knobscope-sim " KNOBSCOPE_VERSION "\n"));
    }

    void readsArrivalStamp()
    {
        const auto parsed = parse({ QStringLiteral("--arrival-stamp"), QStringLiteral("read") });
        const auto* o = std::get_if<SimOptions>(&parsed);
        QVERIFY(o);
        QVERIFY(!o->kernelArrivalStamps);
    }

    void readsEngineAndFaultFlags()
    {
        const auto parsed = parse({ QStringLiteral("--profile"), QStringLiteral("sim-1.8b"),
            QStringLiteral("--max-num-seqs"), QStringLiteral("32"), QStringLiteral("--fail-429"),
            QStringLiteral("0.25"), QStringLiteral("--stall"), QStringLiteral("0.5"), QStringLiteral("--stall-ms"),
            QStringLiteral("300"), QStringLiteral("--crlf"), QStringLiteral("--port"), QStringLiteral("0") });
        const auto* o = std::get_if<SimOptions>(&parsed);
        QVERIFY(o);
        QCOMPARE(o->engine.profile.name, QStringLiteral("sim-1.8b"));
        QCOMPARE(o->engine.maxNumSeqs, 32);
        QCOMPARE(o->faults.http429, 0.25);
        QCOMPARE(o->faults.stall, 0.5);
        QCOMPARE(o->faults.stallMs, 300);
        QVERIFY(o->wire.crlf);
        QCOMPARE(o->port, quint16(0));
    }

    void rejectsBadFlags_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown profile") << QStringList { QStringLiteral("--profile"), QStringLiteral("gpt") }
                                         << QStringLiteral("--profile");
        QTest::newRow("fraction above one")
            << QStringList { QStringLiteral("--fail-500"), QStringLiteral("1.5") } << QStringLiteral("--fail-500");
        QTest::newRow("fractions sum above one") << QStringList { QStringLiteral("--fail-500"), QStringLiteral("0.6"),
            QStringLiteral("--stall"), QStringLiteral("0.6") }
                                                 << QStringLiteral("sum");
        QTest::newRow("port out of range")
            << QStringList { QStringLiteral("--port"), QStringLiteral("70000") } << QStringLiteral("--port");
        QTest::newRow("budget below max-num-seqs") << QStringList { QStringLiteral("--max-num-seqs"),
            QStringLiteral("64"), QStringLiteral("--max-num-batched-tokens"), QStringLiteral("32") }
                                                   << QStringLiteral("--max-num-batched-tokens");
        QTest::newRow("bad host") << QStringList { QStringLiteral("--host"), QStringLiteral("example") }
                                  << QStringLiteral("--host");
        QTest::newRow("bad arrival stamp") << QStringList { QStringLiteral("--arrival-stamp"), QStringLiteral("peek") }
                                           << QStringLiteral("--arrival-stamp");
        QTest::newRow("unknown flag") << QStringList { QStringLiteral("--bogus") } << QStringLiteral("bogus");
    }
    void rejectsBadFlags()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const auto parsed = parse(args);
        const auto* error = std::get_if<QString>(&parsed);
        QVERIFY(error);
        QVERIFY2(error->contains(mentions), qPrintable(*error));
    }
};

QTEST_GUILESS_MAIN(TestSimCommandLine)
#include "tst_simcommandline.moc"
