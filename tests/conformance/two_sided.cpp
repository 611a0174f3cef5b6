// SPDX-License-Identifier: MIT
// Instantiates the TwoSided suite for the four native providers, polling and event driven.
#include "conformance/two_sided.hpp"

namespace takyon::test {

INSTANTIATE_TEST_SUITE_P(NativeProviders, TwoSided, ::testing::ValuesIn(all_provider_params()),
                         provider_param_name);

}  // namespace takyon::test
