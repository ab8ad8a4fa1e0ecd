#include "replaycontroller.h"

#include "pages/replaybar.h"
#include "source/replayfeed.h"

#include <QFileInfo>

#include <utility>

namespace ks {

ReplayController::ReplayController(ReplayBar* bar, QObject* parent)
    : QObject(parent)
    , m_bar(bar)
{
    connect(m_bar, &ReplayBar::speedChanged, this, [this](double speed) {
        if (m_feed)
            m_feed->setSpeed(speed);
    });
    connect(m_bar, &ReplayBar::pausedChanged, this, [this](bool paused) {
        if (m_feed)
            m_feed->setPaused(paused);
    });
    connect(m_bar, &ReplayBar::seekRequested, this, &ReplayController::restart);
    m_position.setInterval(200);
    connect(&m_position, &QTimer::timeout, this, [this] {
        if (m_feed)
            m_bar->setPosition(m_feed->bytesRead(), m_feed->bytesTotal());
    });
}

void ReplayController::start(const QString& path)
{
    m_path = path;
    restart(0);
}

void ReplayController::restart(double fraction)
{
    stop();
    if (m_path.isEmpty())
        return;
    emit replayStarting(m_path);
    m_feed = new ReplayFeed(m_path, m_bar->speed(), this);
    connect(m_feed, &ReplayFeed::finished, this, [this] { m_bar->setPosition(1, 1); });
    emit sourceStarted(m_feed);
    m_bar->setFileName(QFileInfo(m_path).fileName());
    m_bar->setPaused(false);
    m_bar->show();
    m_position.start();
    m_feed->start();
    if (fraction > 0)
        m_feed->fastForwardTo(qint64(fraction * double(m_feed->bytesTotal())));
}

void ReplayController::stop()
{
    if (!m_feed)
        return;
    std::exchange(m_feed, nullptr)->discard(); // disconnects the window too
    m_position.stop();
}

} // namespace ks
