/* The checks a helix-host of ABI 1.2 made before running a plugin (its plugin_registry.cpp at
 * commit 6a59cf5), compiled against the frozen 1.2 header: what an older host would say about a
 * plugin built with today's SDK. Returns NULL when it would load it, else its refusal reason. */
#include "host_1_2_checks.h"

#include <helix/helix_plugin.h>

const char* helix_host_1_2_refusal(const void* query_result) {
  const helix_plugin_descriptor* d = (const helix_plugin_descriptor*)query_result;
  if (!d) return "its helix_plugin_query returned NULL";
  if (d->abi_major != HELIX_ABI_MAJOR) return "major versions differ";
  if (d->abi_minor > HELIX_ABI_MINOR) return "built for a newer minor than 1.2";
  if (d->struct_size < sizeof(helix_plugin_descriptor)) return "descriptor smaller than 1.2's";
  if (d->kind == HELIX_KIND_ADAPTER) {
    const helix_adapter_vtable* vt = (const helix_adapter_vtable*)d->vtable;
    if (!vt || vt->struct_size < sizeof(helix_adapter_vtable)) return "adapter table too small";
    if (!vt->create || !vt->destroy || !vt->probe || !vt->parse) return "NULL callback";
    return 0;
  }
  if (d->kind == HELIX_KIND_DIGESTER && d->abi_minor >= 1) {
    const helix_digester_vtable* vt = (const helix_digester_vtable*)d->vtable;
    if (!vt || vt->struct_size < offsetof(helix_digester_vtable, resume_session))
      return "digester table too small";
    return 0;
  }
  return "unknown kind";
}
