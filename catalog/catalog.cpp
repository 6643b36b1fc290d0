#include <agentrt/catalog/catalog.hpp>

namespace agentrt::catalog_detail {

result<arguments> decode_erased(type_info const& type, boost::json::value const& document,
                                std::shared_ptr<void const> holder, void* plain) {
    auto violations = decode_into(type, document, plain);
    if (!violations.empty())
        return invalid_arguments(std::move(violations));
    return arguments(document, &type, std::move(holder));
}

} // namespace agentrt::catalog_detail
