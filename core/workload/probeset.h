#pragma once

#include <QByteArray>
#include <QString>

#include <nlohmann/json.hpp>

#include <variant>
#include <vector>

namespace ks {

struct Probe {
    QString id;
    QString category;
    QString prompt; ///< for the completions API, and the chat fallback
    nlohmann::json messages; ///< chat messages when the probe gives them, else null
};

/// A frozen list of prompts (docs/formats.md, "Probe sets"). The version and
/// the SHA-256 of the file's bytes travel into every run that uses the set, so
/// outputs of two different sets are never compared by accident.
struct ProbeSet {
    QString name;
    QString version;
    QString sha256; ///< hex, of the file as read
    QString source; ///< "builtin:quality-50" or the path given
    std::vector<Probe> probes;

    nlohmann::json identity() const; ///< {"set","set_version","sha256","source","count"}
};

/// Parses a probe file: an optional header line {"probe_set","set_version"},
/// then one probe object per line. Errors name the line.
std::variant<ProbeSet, QString> parseProbeSet(const QByteArray& bytes, const QString& source);
/// Loads "builtin:NAME" from the bundled sets or a file path.
std::variant<ProbeSet, QString> loadProbeSet(const QString& reference);

} // namespace ks
