// A file of the store module may include the modules the store links (model, base).
#include "base/clock.hpp"
#include "model/rows.hpp"
#include "store/store.hpp"

int module_probe_allowed() { return static_cast<int>(sizeof(helix::SessionRow) > 0); }
