#pragma once

#include <QString>

#include <nlohmann/json.hpp>

namespace ks {

/// The search's result as `compare` prints it: "best max_num_seqs = 40:
/// goodput_req_per_s 39.2 [39.2-39.3] (arm stress, 5 probes; stopped: budget
/// spent)", the highest-scoring probe when the recommendation is another, the
/// plateau ("within 2 % of the top or not told apart from it: 40, 256"), then one
/// line per probe in the order run. `search` is a run file's `search` line
/// (RunFile::search); empty text for null.
QString searchText(const nlohmann::json& search);
/// The headline lines of searchText() (the recommendation, the top, the plateau):
/// what the Compare page shows above the charts. Empty for null.
QString searchHeadline(const nlohmann::json& search);
/// The same as a markdown section (`compare --markdown`, the HTML report).
QString searchMarkdown(const nlohmann::json& search);
/// The object `compare --json` carries as `search`: the line without `type`,
/// plus `text` (searchHeadline()). Null for null.
nlohmann::json searchJson(const nlohmann::json& search);

} // namespace ks
