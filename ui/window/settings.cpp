#include "settings.h"

#include <QDir>
#include <QStandardPaths>

namespace ks {

namespace {
const QString kGeometry = QStringLiteral("window/geometry");
const QString kState = QStringLiteral("window/state");
const QString kSplitter = QStringLiteral("window/splitter");
const QString kEditorVisible = QStringLiteral("window/editorVisible");
const QString kLastSpec = QStringLiteral("files/lastSpec");
const QString kRecent = QStringLiteral("files/recent");
const QString kCumulative = QStringLiteral("charts/cumulative");
const QString kRunDirectory = QStringLiteral("files/runDirectory");
const QString kTrustedLaunches = QStringLiteral("trust/launches");
} // namespace

Settings::Settings(QObject* parent)
    : QObject(parent)
{
}

QByteArray Settings::windowGeometry() const
{
    return m_store.value(kGeometry).toByteArray();
}

void Settings::setWindowGeometry(const QByteArray& geometry)
{
    m_store.setValue(kGeometry, geometry);
}

QByteArray Settings::windowState() const
{
    return m_store.value(kState).toByteArray();
}

void Settings::setWindowState(const QByteArray& state)
{
    m_store.setValue(kState, state);
}

QByteArray Settings::splitterState() const
{
    return m_store.value(kSplitter).toByteArray();
}

void Settings::setSplitterState(const QByteArray& state)
{
    m_store.setValue(kSplitter, state);
}

bool Settings::editorVisible() const
{
    return m_store.value(kEditorVisible, true).toBool();
}

void Settings::setEditorVisible(bool visible)
{
    m_store.setValue(kEditorVisible, visible);
}

QString Settings::lastSpecPath() const
{
    return m_store.value(kLastSpec).toString();
}

void Settings::setLastSpecPath(const QString& path)
{
    m_store.setValue(kLastSpec, path);
    emit settingsChanged();
}

QStringList Settings::recentFiles() const
{
    return m_store.value(kRecent).toStringList();
}

void Settings::addRecentFile(const QString& path)
{
    QStringList recent = recentFiles();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    m_store.setValue(kRecent, recent);
    emit settingsChanged();
}

bool Settings::isLaunchTrusted(const QByteArray& fingerprint) const
{
    return !fingerprint.isEmpty()
        && m_store.value(kTrustedLaunches).toStringList().contains(QLatin1String(fingerprint));
}

void Settings::trustLaunch(const QByteArray& fingerprint)
{
    QStringList trusted = m_store.value(kTrustedLaunches).toStringList();
    trusted.removeAll(QLatin1String(fingerprint));
    trusted.prepend(QLatin1String(fingerprint));
    while (trusted.size() > kMaxTrustedLaunches)
        trusted.removeLast(); // the least recently trusted; it asks again
    m_store.setValue(kTrustedLaunches, trusted);
    emit settingsChanged();
}

void Settings::forgetTrustedLaunches()
{
    m_store.remove(kTrustedLaunches);
    emit settingsChanged();
}

bool Settings::chartsCumulative() const
{
    return m_store.value(kCumulative, false).toBool();
}

void Settings::setChartsCumulative(bool cumulative)
{
    m_store.setValue(kCumulative, cumulative);
    emit settingsChanged();
}

QString Settings::runDirectory() const
{
    const QString fallback
        = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/runs");
    return m_store.value(kRunDirectory, fallback).toString();
}

} // namespace ks
