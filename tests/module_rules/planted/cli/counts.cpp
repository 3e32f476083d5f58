// A planted violation for the rule check's own test: a command that writes SQL itself.
int64_t count(Store& store) {
  auto st = store.database().prepare("SELECT COUNT(*) FROM sessions");
  return st.step() ? st.integer(0) : 0;
}
