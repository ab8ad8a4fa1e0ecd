#pragma once

#include "load/loadspec.h"

#include <QCommandLineParser>

/// The load flags shared by `run` and `calibrate` (DESIGN.md section 7).
void addLoadFlags(QCommandLineParser& parser);
/// Fills `spec` from parsed flags; returns an error naming the flag, or empty.
QString readLoadFlags(const QCommandLineParser& parser, ks::LoadSpec& spec);
