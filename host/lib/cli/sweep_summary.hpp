// A pipeline run's summary as JSON: what `sweep --json` prints, and `watch --jsonl` per pass.
#pragma once

#include "app/pipeline.hpp"

#include <boost/json.hpp>

#include <filesystem>

namespace helix {

// The summary of one run (docs/schema.md, "sweep --json"); `store` is the database file.
boost::json::object sweep_summary_json(const PipelineReport& report,
                                       const std::filesystem::path& store);

}  // namespace helix
