// agentrt/catalog.hpp — the compile-time catalogue: tools, schemas, validation, policies.
#pragma once

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/catalog/catalog.hpp>
#include <agentrt/catalog/compiled_schema.hpp>
#include <agentrt/catalog/decode.hpp>
#include <agentrt/catalog/error.hpp>
#include <agentrt/catalog/field.hpp>
#include <agentrt/catalog/json_reader.hpp>
#include <agentrt/catalog/keywords.hpp>
#include <agentrt/catalog/pattern.hpp>
#include <agentrt/catalog/policy.hpp>
#include <agentrt/catalog/reflect.hpp>
#include <agentrt/catalog/schema.hpp>
#include <agentrt/catalog/schema_tool.hpp>
#include <agentrt/catalog/tool.hpp>
#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/catalog/type_info.hpp>
