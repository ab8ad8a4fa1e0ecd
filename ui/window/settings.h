#pragma once

#include <QByteArray>
#include <QObject>
#include <QSettings>
#include <QStringList>

namespace ks {

/// The dashboard's one settings object: typed getters and setters over
/// QSettings, every key defined here. The core never reads settings.
class Settings : public QObject {
    Q_OBJECT
public:
    explicit Settings(QObject* parent = nullptr);

    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray& geometry);
    QByteArray windowState() const;
    void setWindowState(const QByteArray& state);
    QByteArray splitterState() const;
    void setSplitterState(const QByteArray& state);
    bool editorVisible() const;
    void setEditorVisible(bool visible);

    QString lastSpecPath() const;
    void setLastSpecPath(const QString& path);
    QStringList recentFiles() const;
    /// Puts `path` first in the recent list (at most kMaxRecent, no duplicates).
    void addRecentFile(const QString& path);

    /// Server commands the user trusted (LaunchPlan::fingerprint()), newest first.
    bool isLaunchTrusted(const QByteArray& fingerprint) const;
    void trustLaunch(const QByteArray& fingerprint);
    void forgetTrustedLaunches();

    bool chartsCumulative() const;
    void setChartsCumulative(bool cumulative);
    QString runDirectory() const;

    static constexpr int kMaxRecent = 8;
    static constexpr int kMaxTrustedLaunches = 500;

signals:
    void settingsChanged();

private:
    QSettings m_store;
};

} // namespace ks
