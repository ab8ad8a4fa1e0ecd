#include "compare/searchreport.h"
#include "experiment/knobsearch.h"
#include "experiment/searchdriver.h"
#include "spec/experimentspec.h"
#include "store/runline.h"

#include <QTest>

#include <cmath>
#include <functional>
#include <set>

using namespace ks;
using nlohmann::json;

namespace {

SearchSpec searchSpec(double min, double max, SearchSpec::Scale scale, bool integer, int budget, bool minimize = false)
{
    SearchSpec s;
    s.knob = QStringLiteral("max_num_seqs");
    s.min = min;
    s.max = max;
    s.scale = scale;
    s.integer = integer;
    s.budget = budget;
    s.minimize = minimize;
    s.arm = QStringLiteral("stress");
    return s;
}

// Runs a search against f(value) -> (objective, half width of its interval, feasible).
struct Truth {
    double objective;
    double halfWidth;
    bool feasible = true;
};
KnobSearch drive(const SearchSpec& s, const std::function<Truth(double)>& f)
{
    KnobSearch search(s);
    for (int guard = 0; guard < 100; ++guard) {
        const auto value = search.next();
        if (!value)
            break;
        const Truth t = f(*value);
        SearchProbe p;
        p.value = *value;
        p.objective = t.objective;
        p.low = t.objective - t.halfWidth;
        p.high = t.objective + t.halfWidth;
        p.feasible = t.feasible;
        search.addProbe(p);
    }
    return search;
}

std::variant<ExperimentSpec, std::vector<SpecError>> parsedWith(const json& search, const json& extra = json::object())
{
    json doc = { { "name", "t" }, { "target", { { "base_url", "http://127.0.0.1:1" } } },
        { "server", { { "command", { "sim", "--max-num-seqs", "{max_num_seqs}" } } } },
        { "configs", json::array({ { { "label", "base" }, { "model", "m" } } }) },
        { "arms",
            json::array({ { { "name", "stress" }, { "mode", "concurrency" }, { "concurrency", 8 }, { "requests", 10 } },
                { { "name", "knee" }, { "mode", "sweep" }, { "over", "rate" }, { "values", { 1, 2 } },
                    { "duration_s", 5 } } }) },
        { "search", search } };
    doc.update(extra);
    return parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
}

std::vector<SpecError> errorsOf(const json& search, const json& extra = json::object())
{
    auto parsed = parsedWith(search, extra);
    if (auto* errors = std::get_if<std::vector<SpecError>>(&parsed))
        return *errors;
    return {};
}

bool mentions(const std::vector<SpecError>& errors, const QString& text)
{
    for (const SpecError& e : errors)
        if (e.toString().contains(text))
            return true;
    return false;
}

} // namespace

class TestKnobSearch : public QObject {
    Q_OBJECT
private slots:
    void unimodalFindsThePeak()
    {
        // Goodput peaking at 64 on a log scale, narrow intervals: the search lands within a factor 2.
        const auto s = searchSpec(8, 512, SearchSpec::Scale::Log2, true, 8);
        const KnobSearch search = drive(s, [](double v) { return Truth { 10 - std::pow(std::log2(v) - 6, 2), 0.05 }; });
        const SearchResult r = search.result();
        QVERIFY(r.best);
        const double best = r.probes[*r.best].value;
        QVERIFY2(std::abs(std::log2(best) - 6) <= 1, qPrintable(QString::number(best)));
        QVERIFY(r.probes.size() <= 8);
        // The first two probes are the golden-section points of the log range.
        QCOMPARE(r.probes[0].value, std::round(std::exp2(3 + 0.381966 * 6)));
        QCOMPARE(r.probes[1].value, std::round(std::exp2(3 + 0.618034 * 6)));
    }

