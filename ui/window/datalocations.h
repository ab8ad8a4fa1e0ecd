#pragma once

#include <QString>

namespace ks {

/// The folder of bundled experiment templates (vLLM, SGLang, llama.cpp,
/// Ollama): share/knobscope/experiments beside the executable's bin/, which is
/// /usr/share/knobscope/experiments when installed and build/share/knobscope
/// in a build tree, else the first one on the XDG data path. Empty if none.
QString experimentTemplateDirectory();

} // namespace ks
