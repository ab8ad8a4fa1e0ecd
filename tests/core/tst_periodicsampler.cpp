// The schedule the GPU, DCGM and metrics samplers share, driven by a fake
// sampler whose samples succeed, fail or hang on command: the give-up after
// the configured failures in a row, the back-off and its reset, the gap that
// resumed() reports, and stop() dropping a sample in flight.
#include "telemetry/periodicsampler.h"

#include <QSignalSpy>
#include <QTest>

#include <deque>
#include <string>
#include <vector>

using namespace ks;

namespace {

enum class Outcome { Succeed, Fail, GiveUp, Hang };

// Each sample ends, from the event loop, as the next outcome of the script
// says; after the script, as `then` says.
class FakeSampler : public PeriodicSampler {
public:
    FakeSampler(const Schedule& schedule, std::deque<Outcome> script, Outcome then)
        : PeriodicSampler(0, schedule, nullptr)
        , m_script(std::move(script))
        , m_then(then)
    {
    }

    int taken = 0;
    int cancelled = 0;
    bool reportAtOnce = false; ///< report from inside sampleOnce() rather than from the event loop
    std::vector<std::string> events; ///< "sampled", "failed", "resumed", "unavailable", in order

    void succeed()
    {
        sampleSucceeded();
        events.push_back("sampled");
    }

private:
    void sampleOnce() override
    {
        const Outcome outcome = m_script.empty() ? m_then : m_script.front();
        if (!m_script.empty())
            m_script.pop_front();
        const int n = ++taken;
        m_inFlight = true;
        if (outcome == Outcome::Hang)
            return;
        auto report = [this, outcome, n] {
            m_inFlight = false;
            if (outcome == Outcome::Succeed)
                succeed();
            else if (outcome == Outcome::Fail)
                sampleFailed(QStringLiteral("fail %1").arg(n));
            else
                giveUp(QStringLiteral("no source"));
        };
        if (reportAtOnce)
            report();
        else
            QTimer::singleShot(0, this, report);
    }
    bool sampleInFlight() const override { return m_inFlight; }
    void cancelSample() override
    {
        if (m_inFlight)
            ++cancelled;
        m_inFlight = false;
    }
    QString source() const override { return QStringLiteral("fake"); }

    std::deque<Outcome> m_script;
    Outcome m_then;
    bool m_inFlight = false;
};

void record(FakeSampler& sampler)
{
    QObject::connect(&sampler, &PeriodicSampler::failed, &sampler, [&sampler] { sampler.events.push_back("failed"); });
    QObject::connect(
        &sampler, &PeriodicSampler::resumed, &sampler, [&sampler] { sampler.events.push_back("resumed"); });
    QObject::connect(
        &sampler, &PeriodicSampler::unavailable, &sampler, [&sampler] { sampler.events.push_back("unavailable"); });
}

} // namespace

class TestPeriodicSampler : public QObject {
    Q_OBJECT
private slots:
    void givesUpAfterTheConfiguredFailuresInARow()
    {
        FakeSampler sampler({ .intervalMs = 5, .giveUpAfterFailures = 3 }, {}, Outcome::Fail);
        QSignalSpy failed(&sampler, &PeriodicSampler::failed);
        QSignalSpy unavailable(&sampler, &PeriodicSampler::unavailable);
        sampler.start();
        QVERIFY(unavailable.wait(10000));
        QCOMPARE(failed.count(), 3);
        QCOMPARE(sampler.failures(), 3);
        QCOMPARE(sampler.taken, 3);
        QCOMPARE(
            unavailable.first().first().toString(), QStringLiteral("fake failed 3 times in a row; the last: fail 3"));
        QVERIFY(!sampler.isActive());
    }