    void plateauStopsEarlyAndNamesTheSmallest()
    {
        // Flat from 64 up: every value there is good enough; the edge at 64 is resolved, then it stops.
        const auto s = searchSpec(8, 512, SearchSpec::Scale::Log2, true, 12);
        const KnobSearch search = drive(s, [](double v) { return Truth { v >= 64 ? 10.0 : 10.0 * v / 64 - 1, 0.5 }; });
        const SearchResult r = search.result();
        QCOMPARE(r.stop, QStringLiteral("converged"));
        QVERIFY(r.probes.size() < 12);
        QVERIFY(r.best && r.recommended);
        QVERIFY(r.plateauLow < r.plateauHigh);
        QVERIFY2(r.plateauLow >= 56 && r.plateauLow <= 70, qPrintable(QString::number(r.plateauLow)));
        QCOMPARE(r.probes[*r.recommended].value, r.plateauLow);
        const json line = search.line();
        QCOMPARE(line["plateau"][0].get<double>(), r.plateauLow);
        QCOMPARE(line["best"].get<double>(), r.plateauLow);
        QCOMPARE(line["top"]["value"].get<double>(), r.probes[*r.best].value);
        const QString text = searchText(line);
        QVERIFY2(
            text.contains(
                QStringLiteral("plateau (within 2 % of the top or not told apart from it): %1, ").arg(r.plateauLow)),
            qPrintable(text));
        QVERIFY(text.startsWith(QStringLiteral("best max_num_seqs = %1").arg(r.plateauLow)));
    }

    void flatTopRecommendsTheCheapEdge()
    {
        // Goodput flat within 0.6 % from 32 to 256, tight intervals that tell 40 from 256
        // statistically, collapsing below 32 (a queue at fewer slots than streams): budget 5
        // on 2..256 must name a value from 32 to 64, not the 0.5 % better 256.
        const auto s = searchSpec(2, 256, SearchSpec::Scale::Log2, true, 5);
        const KnobSearch search = drive(s, [](double v) {
            const double top = 39.24 + 0.22 * (std::log2(v) - 5) / 3;
            return Truth { v >= 32 ? top : 39.24 * std::pow(v / 32, 3.5), 0.07 };
        });
        const SearchResult r = search.result();
        QVERIFY(r.best && r.recommended);
        const double recommended = r.probes[*r.recommended].value;
        QVERIFY2(recommended >= 32 && recommended <= 64, qPrintable(QString::number(recommended)));
        QVERIFY(r.probes[*r.best].value > recommended); // the top scored higher, by under 2 %
        const QString text = searchText(search.line());
        QVERIFY2(text.contains(QStringLiteral("recommended: the smallest value on the plateau")), qPrintable(text));
    }

    void cheaperHigherRecommendsTheLargest()
    {
        const auto spec = [] {
            auto s = searchSpec(1, 64, SearchSpec::Scale::Linear, true, 10);
            s.cheaper = SearchSpec::Cheaper::Higher;
            return s;
        }();
        // Flat up to 20, falling after: with larger values cheaper, the edge is near 20.
        const KnobSearch search = drive(spec, [](double v) {
            return Truth { v <= 20 ? 10.0 : 10.0 - (v - 20) * 0.5, 0.05 };
        });
        const SearchResult r = search.result();
        QVERIFY(r.recommended);
        const double recommended = r.probes[*r.recommended].value;
        QVERIFY2(recommended >= 18 && recommended <= 20, qPrintable(QString::number(recommended)));
    }

    void infeasibleRegionRanksBelow()
    {
        // The objective grows with the value, but past 100 the SLO breaks: the best is the largest feasible.
        const auto s = searchSpec(8, 512, SearchSpec::Scale::Log2, true, 10);
        const KnobSearch search = drive(s, [](double v) { return Truth { v, 0.01 * v, v <= 100 }; });
        const SearchResult r = search.result();
        QVERIFY(r.best);
        const double best = r.probes[*r.best].value;
        QVERIFY2(best <= 100 && best >= 70, qPrintable(QString::number(best)));
        for (const SearchProbe& p : r.probes)
            QVERIFY(!p.feasible || p.value <= best);
    }

    void allInfeasibleHasNoBest()
    {
        const auto s = searchSpec(1, 64, SearchSpec::Scale::Linear, true, 4);
        const KnobSearch search = drive(s, [](double v) { return Truth { v, 1, false }; });
        QVERIFY(!search.result().best);
        QVERIFY(search.line()["best"].is_null());
        QVERIFY(searchText(search.line()).contains(QStringLiteral("no probe met")));
    }

    void budgetIsNeverExceeded()
    {
        for (int budget : { 2, 3, 5 }) {
            const auto s = searchSpec(0, 1000, SearchSpec::Scale::Linear, false, budget);
            const KnobSearch search = drive(s, [](double v) { return Truth { -std::abs(v - 777), 0.001 }; });
            QCOMPARE(int(search.probes().size()), budget);
            QCOMPARE(search.stopReason(), QStringLiteral("budget"));
        }
    }

