// SQL inside the store module is allowed.
constexpr const char* kSql = "SELECT COUNT(*) FROM sessions";
