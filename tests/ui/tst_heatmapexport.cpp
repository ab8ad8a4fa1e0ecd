#include "charts/heatmapexport.h"
#include "charts/heatmapplot.h"
#include "pages/livesearchpanel.h"

#include <QApplication>
#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;
using nlohmann::json;

namespace {

json searchLine()
{
    json knobs = json::array();
    for (const char* name : { "max_num_batched_tokens", "max_num_seqs" })
        knobs.push_back({ { "name", name }, { "min", 8 }, { "max", 8192 }, { "scale", "log2" }, { "integer", true },
            { "cheaper", "lower" } });
    const auto probe = [](int i, int b, int s, std::optional<double> objective) {
        json p = { { "probe", i }, { "point", { { "max_num_batched_tokens", b }, { "max_num_seqs", s } } },
            { "config", "p" }, { "objective", objective ? json(*objective) : json(nullptr) },
            { "ci95", objective ? json::array({ *objective - 0.5, *objective + 0.5 }) : json(nullptr) },
            { "feasible", objective.has_value() } };
        if (!objective)
            p["why"] = "no completions";
        return p;
    };
    return { { "type", "search" }, { "knobs", knobs }, { "arm", "stress" }, { "metric", "goodput_req_per_s" },
        { "minimize", false }, { "budget", 4 }, { "tolerance", 0.02 }, { "method", "gp-ei" }, { "stop", "budget" },
        { "best", { { "max_num_batched_tokens", 512 }, { "max_num_seqs", 48 } } }, { "objective", 18.0 },
        { "ci95", { 17.5, 18.5 } },
        { "top",
            { { "point", { { "max_num_batched_tokens", 512 }, { "max_num_seqs", 48 } } }, { "objective", 18.0 },
                { "ci95", { 17.5, 18.5 } } } },
        { "plateau", json::array({ { { "max_num_batched_tokens", 512 }, { "max_num_seqs", 48 } } }) },
        { "probes",
            json::array({ probe(0, 512, 48, 18.0), probe(1, 4096, 16, 6.0), probe(2, 64, 2048, std::nullopt),
                probe(3, 2048, 256, 3.0) }) } };
}

QString writeRunFile(const QTemporaryDir& dir, const json& search)
{
    const QString path = dir.filePath(QStringLiteral("search.jsonl"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    const json experiment = { { "type", "experiment" }, { "schema", 1 }, { "spec", { { "name", "heat" } } } };
    f.write(QByteArray::fromStdString(experiment.dump() + "\n" + search.dump() + "\n"));
    return path;
}

bool hasColorNear(const QImage& image, QColor want, int tolerance)
{
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2) {
            const QColor c = image.pixelColor(x, y);
            if (std::abs(c.red() - want.red()) <= tolerance && std::abs(c.green() - want.green()) <= tolerance
                && std::abs(c.blue() - want.blue()) <= tolerance)
                return true;
        }
    return false;
}

} // namespace

class TestHeatmapExport : public QObject {
    Q_OBJECT

private slots:
    void writesEachFormatFromTheFileAlone()
    {
        QTemporaryDir dir;
        const QString file = writeRunFile(dir, searchLine());
        QString error;
        for (const char* suffix : { "png", "svg", "pdf" }) {
            const QString out = dir.filePath(QStringLiteral("heat.") + QLatin1String(suffix));
            QVERIFY2(exportSearchHeatmap(
                         file, QStringLiteral("max_num_seqs,max_num_batched_tokens"), {}, out, QSize(900, 600), &error),
                qPrintable(error));
            QFile written(out);
            QVERIFY(written.open(QIODevice::ReadOnly));
            const QByteArray head = written.read(64);
            if (qstrcmp(suffix, "svg") == 0)
                QVERIFY(head.contains("<?xml") || head.contains("<svg"));
            else if (qstrcmp(suffix, "pdf") == 0)
                QVERIFY(head.startsWith("%PDF"));
        }
        QImage png(dir.filePath(QStringLiteral("heat.png")));
        QCOMPARE(png.size(), QSize(900, 600));
        // The best probe's area takes the bright end of the scale, the worst's the dark end.
        QVERIFY(hasColorNear(png, QColor(253, 231, 37), 12));
        QVERIFY(hasColorNear(png, QColor(68, 1, 84), 12));
    }

