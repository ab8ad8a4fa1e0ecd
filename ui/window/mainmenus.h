#pragma once

#include <QObject>

class QAction;
class QMenu;

namespace ks {

class ExperimentEditor;
class MainWindow;
class ReplayController;
class Settings;

/// The main window's menu bar: File, Run, View and Help. Commands on the
/// window's experiment file come back as signals.
class MainMenus : public QObject {
    Q_OBJECT
public:
    MainMenus(MainWindow* window, Settings* settings, ExperimentEditor* editor, ReplayController* replay);

    /// Refills File → Open recent from the settings.
    void rebuildRecent();
    /// Enables Run while idle and Stop while running.
    void setRunning(bool running);
    QAction* editorAction() const { return m_editorAction; }

signals:
    void newExperimentRequested();
    void openExperimentRequested();
    void saveRequested();
    void saveAsRequested();
    void recentFileChosen(const QString& path);

private:
    MainWindow* m_window;
    Settings* m_settings;
    ExperimentEditor* m_editor;
    ReplayController* m_replay;
    QMenu* m_recentMenu = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_stopAction = nullptr;
    QAction* m_editorAction = nullptr;
};

} // namespace ks
