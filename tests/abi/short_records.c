/* A C plugin (built against the 1.0 header) whose records sit right before an unmapped page, so
 * that a host reading one byte past a record's struct_size dies with SIGSEGV. For each line of
 * a *.short file:
 *   "short ..."  an event whose struct_size ends before `model` (smaller than any ABI's event)
 *   "exact ..."  a whole 1.0 event, its last byte the last readable one
 * and, per call, a session and a usage record placed the same way. */
#include <helix/helix_plugin.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char instance;

static helix_status create(const helix_host_api* host, helix_call* call, helix_str config,
                           helix_adapter** out) {
  (void)host, (void)call, (void)config;
  *out = (helix_adapter*)&instance;
  return HELIX_OK;
}

static void destroy(helix_adapter* adapter) { (void)adapter; }

static int32_t probe(helix_adapter* adapter, const helix_probe_input* input) {
  (void)adapter;
  return input->path.len > 6 && memcmp(input->path.ptr + input->path.len - 6, ".short", 6) == 0 ? 90
                                                                                                : 0;
}

static helix_str str(const char* s) {
  helix_str out = {s, strlen(s)};
  return out;
}

/* Two pages, the second unmapped: returns where `size` bytes end at the boundary. */
static void* before_guard(char** pages, size_t size) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  *pages = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (*pages == MAP_FAILED) return NULL;
  mprotect(*pages + page, page, PROT_NONE);
  return *pages + page - size;
}

static void release(char* pages) { munmap(pages, 2 * (size_t)sysconf(_SC_PAGESIZE)); }

static void emit_line(helix_call* call, const helix_emit_api* emit, const char* line, size_t length,
                      uint64_t offset) {
  const int is_short = length >= 5 && memcmp(line, "short", 5) == 0;
  const size_t size = is_short ? offsetof(helix_event, model) : sizeof(helix_event);
  char* pages;
  helix_event* e = before_guard(&pages, size);
  if (!e) return;
  memset(e, 0, size);
  e->struct_size = (uint32_t)size;
  e->session_id = str("short-1");
  e->source_offset = offset;
  e->kind = str("user_msg");
  e->role = str("user");
  e->text.ptr = line;
  e->text.len = length;
  emit->event(call, e);
  release(pages);
}

static helix_status parse(helix_adapter* adapter, helix_call* call, const helix_parse_input* in,
                          const helix_emit_api* emit) {
  char* pages;
  helix_session* s = before_guard(&pages, sizeof(helix_session));
  (void)adapter;
  if (!s) return HELIX_ERROR;
  memset(s, 0, sizeof *s);
  s->struct_size = sizeof *s;
  s->native_id = str("short-1");
  s->cwd = str("/work/short");
  emit->session(call, s);
  release(pages);

  helix_usage* u = before_guard(&pages, sizeof(helix_usage));
  if (!u) return HELIX_ERROR;
  memset(u, 0, sizeof *u);
  u->struct_size = sizeof *u;
  u->session_id = str("short-1");
  u->source_offset = in->base_offset;
  u->model = str("short-model");
  u->input_tokens = 7;
  u->output_tokens = 3;
  u->cost_usd = -1;
  emit->usage(call, u);
  release(pages);

  for (size_t pos = 0; pos < in->data.len;) {
    const char* start = in->data.ptr + pos;
    const char* nl = memchr(start, '\n', in->data.len - pos);
    const size_t length = nl ? (size_t)(nl - start) : in->data.len - pos;
    if (length > 0) emit_line(call, emit, start, length, in->base_offset + pos);
    pos += length + 1;
  }
  return HELIX_OK;
}

static const helix_source_pattern patterns[] = {{"*.short", HELIX_LAYOUT_LINES}, {NULL, 0}};
static const helix_adapter_vtable vtable = {sizeof(helix_adapter_vtable),
                                            "short",
                                            "HELIX_SHORT_HOME",
                                            NULL,
                                            patterns,
                                            create,
                                            destroy,
                                            probe,
                                            parse};
static const helix_plugin_descriptor descriptor = {HELIX_ABI_MAJOR,
                                                   HELIX_ABI_MINOR,
                                                   sizeof(helix_plugin_descriptor),
                                                   HELIX_KIND_ADAPTER,
                                                   "short_records",
                                                   "1.0.0",
                                                   "records that end before an unmapped page",
                                                   &vtable};

HELIX_EXPORT const helix_plugin_descriptor* helix_plugin_query(uint32_t host_abi_major,
                                                               uint32_t host_abi_minor) {
  (void)host_abi_major, (void)host_abi_minor;
  return &descriptor;
}
