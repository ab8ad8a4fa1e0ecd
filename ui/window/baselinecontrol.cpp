#include "baselinecontrol.h"

#include "feeds/baseline.h"
#include "pages/livepage.h"

namespace ks {

BaselineControl::BaselineControl(LivePage* live, QObject* parent)
    : QObject(parent)
    , m_live(live)
    , m_loader(new BaselineLoader(this))
{
    connect(live, &LivePage::baselineRequested, this, &BaselineControl::setFile);
    connect(m_loader, &BaselineLoader::loaded, this, [this](std::shared_ptr<const Baseline> baseline) {
        const QString path = baseline->path;
        const int arms = int(baseline->arms.size());
        m_live->setBaseline(std::move(baseline));
        m_live->addBaselineCandidate(path);
        emit status(tr("Baseline: %1 (%n arm(s)), faded on the Live charts", nullptr, arms).arg(path));
        emit logged(tr("Baseline %1: %n arm(s)", nullptr, arms).arg(path));
        emit changed(path, {});
    });
    connect(m_loader, &BaselineLoader::failed, this, [this](const QString& path, const QString& error) {
        const QString text = tr("Baseline %1 not used: %2").arg(path, error);
        emit status(text);
        emit logged(text);
        emit changed(path, error);
    });
}

void BaselineControl::setFile(const QString& path)
{
    if (!path.isEmpty()) {
        m_loader->load(path);
        return;
    }
    m_loader->cancel(); // one still being read must not appear after "No baseline"
    m_live->setBaseline(nullptr);
    emit status(tr("No baseline"));
    emit changed({}, {});
}

} // namespace ks
