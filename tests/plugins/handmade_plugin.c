/* A test-only adapter written in plain C against helix_plugin.h, its descriptor and function
 * table filled in by hand. Each compile definition breaks it in one way the host must refuse:
 *   HANDMADE_NAME "name"     the descriptor's name (required)
 *   HANDMADE_NULL_PARSE      the required `parse` callback is NULL
 *   HANDMADE_SMALL_TABLE     the table's struct_size ends before `parse` (a truncated table)
 *   HANDMADE_NO_ENTRY        the entry point is exported under a wrong name */
#include <helix/helix_plugin.h>

static char instance; /* the plugin keeps no state; any non-NULL handle will do */

static helix_status create(const helix_host_api* host, helix_call* call, helix_str config,
                           helix_adapter** out) {
  (void)host, (void)call, (void)config;
  *out = (helix_adapter*)&instance;
  return HELIX_OK;
}

static void destroy(helix_adapter* adapter) { (void)adapter; }

static int32_t probe(helix_adapter* adapter, const helix_probe_input* input) {
  (void)adapter, (void)input;
  return 0;
}

#ifdef HANDMADE_NULL_PARSE
#define PARSE NULL
#else
static helix_status parse(helix_adapter* adapter, helix_call* call, const helix_parse_input* input,
                          const helix_emit_api* emit) {
  (void)adapter, (void)call, (void)input, (void)emit;
  return HELIX_OK;
}
#define PARSE parse
#endif

static const helix_source_pattern patterns[] = {{"*.handmade", HELIX_LAYOUT_LINES}, {NULL, 0}};

static const helix_adapter_vtable vtable = {
#ifdef HANDMADE_SMALL_TABLE
    offsetof(helix_adapter_vtable, parse),
#else
    sizeof(helix_adapter_vtable),
#endif
    "handmade",
    NULL,
    NULL,
    patterns,
    create,
    destroy,
    probe,
    PARSE,
    NULL /* get_extension: none */};

/* abi_minor is the minor the plugin needs: nothing beyond ABI 1.0. */
static const helix_plugin_descriptor descriptor = {
    HELIX_ABI_MAJOR, 0,       sizeof(helix_plugin_descriptor),     HELIX_KIND_ADAPTER,
    HANDMADE_NAME,   "0.1.0", "Helix hand-written C test adapter", &vtable};

#ifdef HANDMADE_NO_ENTRY
#define ENTRY_POINT helix_plugin_querry
#else
#define ENTRY_POINT helix_plugin_query
#endif

HELIX_EXPORT const helix_plugin_descriptor* ENTRY_POINT(uint32_t host_abi_major,
                                                        uint32_t host_abi_minor) {
  (void)host_abi_major, (void)host_abi_minor;
  return &descriptor;
}
