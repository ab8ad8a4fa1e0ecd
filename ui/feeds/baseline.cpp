#include "baseline.h"

#include "source/replayfeed.h"
#include "store/runid.h"

#include <QFileInfo>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace ks {

namespace {

QString armOfRun(const QString& run)
{
    return RunId::parse(run).armRun();
}

} // namespace

const RunSnapshot* Baseline::Arm::final() const
{
    for (auto it = snapshots.rbegin(); it != snapshots.rend(); ++it)
        if (it->ttftMs.count > 0)
            return &*it;
    return nullptr;
}

const Baseline::Arm* Baseline::match(const QString& liveRun, int order) const
{
    const QString name = RunId::parse(liveRun).unsegmented();
    for (const Arm& arm : arms)
        if (arm.run == name)
            return &arm;
    const QString armPart = armOfRun(liveRun);
    for (const Arm& arm : arms)
        if (armOfRun(arm.run) == armPart)
            return &arm;
    return order >= 0 && order < int(arms.size()) ? &arms[std::size_t(order)] : nullptr;
}

const RunSnapshot* Baseline::finalFor(const QString& liveRun, int order) const
{
    if (const auto it = finals.constFind(liveRun); it != finals.cend())
        return &*it;
    // As at the end (LivePage::updateBaselineRatioAtEnd): the arm's first run, not its last segment.
    const Arm* arm = match(liveRun, order);
    const auto it = arm ? finals.constFind(arm->run) : finals.cend();
    return it != finals.cend() ? &*it : nullptr;
}

Baseline::SummaryP50 Baseline::p50Of(const RunSummary& summary)
{
    return { RunSummary::p50Of(summary.ttftMs), RunSummary::p50Of(summary.tpotMs) };
}

BaselineLoader::~BaselineLoader() = default;

void BaselineLoader::load(const QString& path)
{
    cancel();
    if (!QFileInfo(path).isFile()) { // said after load() returns, as every other outcome is
        QTimer::singleShot(0, this, [this, path] { emit failed(path, tr("no such file")); });
        return;
    }
    m_reading = std::make_shared<Baseline>();
    m_reading->path = path;
    m_feed = new ReplayFeed(path, 0, this);
    // An arm for every run that starts, with snapshots or not, so matching by position counts them all.
    auto armOf = [this](const QString& run) -> Baseline::Arm& {
        const QString name = RunId::parse(run).unsegmented();
        std::vector<Baseline::Arm>& arms = m_reading->arms;
        if (arms.empty() || arms.back().run != name)
            arms.push_back({ name, {} });
        return arms.back();
    };
    connect(m_feed, &ReplayFeed::runStarted, this, [armOf](const RunInfo& info) { armOf(info.run); });
    connect(m_feed, &ReplayFeed::snapshotReady, this, [this, armOf](const QString& run, const RunSnapshot& snapshot) {
        armOf(run).snapshots.push_back(snapshot);
        if (snapshot.ttftMs.count > 0)
            m_reading->finals.insert(run, snapshot);
    });
    connect(m_feed, &ReplayFeed::runFinished, this, [this](const QString& run, const RunSummary& summary) {
        m_reading->summaries.insert(run, Baseline::p50Of(summary));
    });
    connect(m_feed, &ReplayFeed::finished, this, [this, path](const QString&) {
        m_feed->deleteLater();
        m_feed = nullptr;
        std::shared_ptr<Baseline> done = std::move(m_reading);
        if (std::none_of(
                done->arms.begin(), done->arms.end(), [](const Baseline::Arm& a) { return !a.snapshots.empty(); }))
            emit failed(path, tr("it holds no run with snapshots"));
        else
            emit loaded(std::move(done));
    });
    // Started from the event loop, so that every outcome (an unreadable file finishes at once) is said
    // after load() returns, to a caller that may only then wait for it.
    QTimer::singleShot(0, m_feed, &ReplayFeed::start);
}

void BaselineLoader::cancel()
{
    if (!m_feed)
        return;
    std::exchange(m_feed, nullptr)->discard();
    m_reading.reset();
}

} // namespace ks