    void neverProbesTwice()
    {
        // Four integers, a generous budget: every value at most once, then exhausted.
        const auto s = searchSpec(1, 4, SearchSpec::Scale::Linear, true, 20);
        const KnobSearch search = drive(s, [](double v) { return Truth { v, 0.01 }; });
        std::set<double> seen;
        for (const SearchProbe& p : search.probes()) {
            QVERIFY2(seen.insert(p.value).second, qPrintable(QString::number(p.value)));
            QVERIFY(p.value >= 1 && p.value <= 4 && p.value == std::round(p.value));
        }
        QCOMPARE(search.stopReason(), QStringLiteral("exhausted"));
        QCOMPARE(search.result().probes[*search.result().best].value, 4.0);
    }

    void indistinguishableProbesRecommendTheCheapEnd()
    {
        // Wide intervals everywhere: the top is settled after three probes, then every value
        // is on the plateau and the search walks its cheap edge to the end of the range.
        const auto s = searchSpec(8, 512, SearchSpec::Scale::Log2, true, 12);
        const KnobSearch search = drive(s, [](double v) { return Truth { std::log2(v), 100 }; });
        QCOMPARE(search.stopReason(), QStringLiteral("converged"));
        const SearchResult r = search.result();
        QVERIFY(r.recommended);
        QVERIFY2(r.probes[*r.recommended].value <= 9, qPrintable(QString::number(r.probes[*r.recommended].value)));
        QCOMPARE(r.plateau.size(), r.probes.size());
    }

    void minimizesLatency()
    {
        const auto s = searchSpec(1, 100, SearchSpec::Scale::Linear, false, 10, true);
        const KnobSearch search = drive(s, [](double v) { return Truth { std::pow(v - 30, 2) + 5, 0.1 }; });
        const SearchResult r = search.result();
        QVERIFY(std::abs(r.probes[*r.best].value - 30) < 10);
    }

    void specErrors()
    {
        const json good = { { "knob", "max_num_seqs" }, { "min", 8 }, { "max", 512 }, { "scale", "log2" },
            { "integer", true }, { "arm", "stress" }, { "objective", "goodput_req_per_s" }, { "budget", 6 } };
        const std::vector<SpecError> none = errorsOf(good);
        QVERIFY2(none.empty(), none.empty() ? "" : qPrintable(none.front().toString()));
        auto with = [&](const char* key, const json& value) {
            json s = good;
            s[key] = value;
            return errorsOf(s);
        };
        QVERIFY(mentions(with("min", 512), QStringLiteral("must be below max")));
        QVERIFY(mentions(with("min", 0), QStringLiteral("log2 scale needs min > 0")));
        QVERIFY(mentions(with("budget", 1), QStringLiteral("budget of at least 2")));
        QVERIFY(mentions(with("arm", "nope"), QStringLiteral("no arm named \"nope\"")));
        QVERIFY(mentions(with("objective", "speed"), QStringLiteral("unknown objective")));
        QVERIFY(mentions(with("objective", "capacity"), QStringLiteral("capacity comes from a sweep")));
        QVERIFY(mentions(with("scale", "log10"), QStringLiteral("expected \"linear\" or \"log2\"")));
        QVERIFY(mentions(with("extra", 1), QStringLiteral("unknown field")));
        QVERIFY(mentions(with("tolerance", 1.5), QStringLiteral("expected a fraction from 0 to below 1")));
        QVERIFY(mentions(with("tolerance", "2 %"), QStringLiteral("search.tolerance")));
        QVERIFY(mentions(with("cheaper", "middle"), QStringLiteral("expected \"lower\" or \"higher\"")));
        QVERIFY(with("cheaper", "higher").empty());
        QVERIFY(with("tolerance", 0).empty());
        json knee = good;
        knee["arm"] = "knee";
        knee["objective"] = "capacity";
        QVERIFY(errorsOf(knee).empty());
        QVERIFY(mentions(errorsOf(good, { { "server", nullptr } }), QStringLiteral("needs a \"server\" command")));
        const json two
            = json::array({ { { "label", "a" }, { "model", "m" } }, { { "label", "b" }, { "model", "m" } } });
        QVERIFY(mentions(errorsOf(good, { { "configs", two } }), QStringLiteral("exactly one configuration")));
        // The search knob fills its placeholder though the base configuration does not set it.
        auto parsed = parseExperimentSpec(QByteArray::fromStdString(json(
            { { "name", "t" }, { "target", { { "base_url", "http://127.0.0.1:1" } } },
                { "server", { { "command", { "sim", "{max_num_seqs}" } } } },
                { "configs", json::array({ { { "label", "base" }, { "model", "m" } } }) },
                { "arms",
                    json::array({ { { "name", "stress" }, { "mode", "concurrency" }, { "concurrency", 8 },
                        { "requests", 10 } } }) },
                { "search", good } }).dump()));
        QVERIFY(std::holds_alternative<ExperimentSpec>(parsed));
        const ExperimentSpec& spec = std::get<ExperimentSpec>(parsed);
        QVERIFY(spec.search);
        QCOMPARE(spec.search->budget, 6);
        QVERIFY(!spec.search->minimize);
        QCOMPARE(spec.search->probeLabel(64), QStringLiteral("max_num_seqs=64"));
    }

