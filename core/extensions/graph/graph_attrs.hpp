// SPDX-License-Identifier: MIT
// Parsing of the per-path attribute values ("<A value>, <B value>") into an EndpointSpec.
#ifndef TAKYON_EXTENSIONS_GRAPH_GRAPH_ATTRS_HPP_
#define TAKYON_EXTENSIONS_GRAPH_GRAPH_ATTRS_HPP_

#include <optional>
#include <string_view>

#include "extensions/graph/graph_model.hpp"

namespace takyon::detail::graph {

// The Key spelled `name`, if it is one.
[[nodiscard]] std::optional<Key> find_key(std::string_view name);

// Splits "<A value>, <B value>" into raw; throws GraphError naming `who` ("path 3", "Defaults").
void split_pair(std::string_view value, int line, std::string_view who, std::string_view key_name,
                RawSetting& raw);

// Parses side `side` (0 = A, 1 = B) of every given setting into spec. Throws GraphError at the
// line the offending value was written on.
void apply_settings(const RawSettings& raw, int side, std::string_view who, EndpointSpec& spec);

}  // namespace takyon::detail::graph

#endif  // TAKYON_EXTENSIONS_GRAPH_GRAPH_ATTRS_HPP_
