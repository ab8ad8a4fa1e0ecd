#pragma once

#include "store/runfile.h"

#include <QString>

#include <vector>

namespace ks {

struct CatalogueRow;

/// One configuration-arm chosen from the run library: what `knobscope compare
/// @ID @ID` and the Runs page's Compare put side by side.
struct CataloguePick {
    qint64 id = 0;
    QString path;
    QString config;
    QString arm;
};
CataloguePick pickOf(const CatalogueRow& row);

/// The picks' runs in one file for compareRuns(): each pick's configuration is
/// labelled "CONFIG @ID", so the same configuration from two days stays two
/// columns; picks of differently named arms are compared under the first
/// pick's arm, with an issue saying so. The first pick's experiment line leads
/// (its SLO and calibration). False with `error` when a file cannot be read or
/// holds no runs of its pick.
bool pickedRunFile(
    const std::vector<CataloguePick>& picks, RunFile* out, QString* error, const ReadProgress& progress = {});

} // namespace ks
