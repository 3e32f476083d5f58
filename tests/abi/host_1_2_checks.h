/* The load checks of a 1.2 host (host_1_2_checks.c), callable from the current tests. */
#ifndef HELIX_HOST_1_2_CHECKS_H_
#define HELIX_HOST_1_2_CHECKS_H_

#ifdef __cplusplus
extern "C" {
#endif

/* NULL when a 1.2 host would load the plugin whose helix_plugin_query returned this, else why
 * not. */
const char* helix_host_1_2_refusal(const void* query_result);

#ifdef __cplusplus
}
#endif

#endif
