#pragma once

#include <QString>

#include <nlohmann/json.hpp>

namespace ks {

/// The search's result as `compare` prints it: "best max_num_seqs = 64:
/// goodput_req_per_s 5.1 [4.8-5.4] (stress, 7 probes, converged)", the plateau
/// ("any value from 64 to 128 is within the interval of the best; the smallest
/// is 64"), then one line per probe in the order run. `search` is a run file's
/// `search` line (RunFile::search); empty text for null.
QString searchText(const nlohmann::json& search);
/// The first two lines of searchText() (the best value, its interval, the plateau):
/// what the Compare page shows above the charts. Empty for null.
QString searchHeadline(const nlohmann::json& search);
/// The same as a markdown section (`compare --markdown`, the HTML report).
QString searchMarkdown(const nlohmann::json& search);
/// The object `compare --json` carries as `search`: the line without `type`,
/// plus `text` (the first two lines of searchText()). Null for null.
nlohmann::json searchJson(const nlohmann::json& search);

} // namespace ks
