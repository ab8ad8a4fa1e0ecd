#pragma once

class QLabel;
class QWidget;

namespace ks {

/// `label` (word-wrapped, selectable) inside a frameless scroll area at most `lines` lines high: long
/// text, such as a search's ten "why" lines, scrolls instead of pushing the charts off the page.
QWidget* scrollingLabel(QLabel* label, QWidget* parent, int lines);

} // namespace ks
