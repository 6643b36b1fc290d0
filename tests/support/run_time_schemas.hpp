// JSON Schemas given at run time, as an MCP server would serve them, for the tests of the one core.
#pragma once

namespace run_time_schemas {

// Every keyword the run-time path supports, in one schema.
inline constexpr char const* everything = R"({
  "type": "object",
  "properties": {
    "id": {"type": "integer", "minimum": 1, "maximum": 9},
    "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "uniqueItems": true,
             "minItems": 1, "maxItems": 3},
    "pair": {"type": "array", "prefixItems": [{"type": "boolean"}, {"const": "x"}], "items": false},
    "kind": {"enum": ["a", "b", 3]},
    "ratio": {"type": ["number", "null"], "exclusiveMinimum": 0, "exclusiveMaximum": 10, "multipleOf": 0.25},
    "code": {"type": "string", "pattern": "^[a-c]{2}\\d$", "minLength": 3},
    "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
    "any": {"anyOf": [{"type": "string", "minLength": 2}, {"type": "boolean"}]},
    "small": {"allOf": [{"type": "integer", "minimum": 0}, {"maximum": 5}]},
    "meta": {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 1, "maxProperties": 2},
    "open": {"type": "object", "minProperties": 1, "maxProperties": 3},
    "tree": {"$ref": "#/$defs/tree"}
  },
  "required": ["id", "tags"],
  "additionalProperties": false,
  "$defs": {
    "tree": {"type": "object", "description": "a recursive node",
             "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/tree"},
                                                               "maxItems": 2}},
             "required": ["v"], "additionalProperties": false}
  }
})";

// A tagged union spelled by hand, with a shared $defs part.
inline constexpr char const* shapes = R"({
  "$defs": {"size": {"type": "number", "exclusiveMinimum": 0, "maximum": 1000}},
  "oneOf": [
    {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"$ref": "#/$defs/size"}},
     "required": ["kind", "r"], "additionalProperties": false},
    {"type": "object", "properties": {"kind": {"const": "rect"}, "w": {"$ref": "#/$defs/size"},
                                      "h": {"$ref": "#/$defs/size"}},
     "required": ["kind", "w", "h"], "additionalProperties": false}
  ]
})";

// An MCP-style tool input: open object, optional members, a nullable member.
inline constexpr char const* search = R"({
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 40},
    "limit": {"type": "integer", "minimum": 1, "maximum": 50},
    "since": {"type": ["string", "null"], "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
    "fields": {"type": "array", "items": {"enum": ["title", "url", "body"]}, "uniqueItems": true}
  },
  "required": ["query"]
})";

} // namespace run_time_schemas
