// SPDX-License-Identifier: MIT
// Instantiates the TwoSided suite for every provider configuration of the provider table
// (all_providers()), polling and event driven.
#include "conformance/two_sided.hpp"

namespace takyon::test {

INSTANTIATE_TEST_SUITE_P(Providers, TwoSided, ::testing::ValuesIn(all_provider_params()),
                         provider_param_name);

}  // namespace takyon::test
