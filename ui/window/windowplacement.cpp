#include "windowplacement.h"

#include <algorithm>

namespace ks {

QSize firstWindowSize(const QRect& available)
{
    // Small screens get nearly all of it; big ones a generous window, not a wall of charts.
    const int width = std::min(int(available.width() * 0.94), 1760);
    const int height = std::min(int(available.height() * 0.94), 1100);
    return { std::max(width, 640), std::max(height, 480) };
}

int firstEditorWidth(int windowWidth, int editorHint)
{
    // Wide enough for a server command on one line where the screen allows
    // (about 3/8 of the window, up to 720), never narrower than 460, never over 2/5.
    const int most = windowWidth * 2 / 5;
    const int wanted = std::max(editorHint, std::min(windowWidth * 3 / 8, 720));
    return std::clamp(wanted, std::min(460, most), most);
}

} // namespace ks
