#pragma once

#include <QString>

#include <string>

namespace ks {

/// A QString as the UTF-8 std::string nlohmann::json and the run file take.
inline std::string text(const QString& s)
{
    return s.toStdString();
}

} // namespace ks
