#pragma once

#include <QToolBar>

class QComboBox;
class QLabel;
class QSlider;

namespace ks {

/// Replay controls: speed (1x, 10x, as fast as possible), pause, and a scrub
/// slider over the file. Shown while a saved run plays.
class ReplayBar : public QToolBar {
    Q_OBJECT
public:
    explicit ReplayBar(QWidget* parent = nullptr);

    double speed() const;
    void setPosition(qint64 bytes, qint64 total);
    void setFileName(const QString& name);
    void setPaused(bool paused);
    bool isPaused() const { return m_paused; }

signals:
    void speedChanged(double speed);
    void pausedChanged(bool paused);
    /// The user released the slider at `fraction` (0..1) of the file.
    void seekRequested(double fraction);

private:
    QComboBox* m_speed;
    QAction* m_pause;
    QSlider* m_slider;
    QLabel* m_label;
    bool m_paused = false;
};

} // namespace ks
