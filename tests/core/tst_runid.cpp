#include "store/runid.h"

#include <QTest>

using namespace ks;

class TestRunId : public QObject {
    Q_OBJECT
private slots:
    void parsesEveryPart_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("config");
        QTest::addColumn<QString>("arm");
        QTest::addColumn<QString>("step");
        QTest::addColumn<int>("repeat");
        QTest::addColumn<QString>("segment");
        QTest::addColumn<QString>("setting");
        QTest::addColumn<QString>("configOrLabel");
        QTest::newRow("plain") << "mns32/stress"
                               << "mns32"
                               << "stress"
                               << "" << 1 << ""
                               << ""
                               << "mns32";
        QTest::newRow("repeat") << "mns32/stress#3"
                                << "mns32"
                                << "stress"
                                << "" << 3 << ""
                                << ""
                                << "mns32";
        QTest::newRow("sweep step") << "mns32/knee@4"
                                    << "mns32"
                                    << "knee"
                                    << "4" << 1 << ""
                                    << ""
                                    << "mns32";
        QTest::newRow("sweep step repeat") << "a/knee@sync#2"
                                           << "a"
                                           << "knee"
                                           << "sync" << 2 << ""
                                           << ""
                                           << "a";
        QTest::newRow("segment") << "base/stress~c32"
                                 << "base"
                                 << "stress"
                                 << "" << 1 << "c32"
                                 << "c32"
                                 << "base";
        QTest::newRow("segment again") << "base/stress~r4.5#2"
                                       << "base"
                                       << "stress"
                                       << "" << 1 << "r4.5#2"
                                       << "r4.5"
                                       << "base";
        QTest::newRow("ad hoc") << "adhoc"
                                << ""
                                << "adhoc"
                                << "" << 1 << ""
                                << ""
                                << "adhoc";
        QTest::newRow("ad hoc segment") << "adhoc~c8"
                                        << ""
                                        << "adhoc"
                                        << "" << 1 << "c8"
                                        << "c8"
                                        << "adhoc";
        // A label's own '~' or '#' is the label's: the configuration is cut at the first '/'.
        QTest::newRow("label with marks") << "a~b#x/stress"
                                          << "a~b#x"
                                          << "stress"
                                          << "" << 1 << ""
                                          << ""
                                          << "a~b#x";
        QTest::newRow("merged") << "mns32 @b/stress#2"
                                << "mns32 @b"
                                << "stress"
                                << "" << 2 << ""
                                << ""
                                << "mns32 @b";
        QTest::newRow("not a repeat") << "x/stress#two"
                                      << "x"
                                      << "stress#two"
                                      << "" << 1 << ""
                                      << ""
                                      << "x";
    }

    void parsesEveryPart()
    {
        QFETCH(QString, name);
        const RunId id = RunId::parse(name);
        QTEST(id.config, "config");
        QTEST(id.arm, "arm");
        QTEST(id.step, "step");
        QTEST(id.repeat, "repeat");
        QTEST(id.segment, "segment");
        QTEST(id.setting(), "setting");
        QTEST(id.configOrLabel(), "configOrLabel");
        // Printed back, the same name: parse and toString are one grammar.
        QCOMPARE(id.toString(), name);
    }

    void partsOfANameWithEverything()
    {
        const RunId id = RunId::parse(QStringLiteral("c/knee@8#2~c16"));
        QCOMPARE(id.armRun(), QStringLiteral("knee@8#2"));
        QCOMPARE(id.unsegmented(), QStringLiteral("c/knee@8#2"));
        QCOMPARE(id.withoutConfig(), QStringLiteral("knee@8#2~c16"));
        QVERIFY(id.hasConfig() && id.isSweepStep() && id.isSegment());
    }

    void builtFromParts()
    {
        RunId id;
        id.config = QStringLiteral("mns8");
        id.arm = QStringLiteral("stress");
        QCOMPARE(id.toString(), QStringLiteral("mns8/stress"));
        id.repeat = 2;
        id.segment = QStringLiteral("c4");
        QCOMPARE(id.toString(), QStringLiteral("mns8/stress#2~c4"));
    }
};

QTEST_GUILESS_MAIN(TestRunId)
#include "tst_runid.moc"
