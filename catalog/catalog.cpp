#include <agentrt/catalog/catalog.hpp>

namespace agentrt::catalog_detail {

result<arguments> decode_erased(schema_node const& schema, boost::json::value const& document,
                                std::shared_ptr<void const> holder, void* plain) {
    auto violations = decode_into(schema, document, plain);
    if (!violations.empty())
        return invalid_arguments(std::move(violations));
    return arguments(document, schema.type, std::move(holder));
}

} // namespace agentrt::catalog_detail
