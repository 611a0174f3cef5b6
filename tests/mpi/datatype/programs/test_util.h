/* SPDX-License-Identifier: MIT */
/* The datatype programs share the point-to-point programs' helpers. */
#include "../../p2p/programs/test_util.h"
