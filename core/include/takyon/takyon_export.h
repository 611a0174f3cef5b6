/* SPDX-License-Identifier: MIT */
/* Symbol visibility for the Takyon libraries: only what carries TAKYON_API is exported. */
#ifndef TAKYON_TAKYON_EXPORT_H_
#define TAKYON_TAKYON_EXPORT_H_

#if defined(__GNUC__) || defined(__clang__)
#define TAKYON_API __attribute__((visibility("default")))
#else
#define TAKYON_API
#endif

#endif /* TAKYON_TAKYON_EXPORT_H_ */
