#include "replaybar.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QSlider>

namespace ks {

ReplayBar::ReplayBar(QWidget* parent)
    : QToolBar(tr("Replay"), parent)
    , m_speed(new QComboBox(this))
    , m_slider(new QSlider(Qt::Horizontal, this))
    , m_label(new QLabel(this))
{
    setObjectName(QStringLiteral("replayBar"));
    addWidget(new QLabel(tr(" Replay "), this));
    addWidget(m_label);
    m_pause = addAction(tr("Pause"));
    m_pause->setShortcut(QKeySequence(Qt::Key_Space));
    m_pause->setToolTip(tr("Pause or resume the replay (Space)"));
    connect(m_pause, &QAction::triggered, this, [this] {
        setPaused(!m_paused);
        emit pausedChanged(m_paused);
    });
    m_speed->addItem(tr("1x (as it ran)"), 1.0);
    m_speed->addItem(tr("10x"), 10.0);
    m_speed->addItem(tr("as fast as possible"), 0.0);
    m_speed->setCurrentIndex(2);
    m_speed->setToolTip(tr("Replay speed; charts fill the same way at every speed"));
    connect(m_speed, &QComboBox::currentIndexChanged, this, [this] { emit speedChanged(speed()); });
    addWidget(m_speed);
    m_slider->setRange(0, 1000);
    m_slider->setMinimumWidth(240);
    m_slider->setToolTip(tr("Position in the file: drag to jump (the charts refill up to there)"));
    connect(m_slider, &QSlider::sliderReleased, this, [this] { emit seekRequested(m_slider->value() / 1000.0); });
    addWidget(m_slider);
}

double ReplayBar::speed() const
{
    return m_speed->currentData().toDouble();
}

void ReplayBar::setPosition(qint64 bytes, qint64 total)
{
    if (!m_slider->isSliderDown() && total > 0)
        m_slider->setValue(int(bytes * 1000 / total));
}

void ReplayBar::setFileName(const QString& name)
{
    m_label->setText(name + QStringLiteral("  "));
}

void ReplayBar::setPaused(bool paused)
{
    m_paused = paused;
    m_pause->setText(paused ? tr("Resume") : tr("Pause"));
}

} // namespace ks
