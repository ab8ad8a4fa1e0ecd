#pragma once

#include "simoptions.h"

#include <QStringList>

#include <variant>

namespace kssim {

struct HelpRequested {
    QString text;
};

/// Parses knobscope-sim's arguments (argv[0] included). Returns the options,
/// the help text to print, or an error message naming the bad flag.
std::variant<SimOptions, HelpRequested, QString> parseSimCommandLine(const QStringList& arguments);

} // namespace kssim
