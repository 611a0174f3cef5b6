/* SPDX-License-Identifier: MIT */
/*
 * appAllocateMemory() / appFreeMemory(): the two functions a graph application defines for the
 * graph file's Buffers section (the user's guide, "Step 2: Custom Memory Management").
 * takyonLoadGraphDescription() calls appAllocateMemory() for every buffer owned by the loading
 * process; takyonFreeGraphDescription() calls appFreeMemory(). Their prototypes are in
 * takyon/takyon_extensions.h; this header only documents which `Where:` names they understand.
 *
 *   Where: CPU     malloc()
 *   Where: MMAP    a named memory map (takyonMmapAlloc), named "<buffer name>-<process pid>"
 *   Where: CUDA:n  refused with a message: this build has no CUDA
 */
#ifndef TAKYON_EXAMPLES_GRAPH_APP_MEMORY_H_
#define TAKYON_EXAMPLES_GRAPH_APP_MEMORY_H_

#include "takyon/takyon_extensions.h"

#endif /* TAKYON_EXAMPLES_GRAPH_APP_MEMORY_H_ */
