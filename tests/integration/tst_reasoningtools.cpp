#include <QTest>
class TestReasoningTools : public QObject {
    Q_OBJECT
private slots:
    void placeholder() { QSKIP("not written yet"); }
};
QTEST_GUILESS_MAIN(TestReasoningTools)
#include "tst_reasoningtools.moc"
