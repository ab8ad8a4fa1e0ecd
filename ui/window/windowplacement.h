#pragma once

#include <QRect>
#include <QSize>

namespace ks {

/// The main window's size the first time it opens (no saved geometry): most of
/// the screen's available area, so the editor's fields and the charts are
/// readable on a 1280x800 laptop and not lost in a corner of a 1920x1080 desktop.
QSize firstWindowSize(const QRect& available);

/// The editor's share of the splitter on first start: about 3/8 of the window
/// (at most 720) or what it asks for if more, at least 460, at most two fifths.
int firstEditorWidth(int windowWidth, int editorHint);

} // namespace ks
