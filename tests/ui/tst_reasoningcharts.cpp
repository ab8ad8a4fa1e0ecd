// The Compare page's reasoning and tool-call charts: offered only for a run
// file that has the figures, drawn from compare's own numbers, and the HTML
// report's table beside them.
#include "charts/barchart.h"
#include "compare/comparisonwriter.h"
#include "feeds/runfileloader.h"
#include "pages/comparepage.h"

#include <QComboBox>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;
using nlohmann::json;

namespace {

const QString kPlain = QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/fixture.jsonl");
const QString kReasoning = QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/reasoning-tools.jsonl");

std::shared_ptr<const LoadedRunFile> loadAndWait(RunFileLoader& loader, const QString& path)
{
    std::shared_ptr<const LoadedRunFile> last;
    QObject::connect(&loader, &RunFileLoader::loaded, [&last](std::shared_ptr<const LoadedRunFile> r) { last = r; });
    loader.load(path);
    if (!QTest::qWaitFor([&last] { return last && (last->intervals || !last->error.isEmpty()); }, 60000))
        qWarning("loadAndWait: %s gave no result within 60 s", qPrintable(path));
    return last;
}

QComboBox* metricChooser(ComparePage& page)
{
    for (QComboBox* box : page.findChildren<QComboBox*>())
        if (box->findData(QStringLiteral("ttft_ms")) >= 0)
            return box;
    return nullptr;
}

QByteArray htmlReportOf(ComparePage& page, const QTemporaryDir& dir)
{
    const QString path = dir.filePath(QStringLiteral("report.html"));
    QString error;
    if (!page.exportHtmlReport(path, &error))
        return error.toUtf8();
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestReasoningCharts : public QObject {
    Q_OBJECT
private slots:
    void plainRunOffersNoReasoningMetric()
    {
        RunFileLoader loader;
        ComparePage page(&loader);
        const auto result = loadAndWait(loader, kPlain);
        QVERIFY(result && result->error.isEmpty());
        page.setResult(result);
        QComboBox* metric = metricChooser(page);
        QVERIFY(metric);
        for (const char* key : { "reasoning", "tool-calls", "itl-no-tools" })
            QCOMPARE(metric->findData(QString::fromLatin1(key)), -1);
        QTemporaryDir dir;
        QString error;
        QVERIFY(!page.exportChart(QStringLiteral("reasoning"), page.arms().value(0),
            dir.filePath(QStringLiteral("r.png")), QSize(600, 400), &error));
        QVERIFY2(error.contains(QLatin1String("no figures")), qPrintable(error));
        const QByteArray html = htmlReportOf(page, dir);
        QVERIFY2(html.contains("<h2>"), html.left(200).constData());
        QVERIFY(!html.contains("Reasoning and tool calls"));
    }

    void reasoningRunOffersItsMetrics()
    {
        RunFileLoader loader;
        ComparePage page(&loader);
        const auto result = loadAndWait(loader, kReasoning);
        QVERIFY(result && result->error.isEmpty());
        page.setResult(result);
        QComboBox* metric = metricChooser(page);
        QVERIFY(metric);
        for (const char* key : { "reasoning", "tool-calls", "itl-no-tools" })
            QVERIFY2(metric->findData(QString::fromLatin1(key)) >= 0, key);
        QCOMPARE(metric->itemText(metric->findData(QStringLiteral("reasoning"))),
            QStringLiteral("reasoning tokens / request"));

        // The bars are compare's figures: reasoning, answer and tool-call tokens per request.
        page.selectArm(QStringLiteral("tools"));
        page.selectMetric(QStringLiteral("reasoning"));
        const json* tools = nullptr;
        const json compare = comparisonToJson(result->comparison);
        for (const json& arm : compare)
            if (arm["arm"] == "tools")
                tools = &arm;
        QVERIFY(tools);
        const json& figures = (*tools)["configs"][0]["reasoning_tools"];
        const QVector<BarChart::Set>& sets = page.bars()->sets();
        QCOMPARE(sets.size(), qsizetype(2));
        QCOMPARE(sets[0].values.size(), qsizetype(3));
        QCOMPARE(sets[0].values[0], figures["reasoning_tokens_per_request"].get<double>());
        QCOMPARE(sets[0].values[2], figures["tool_call_events_per_request"].get<double>());
        QVERIFY(sets[0].values[0] > 0);
        page.selectMetric(QStringLiteral("itl-no-tools"));
        QCOMPARE(page.bars()->sets()[0].values[1], figures["itl_ms_no_tools"]["p50"].get<double>());

        QTemporaryDir dir;
        QString error;
        const QString png = dir.filePath(QStringLiteral("reasoning.png"));
        QVERIFY2(page.exportChart(QStringLiteral("reasoning"), QStringLiteral("tools"), png, QSize(600, 400), &error),
            qPrintable(error));
        QVERIFY(QFile::exists(png));
        const QByteArray html = htmlReportOf(page, dir);
        QVERIFY2(html.contains("<h3>Reasoning and tool calls</h3>"), html.left(200).constData());
        QVERIFY(html.contains("<th scope=\"col\">reasoning tok/req</th>"));
    }
};

QTEST_MAIN(TestReasoningCharts)
#include "tst_reasoningcharts.moc"