    void refusesWhatItCannotDraw()
    {
        QTemporaryDir dir;
        QString error;
        const QString file = writeRunFile(dir, searchLine());
        QVERIFY(!exportSearchHeatmap(
            file, QStringLiteral("max_num_seqs"), {}, dir.filePath(QStringLiteral("x.png")), QSize(400, 300), &error));
        QVERIFY(error.contains(QStringLiteral("name two knobs")));
        QVERIFY(!exportSearchHeatmap(
            file, {}, QStringLiteral("ttft_ms.p99"), dir.filePath(QStringLiteral("x.png")), QSize(400, 300), &error));
        QVERIFY(error.contains(QStringLiteral("the search's objective, goodput_req_per_s")));
        const QString one
            = writeRunFile(dir, { { "type", "search" }, { "knob", "max_num_seqs" }, { "probes", json::array() } });
        QVERIFY(!exportSearchHeatmap(one, {}, {}, dir.filePath(QStringLiteral("x.png")), QSize(400, 300), &error));
        QVERIFY2(error.contains(QStringLiteral("one knob")), qPrintable(error));
    }

    void livePanelGrowsAProbeAtATime()
    {
        LiveSearchPanel panel;
        panel.resize(800, 500);
        const json knobs
            = { { "max_num_seqs", { { "min", 8 }, { "max", 256 }, { "scale", "log2" }, { "integer", true } } },
                  { "max_num_batched_tokens", { { "min", 512 }, { "max", 8192 }, { "scale", "log2" } } } };
        const json experiment = { { "type", "experiment" },
            { "spec", { { "name", "s" }, { "search", { { "knobs", knobs }, { "arm", "stress" } } } } } };
        panel.setExperiment(experiment);
        QVERIFY(!panel.isHidden());
        QCOMPARE(panel.soFar()["knobs"][0]["name"].get<std::string>(), std::string("max_num_batched_tokens"));
        QVERIFY(panel.plot()->heatmap().probes.empty());
        const json lines = searchLine()["probes"];
        for (const json& p : lines) {
            json line = p;
            line["type"] = "search_probe";
            panel.addProbe(line);
        }
        QCOMPARE(panel.plot()->heatmap().probes.size(), lines.size());
        // The top so far is starred; the recommendation waits for the search's end.
        int tops = 0, recommended = 0;
        for (const HeatmapProbe& p : panel.plot()->heatmap().probes) {
            tops += p.top;
            recommended += p.recommended;
            if (p.top)
                QCOMPARE(*p.objective, 18.0);
        }
        QCOMPARE(tops, 1);
        QCOMPARE(recommended, 0);
        // A closing line of another search changes nothing; this search's rings the recommendation.
        json other = searchLine();
        other["knobs"][0]["name"] = "ctx_size";
        panel.finish(other);
        QVERIFY(panel.soFar()["best"].is_null());
        panel.finish(searchLine());
        recommended = 0;
        for (const HeatmapProbe& p : panel.plot()->heatmap().probes)
            recommended += p.recommended;
        QCOMPARE(recommended, 1);
        QCOMPARE(panel.plot()->heatmap().probes.size(), lines.size());
        panel.addProbe(lines[0]); // a probe line after the end is not counted twice
        QCOMPARE(panel.plot()->heatmap().probes.size(), lines.size());
        // Another experiment, without a search over several knobs: the panel goes.
        panel.setExperiment({ { "type", "experiment" }, { "spec", { { "name", "plain" } } } });
        QVERIFY(panel.isHidden());
        panel.addProbe(lines[0]); // and a stray probe line changes nothing
        QVERIFY(panel.soFar().is_null());
    }
};

QTEST_MAIN(TestHeatmapExport)
#include "tst_heatmapexport.moc"