    // A sample between failures ends the streak: five failures, never three in a row.
    void aSampleEndsTheStreakAndReportsTheGap()
    {
        const auto F = Outcome::Fail, S = Outcome::Succeed;
        FakeSampler sampler({ .intervalMs = 5, .giveUpAfterFailures = 3 }, { S, F, F, S, F, F, F }, Outcome::Succeed);
        record(sampler);
        QSignalSpy resumed(&sampler, &PeriodicSampler::resumed);
        QSignalSpy unavailable(&sampler, &PeriodicSampler::unavailable);
        sampler.start();
        QVERIFY(unavailable.wait(10000));
        QCOMPARE(sampler.failures(), 5);
        QCOMPARE(resumed.count(), 1);
        QCOMPARE(sampler.events,
            (std::vector<std::string> {
                "sampled", "failed", "failed", "resumed", "sampled", "failed", "failed", "failed", "unavailable" }));
        // The gap ran from the sample before the streak to the one after it.
        QCOMPARE(sampler.longestGapMs(), resumed.first().first().toLongLong());
        QVERIFY(!sampler.isActive());
    }

    void neverGivesUpWithoutALimit()
    {
        FakeSampler sampler({ .intervalMs = 1 }, {}, Outcome::Fail);
        QSignalSpy failed(&sampler, &PeriodicSampler::failed);
        QSignalSpy unavailable(&sampler, &PeriodicSampler::unavailable);
        sampler.start();
        QTRY_VERIFY_WITH_TIMEOUT(failed.count() >= 20, 10000);
        QVERIFY(sampler.isActive());
        QCOMPARE(sampler.currentIntervalMs(), 1); // no back-off asked for
        sampler.stop();
        QCOMPARE(unavailable.count(), 0);
    }

    void failuresBackOffAndASampleResetsTheInterval()
    {
        const auto F = Outcome::Fail;
        FakeSampler sampler({ .intervalMs = 10, .maxBackOffMs = 50 }, { F, F, F, F }, Outcome::Succeed);
        std::vector<int> intervals;
        connect(&sampler, &PeriodicSampler::failed, this, [&] { intervals.push_back(sampler.currentIntervalMs()); });
        QSignalSpy resumed(&sampler, &PeriodicSampler::resumed);
        sampler.start();
        QVERIFY(resumed.wait(10000));
        QCOMPARE(intervals, (std::vector<int> { 20, 40, 50, 50 }));
        QCOMPARE(sampler.currentIntervalMs(), 10);
        QVERIFY(sampler.longestGapMs() > 0);
        sampler.stop();
    }

    void stopDropsTheSampleInFlight()
    {
        FakeSampler sampler({ .intervalMs = 1 }, {}, Outcome::Hang);
        QSignalSpy failed(&sampler, &PeriodicSampler::failed);
        sampler.start();
        QCOMPARE(sampler.taken, 1); // at once: the first sample is not deferred unless asked
        // Twenty intervals later the hanging sample is still the only one.
        QTimer intervals;
        QSignalSpy ticks(&intervals, &QTimer::timeout);
        intervals.start(1);
        QTRY_VERIFY_WITH_TIMEOUT(ticks.count() >= 20, 10000);
        QCOMPARE(sampler.taken, 1);
        sampler.stop();
        QCOMPARE(sampler.cancelled, 1);
        QVERIFY(!sampler.isActive());
        QCOMPARE(failed.count(), 0);
    }

    void theFirstSampleCanComeFromTheEventLoop()
    {
        FakeSampler sampler({ .intervalMs = 1000, .firstSampleFromEventLoop = true }, {}, Outcome::GiveUp);
        sampler.reportAtOnce = true;
        QSignalSpy unavailable(&sampler, &PeriodicSampler::unavailable);
        sampler.start();
        QCOMPARE(sampler.taken, 0);
        QCOMPARE(unavailable.count(), 0); // never from inside start()
        QVERIFY(unavailable.wait(10000));
        QCOMPARE(sampler.failures(), 0); // a give-up is not a failed sample
        // Started again, it samples again from a clean slate.
        sampler.start();
        QVERIFY(unavailable.wait(10000));
        QCOMPARE(sampler.taken, 2);
    }
};

QTEST_GUILESS_MAIN(TestPeriodicSampler)
#include "tst_periodicsampler.moc"
