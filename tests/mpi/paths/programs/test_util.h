/* SPDX-License-Identifier: MIT */
/* The point-to-point programs' helpers (CHECK, patterns, PRINT0), shared. */
#include "../../p2p/programs/test_util.h"