    void driverAppendsEachProbeAsAConfiguration()
    {
        const json search = { { "knob", "max_num_seqs" }, { "min", 8 }, { "max", 512 }, { "scale", "log2" },
            { "integer", true }, { "arm", "stress" }, { "objective", "goodput_req_per_s" }, { "budget", 3 } };
        auto parsed = parsedWith(search);
        QVERIFY(std::holds_alternative<ExperimentSpec>(parsed));
        ExperimentSpec spec = std::get<ExperimentSpec>(std::move(parsed));
        SearchDriver driver(spec);
        // The base configuration gives way to the first probe, named and valued as the search chose it.
        const double first = KnobSearch(*spec.search).next().value();
        QCOMPARE(spec.configs.size(), std::size_t(1));
        QCOMPARE(spec.configs[0].label, spec.search->probeLabel(first));
        QVERIFY(spec.configs[0].knobs["max_num_seqs"] == spec.search->knobValue(first));
        QCOMPARE(spec.configs[0].search["probe"].get<int>(), 0);
        QCOMPARE(driver.plannedConfigs(), std::size_t(3));
        // A probe whose arm never ran has no figure, only the reason; the next probe follows.
        driver.concludeProbe(0, false, { QStringLiteral("probe 0: the port is in use") });
        QCOMPARE(spec.configs.size(), std::size_t(2));
        QCOMPARE(spec.configs[1].search["probe"].get<int>(), 1);
        // A run of another arm is not the search's: Stop with nothing of the search's arm adds no probe.
        auto knee = std::make_shared<RunData>();
        knee->arm = QStringLiteral("knee");
        driver.keepRun(1, knee, false);
        driver.concludeProbe(1, true, {});
        QCOMPARE(spec.configs.size(), std::size_t(2));
        const json line = driver.takeLine(true);
        QCOMPARE(line["probes"].size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(line["probes"][0]["why"].get<std::string>()),
            QStringLiteral("probe 0: the port is in use"));
        QCOMPARE(QString::fromStdString(line["stop"].get<std::string>()), QStringLiteral("stopped"));
        QVERIFY(driver.takeLine(true).is_null()); // written once
    }

    void searchLineReadsBack()
    {
        const auto s = searchSpec(8, 512, SearchSpec::Scale::Log2, true, 4);
        const KnobSearch search = drive(s, [](double v) { return Truth { v, 1 }; });
        const std::string text = search.line().dump();
        std::vector<RunFileIssue> issues;
        const RunLine line = readRunLine(QByteArrayView(text.data(), qsizetype(text.size())), 1, issues);
        QCOMPARE(line.kind, RunLine::Kind::Search);
        QVERIFY(issues.empty());
        QCOMPARE(line.object["probes"].size(), std::size_t(4));
        QVERIFY(line.object["best"].is_number_integer());
        const json compared = searchJson(line.object);
        QVERIFY(!compared.contains("type"));
        QVERIFY(QString::fromStdString(compared["text"].get<std::string>()).startsWith(QStringLiteral("best ")));
        QVERIFY(searchMarkdown(line.object).contains(QStringLiteral("| probe |")));
    }
};

QTEST_GUILESS_MAIN(TestKnobSearch)
#include "tst_knobsearch.moc"
