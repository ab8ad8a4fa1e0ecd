#include "compare/diagnosis.h"

#include <QTest>

using namespace ks;
using json = nlohmann::json;

namespace {

struct Config {
    const char* name;
    double ttft = 1; ///< TTFT p50 ratio against the baseline
    double tpot = 1;
    double maxWaiting = 0;
    bool gentle = false;
    bool significant = true;
    double errorRate = 0;
    bool clientBound = false;
};

json entry(const Config& c)
{
    json e = {
        { "config", c.name }, { "max_waiting", c.maxWaiting }, { "gentle", c.gentle }, { "error_rate", c.errorRate },
        { "ratio", { { "ttft_ms", { { "p50", c.ttft } } }, { "tpot_ms", { { "p50", c.tpot } } } } },
        { "significant", { { "ttft_ms", { { "p50", c.significant } } }, { "tpot_ms", { { "p50", c.significant } } } } }
    };
    if (c.clientBound)
        e["client_bound"] = true;
    return e;
}

// The `why` of the second configuration against the first (the baseline).
json whyOf(const Config& baseline, const Config& other, bool gentleArm = false)
{
    json arm = { { "arm", "stress" }, { "baseline", baseline.name }, { "gentle", gentleArm },
        { "configs", { entry(baseline), entry(other) } } };
    addDiagnoses(arm);
    if (arm["configs"][0].contains("why"))
        qFatal("the baseline got a why");
    return arm["configs"][1]["why"];
}

QString kind(const json& why)
{
    return QString::fromStdString(why["kind"].get<std::string>());
}

QString text(const json& why)
{
    return QString::fromStdString(why["text"].get<std::string>());
}

} // namespace

class TestDiagnosis : public QObject {
    Q_OBJECT
private slots:
    // The seed's stress arm: TTFT 16x, TPOT flat, up to 32 waiting.
    void queueingWhenTtftMovesAlone()
    {
        const json why = whyOf({ "mns128", 1, 1, 0, true }, { "mns32", 16.3, 1.05, 32 });
        QCOMPARE(kind(why), QStringLiteral("queueing"));
        QVERIFY2(text(why).startsWith(QStringLiteral("TTFT 16x while TPOT 1.05x and up to 32 requests waiting: "
                                                     "requests queued for a batch slot")),
            qPrintable(text(why)));
        QVERIFY(text(why).contains(QStringLiteral("compute did not slow down")));
        // The same arm seen from the other side.
        const json down = whyOf({ "mns32", 1, 1, 32 }, { "mns128", 0.06, 0.95, 0, true });
        QCOMPARE(kind(down), QStringLiteral("queueing"));
        QVERIFY(text(down).contains(QStringLiteral("the baseline queued")));
    }

    // The cliff on llama.cpp (--parallel 16 vs 4): fewer slots queue requests and, with smaller
    // batches, make each step faster. The TPOT drop must not turn the queue into "compute".
    void queueingWhenFewerSlotsAlsoSpeedUpSteps()
    {
        const json why = whyOf({ "p16", 1, 1, 0, true }, { "p4", 12.46, 0.49, 12 });
        QCOMPARE(kind(why), QStringLiteral("queueing"));
        QVERIFY2(text(why).contains(QStringLiteral("each step is faster, with fewer requests in the batch")),
            qPrintable(text(why)));
        const json down = whyOf({ "p4", 1, 1, 12 }, { "p16", 0.08, 2.04, 0, true });
        QCOMPARE(kind(down), QStringLiteral("queueing"));
        QVERIFY2(text(down).contains(QStringLiteral("each step is slower, with more requests in the batch")),
            qPrintable(text(down)));
        // Steps slower as well as a queue: the engine is the first cause (a bigger model).
        QCOMPARE(kind(whyOf({ "a", 1, 1, 0, true }, { "b", 3.6, 1.6, 48 })), QStringLiteral("compute"));
    }

