// The Live page's Steer box: a number of streams on a concurrency arm, a rate
// on a rate arm, each from the keyboard (Alt+T, typing, Enter) as well as the
// button; nothing is sent while it is disabled, and its tooltip says why.
#include "pages/steerbox.h"

#include <QDoubleSpinBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

using namespace ks;

class TestSteerBox : public QObject {
    Q_OBJECT
private slots:
    void rateArmTakesATypedRate()
    {
        SteerBox box;
        box.show();
        QVERIFY(QTest::qWaitForWindowActive(&box));
        QSignalSpy rates(&box, &SteerBox::rateRequested);
        QSignalSpy streams(&box, &SteerBox::concurrencyRequested);
        box.setSteerable(true, SteerBox::Kind::Rate, 2);
        QCOMPARE(box.field()->value(), 2.0);
        QCOMPARE(box.field()->prefix(), QStringLiteral("rate "));
        QVERIFY(box.field()->toolTip().contains(QStringLiteral("ARM~rR")));
        QTest::keyClick(&box, Qt::Key_T, Qt::AltModifier); // to the number, all of it selected
        QTRY_VERIFY(box.field()->hasFocus());
        QTest::keyClicks(box.field(), QStringLiteral("4.5"));
        QTest::keyClick(box.field(), Qt::Key_Return);
        QCOMPARE(rates.size(), 1);
        QCOMPARE(rates.first().at(0).toDouble(), 4.5);
        QTest::keyClick(box.field(), Qt::Key_Up); // one req/s up, then the button
        box.button()->click();
        QCOMPARE(rates.size(), 2);
        QCOMPARE(rates.last().at(0).toDouble(), 5.5);
        QCOMPARE(streams.size(), 0);
    }

    void concurrencyArmTakesWholeStreams()
    {
        SteerBox box;
        QSignalSpy rates(&box, &SteerBox::rateRequested);
        QSignalSpy streams(&box, &SteerBox::concurrencyRequested);
        box.setSteerable(true, SteerBox::Kind::Concurrency, 8);
        QCOMPARE(box.field()->decimals(), 0);
        QVERIFY(box.field()->toolTip().contains(QStringLiteral("ARM~cN")));
        box.field()->setValue(12.4); // no fraction of a stream
        box.button()->click();
        QCOMPARE(streams.size(), 1);
        QCOMPARE(streams.first().at(0).toInt(), 12);
        QCOMPARE(rates.size(), 0);
    }

    void disabledSendsNothingAndSaysWhy()
    {
        SteerBox box;
        QSignalSpy rates(&box, &SteerBox::rateRequested);
        QSignalSpy streams(&box, &SteerBox::concurrencyRequested);
        box.setSteerable(false, SteerBox::Kind::Rate, 1, QStringLiteral("A sweep follows its own plan"));
        QVERIFY(!box.field()->isEnabled());
        QVERIFY(!box.button()->isEnabled());
        QVERIFY(box.button()->toolTip().endsWith(QStringLiteral("\nA sweep follows its own plan")));
        box.button()->click();
        QCOMPARE(rates.size() + streams.size(), 0);
        // Enabled again: the reason goes.
        box.setSteerable(true, SteerBox::Kind::Rate, 3);
        QVERIFY(!box.button()->toolTip().contains(QStringLiteral("sweep")));
    }
};

QTEST_MAIN(TestSteerBox)
#include "tst_steerbox.moc"
