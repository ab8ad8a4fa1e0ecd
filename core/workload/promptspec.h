#pragma once

#include "workload/imagespec.h"
#include "workload/lengthdist.h"
#include "workload/promptdataset.h"

#include <memory>
#include <optional>
#include <string>

namespace ks {

/// Where an arm's prompts come from (docs/experiments.md, "Prompts"): `prompts`
/// of a spec or of one arm, or the prompt flags of `knobscope run`.
struct PromptSpec {
    enum class Source { Synthetic, File };
    Source source = Source::Synthetic;
    std::optional<LengthDist> inputTokens; ///< synthetic; unset: the load's fixed input length
    std::optional<quint64> seed; ///< unset: the load's seed
    int prefixes = 0; ///< shared_prefix: this many fixed texts; 0: none
    int prefixTokens = 0;
    QString path; ///< file source
    PromptDataset::Format format = PromptDataset::Format::OpenAi;
    std::shared_ptr<const PromptDataset> dataset; ///< loaded when the spec is read
    int turns = 1; ///< multi_turn.turns; 1: single requests
    /// `tools` and `tool_choice` as JSON text, sent with every chat request; empty: absent.
    std::string toolsJson;
    std::string toolChoiceJson;
    /// Images on every user message of a chat request; unset: text only.
    std::optional<ImageSpec> images;

    bool multiTurn() const { return turns > 1; }
};

/// Reads a `prompts` object. A file source is loaded (and validated line by line)
/// here, relative to the working directory, so a bad file stops the run before
/// anything is sent. Problems go to `errors` as (path, message).
std::optional<PromptSpec> parsePromptSpec(
    const nlohmann::json& value, const QString& path, std::vector<std::pair<QString, QString>>& errors);

} // namespace ks