    void computeWhenTpotMoves()
    {
        // Small vs large model at gentle load: both TTFT and TPOT about 3.6x.
        const json why = whyOf({ "sim-1.8b", 1, 1, 0, true }, { "sim-8b", 3.6, 3.5, 0, true }, true);
        QCOMPARE(kind(why), QStringLiteral("compute"));
        QVERIFY(text(why).contains(QStringLiteral("slower")));
        QCOMPARE(kind(whyOf({ "a" }, { "b", 1.0, 0.5 })), QStringLiteral("compute"));
    }

    void prefillWhenNothingQueued()
    {
        const json why = whyOf({ "a", 1, 1, 0, true }, { "b", 2.0, 1.0, 0, true });
        QCOMPARE(kind(why), QStringLiteral("prefill"));
    }

    void errorsAndClientComeFirst()
    {
        const json errors = whyOf({ "a" }, { "b", 16, 1, 32, false, true, 0.2 });
        QCOMPARE(kind(errors), QStringLiteral("errors"));
        QVERIFY(text(errors).startsWith(QStringLiteral("20.0 % of requests failed")));
        QCOMPARE(kind(whyOf({ "a" }, { "b", 16, 1, 32, false, true, 0.005 })), QStringLiteral("queueing"));
        Config bound { "b", 2, 1 };
        bound.clientBound = true;
        QCOMPARE(kind(whyOf({ "a" }, bound)), QStringLiteral("client-bound"));
    }

    void noCauseForNoise()
    {
        QCOMPARE(kind(whyOf({ "a" }, { "b", 1.1, 1.05, 0 })), QStringLiteral("no-change"));
        // Moved, but the interval (which holds the run-to-run spread) includes 1: noise, no cause named.
        const json noise = whyOf({ "a" }, { "b", 3, 1, 32, false, false });
        QCOMPARE(kind(noise), QStringLiteral("noise"));
        QVERIFY(QString::fromStdString(noise["text"].get<std::string>()).contains(QStringLiteral("add repeats")));
    }

    // The dashboard compares first without intervals: no `significant` at all, and odd values.
    void toleratesMissingFields()
    {
        json arm = { { "arm", "stress" }, { "baseline", "a" },
            { "configs",
                { { { "config", "a" } },
                    { { "config", "b" }, { "ratio", { { "ttft_ms", { { "p50", 16.0 } } } } },
                        { "significant", { { "tpot_ms", nullptr } } } },
                    { { "config", "c" },
                        { "ratio", { { "ttft_ms", { { "p50", 16.0 } } }, { "tpot_ms", { { "p50", 1.0 } } } } },
                        { "max_waiting", 32 } } } } };
        addDiagnoses(arm);
        QCOMPARE(kind(arm["configs"][1]["why"]), QStringLiteral("no-change"));
        // Moved, but without intervals yet nothing is shown, not even noise, and the sentence says why.
        QCOMPARE(kind(arm["configs"][2]["why"]), QStringLiteral("no-interval"));
        QVERIFY(text(arm["configs"][2]["why"]).contains(QStringLiteral("no intervals were computed")));
        // The quick pass's own shape: `significant` there, but empty.
        arm["configs"][2]["significant"] = json::object();
        addDiagnoses(arm);
        QCOMPARE(kind(arm["configs"][2]["why"]), QStringLiteral("no-interval"));
        QCOMPARE(diagnosisLines(arm).size(), 2);
    }

    void aGentleArmSaysSo()
    {
        json arm = { { "arm", "fixed" }, { "baseline", "a" }, { "gentle", true },
            { "configs", { entry({ "a", 1, 1, 0, true }), entry({ "b", 1.01, 1.0, 0, true }) } } };
        addDiagnoses(arm);
        QCOMPARE(arm["why"]["kind"].get<std::string>(), std::string("gentle"));
        arm["gentle"] = false;
        arm.erase("why");
        addDiagnoses(arm);
        QVERIFY(!arm.contains("why"));
    }
};

QTEST_GUILESS_MAIN(TestDiagnosis)
#include "tst_diagnosis.moc"
