/* SPDX-License-Identifier: MIT */
/* The checks each C translation unit of the header test provides. */
#ifndef TAKYON_TESTS_C_HEADERS_CHECK_H_
#define TAKYON_TESTS_C_HEADERS_CHECK_H_

/* takyon_h_check.c: every declaration of takyon.h; 0 if all match. */
int checkTakyonHeader(void);
/* takyon_h_check.c: calls with a NULL path; the number that did not return false. */
int checkNullPathCalls(void);
/* takyon_extensions_h_check.c: every declaration of takyon_extensions.h; number of failures. */
int checkExtensionsHeader(void);

/* takyon_providers_h_check.c: the provider table through the C API; number of failures. */
int checkProvidersHeader(void);
int checkGroupHeader(void);

#endif /* TAKYON_TESTS_C_HEADERS_CHECK_H_ */
