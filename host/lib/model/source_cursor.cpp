#include "model/source_cursor.hpp"

#include <array>
#include <ostream>
#include <utility>

namespace helix {
namespace {

constexpr std::array<std::pair<SourceState, std::string_view>, 5> kStateNames{{
    {SourceState::active, "active"},
    {SourceState::missing, "missing"},
    {SourceState::unclaimed, "unclaimed"},
    {SourceState::orphaned, "orphaned"},
    {SourceState::quarantined, "quarantined"},
}};

}  // namespace

std::string_view to_string(SourceState state) {
  for (const auto& [s, name] : kStateNames)
    if (s == state) return name;
  return "active";
}

std::optional<SourceState> parse_source_state(std::string_view name) {
  for (const auto& [s, n] : kStateNames)
    if (n == name) return s;
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& out, SourceState state) { return out << to_string(state); }

}  // namespace helix
