// The secret corpus: every shape (a secret made from each built-in rule's sample, and base64
// encodings of some) in every placement a transcript puts secrets in, with no secret left; a
// false-positive corpus (hashes, ids, base64 images, lockfile integrity, minified code, prose
// and the real fixtures) with its rate reported and bounded; and the keyword prefilter against
// the path that runs every rule, byte for byte, over all of it.
#define BOOST_TEST_MODULE secret_corpus
#include <boost/test/unit_test.hpp>

#include "planted_secrets.hpp"
#include "privacy/redactor.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>
#include <filesystem>
#include <functional>
#include <map>
#include <random>

namespace fs = std::filesystem;
namespace json = boost::json;
using helix::Redactor;
using helix::test::PlantedSecret;

namespace {

const Redactor& prefiltered() {
  static const Redactor r;
  return r;
}

const Redactor& every_rule() {
  static const Redactor r({}, {.choice = helix::RuleChoice::kEveryRule});
  return r;
}

std::string quoted(const std::string& s) { return json::serialize(json::string_view(s)); }

struct Placement {
  const char* name;
  bool record;  // a raw JSON record (redact_record), else a text (redact_text)
  std::function<std::string(const std::string&)> place;
};

std::string nested_json(const std::string& s, int depth) {
  json::value v = json::object{{"cmd", "set -e\n" + s}};
  for (int i = 0; i < depth; ++i) v = json::object{{"arguments", json::serialize(v)}};
  return json::serialize(v);
}

const std::vector<Placement>& placements() {
  static const std::vector<Placement> all = {
      {"plain text", false, [](const std::string& s) { return "output:\n" + s + "\nexit 0"; }},
      {"JSON string", true,
       [](const std::string& s) {
         return R"({"type":"tool_result","content":)" + quoted("ok\n" + s + "\n") + "}";
       }},
      {"JSON six strings deep", true, [](const std::string& s) { return nested_json(s, 6); }},
      {"JSON in a tool output", true,
       [](const std::string& s) {
         return R"({"output":)" + quoted(json::serialize(json::object{{"key", s}, {"n", 1}})) + "}";
       }},
      {"URL query", false,
       [](const std::string& s) {
         return "curl 'https://api.example.com/v1/items?token=" + s + "&page=2'";
       }},
      {"XML tag", false,
       [](const std::string& s) { return "<config><token>" + s + "</token></config>"; }},
      {"file path", false,
       [](const std::string& s) { return "cat /home/dev/.cache/tool/" + s + "/settings.json"; }},
      {"Markdown table", false,
       [](const std::string& s) { return "| name | value |\n|---|---|\n| key | " + s + " |\n"; }},
      {"end of sentence", false,
       [](const std::string& s) { return "The credential was " + s + ". Rotate it."; }},
      {"env line", false, [](const std::string& s) { return "API_TOKEN=" + s + "\nDEBUG=1\n"; }},
      {"YAML", false,
       [](const std::string& s) { return "auth:\n  token: " + s + "\n  retries: 3\n"; }},
      {"CLI flag", false,
       [](const std::string& s) { return "tool login --token " + s + " --verbose"; }},
      {"shell quotes", true,
       [](const std::string& s) {
         return R"({"command":)" + quoted("echo \"" + s + "\" | base64 -d") + "}";
       }},
      {"CRLF lines", false,
       [](const std::string& s) { return "first line\r\n" + s + "\r\nlast line"; }},
  };
  return all;
}

std::string redacted(const Redactor& r, bool record, std::string text) {
  if (record)
    r.redact_record(text);
  else
    r.redact_text(text);
  return text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

std::string random_text(std::mt19937_64& random, std::size_t n, std::string_view alphabet) {
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += alphabet[pick(random)];
  return out;
}

std::string random_bytes(std::mt19937_64& random, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += static_cast<char>(random() & 0xFF);
  return out;
}

// One false-positive category: texts that hold no secret.
struct Category {
  std::string name;
  bool record = false;
  std::vector<std::string> items;
};

constexpr std::string_view kHex = "0123456789abcdef";

std::vector<Category> generated_categories() {
  std::mt19937_64 random(77);
  std::vector<Category> out;
  auto add = [&](std::string name, bool record, int n, const std::function<std::string()>& make) {
    Category c{std::move(name), record, {}};
    for (int i = 0; i < n; ++i) c.items.push_back(make());
    out.push_back(std::move(c));
  };
  auto uuid = [&] {
    return fmt::format("{}-{}-{}-{}-{}", random_text(random, 8, kHex), random_text(random, 4, kHex),
                       random_text(random, 4, kHex), random_text(random, 4, kHex),
                       random_text(random, 12, kHex));
  };
  add("git SHAs", false, 2000, [&] {
    const std::string sha = random_text(random, 40, kHex);
    return "commit " + sha + "\nMerge: " + sha.substr(0, 7) + " " + random_text(random, 7, kHex) +
           "\n    fix the parser (" + random_text(random, 40, kHex) + ")";
  });
  add("sha256 hashes", true, 2000, [&] {
    return R"({"file":"dist/app.tar.gz","sha256":")" + random_text(random, 64, kHex) +
           R"(","checksum":"sha256:)" + random_text(random, 64, kHex) + R"("})";
  });
  add("UUIDs", true, 2000, [&] {
    return R"({"uuid":")" + uuid() + R"(","parentUuid":")" + uuid() + R"(","sessionId":")" +
           uuid() + R"(","requestId":"req_)" +
           random_text(random, 24, "0123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz") +
           R"("})";
  });
  add("base64 images", true, 60, [&] {
    const std::string data = helix::base64_encode(random_bytes(random, 6000));
    return R"({"type":"image","source":{"type":"base64","media_type":"image/png","data":")" + data +
           R"("}})";
  });
  add("data URIs in Markdown", false, 60, [&] {
    return "![chart](data:image/png;base64," + helix::base64_encode(random_bytes(random, 3000)) +
           ")";
  });
  add("lockfile integrity", true, 2000, [&] {
    return R"({"node_modules/pkg-)" + random_text(random, 6, "abcdefghijklmnopqrstuvwxyz") +
           R"(":{"version":"1.2.3","resolved":"https://registry.npmjs.org/pkg/-/pkg-1.2.3.tgz",)"
           R"("integrity":"sha512-)" +
           helix::base64_encode(random_bytes(random, 64)) + R"("}})";
  });
  return out;
}

std::string read_or_empty(const fs::path& p) {
  return fs::exists(p) ? helix::test::read_file(p) : std::string();
}

// Real text: minified JavaScript and a source map (Debian's libjs-jquery and libjs-underscore,
// installed by scripts/bootstrap), the project's documentation and source code, and the real
// transcripts of tests/fixtures, line by line.
std::vector<Category> real_categories() {
  std::vector<Category> out;
  Category js{"minified JavaScript and source map", false, {}};
  for (const char* file :
       {"/usr/share/javascript/jquery/jquery.min.js", "/usr/share/javascript/jquery/jquery.min.map",
        "/usr/share/javascript/underscore/underscore.min.js"}) {
    const std::string text = read_or_empty(file);
    BOOST_TEST_REQUIRE(!text.empty(), file << " is missing: run scripts/bootstrap");
    for (auto& line : lines_of(text)) js.items.push_back(std::move(line));
  }
  out.push_back(std::move(js));
  Category prose{"prose (docs/*.md, README.md)", false, {}};
  const fs::path root = fs::path(HELIX_TEST_FIXTURE_DIR) / "../..";
  std::vector<fs::path> docs = {root / "README.md"};
  for (const auto& e : fs::directory_iterator(root / "docs"))
    if (e.path().extension() == ".md") docs.push_back(e.path());
  for (const auto& d : docs)
    for (auto& line : lines_of(helix::test::read_file(d))) prose.items.push_back(std::move(line));
  out.push_back(std::move(prose));
  Category code{"source code (host/, plugins/, sdk/)", false, {}};
  for (const char* dir : {"host", "plugins", "sdk"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir))
      if (e.is_regular_file() && (e.path().extension() == ".cpp" ||
                                  e.path().extension() == ".hpp" || e.path().extension() == ".h"))
        for (auto& line : lines_of(helix::test::read_file(e.path())))
          code.items.push_back(std::move(line));
  out.push_back(std::move(code));
  Category fixtures{"real transcripts (tests/fixtures)", true, {}};
  for (const auto& e : fs::recursive_directory_iterator(HELIX_TEST_FIXTURE_DIR))
    if (e.is_regular_file() && e.path().extension() == ".jsonl")
      for (auto& line : lines_of(helix::test::read_file(e.path())))
        fixtures.items.push_back(std::move(line));
  out.push_back(std::move(fixtures));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(no_shape_leaks_in_any_placement) {
  const auto shapes = helix::test::planted_secrets(3);
  BOOST_TEST_REQUIRE(shapes.size() >= 100u);
  int cases = 0, leaks = 0, differ = 0;
  std::map<std::string, int> leaks_by_placement;
  for (const auto& shape : shapes) {
    for (const auto& p : placements()) {
      ++cases;
      const std::string input = p.place(shape.text);
      const std::string out = redacted(prefiltered(), p.record, input);
      const bool leaked =
          std::any_of(shape.random_parts.begin(), shape.random_parts.end(),
                      [&](const std::string& part) { return out.find(part) != std::string::npos; });
      if (leaked) {
        ++leaks;
        ++leaks_by_placement[p.name];
        BOOST_TEST_MESSAGE("leak: " << shape.rule << " in " << p.name << ": " << out);
      }
      if (out != redacted(every_rule(), p.record, input)) {
        ++differ;
        BOOST_TEST_MESSAGE("paths differ: " << shape.rule << " in " << p.name);
      }
    }
  }
  BOOST_TEST_MESSAGE(fmt::format("{} shapes x {} placements = {} cases: {} leaks", shapes.size(),
                                 placements().size(), cases, leaks));
  for (const auto& [name, n] : leaks_by_placement) BOOST_TEST_MESSAGE("  " << name << ": " << n);
  BOOST_TEST(leaks == 0);
  BOOST_TEST(differ == 0);
}

BOOST_AUTO_TEST_CASE(false_positives_are_rare_and_measured) {
  auto categories = generated_categories();
  for (auto& c : real_categories()) categories.push_back(std::move(c));
  BOOST_TEST_MESSAGE("false positives: category, items, MB, items changed, redactions");
  for (const auto& c : categories) {
    std::size_t bytes = 0, changed = 0;
    int64_t redactions = 0;
    for (const auto& item : c.items) {
      bytes += item.size();
      std::string copy = item;
      const int64_t n =
          c.record ? prefiltered().redact_record(copy) : prefiltered().redact_text(copy);
      redactions += n;
      if (n > 0) {
        ++changed;
        if (changed <= 3) BOOST_TEST_MESSAGE("  " << c.name << ": " << copy.substr(0, 300));
      }
    }
    const double rate =
        c.items.empty() ? 0 : static_cast<double>(changed) / static_cast<double>(c.items.size());
    BOOST_TEST_MESSAGE(fmt::format("  {}: {} items, {:.2f} MB, {} changed ({:.3f}%), {} redactions",
                                   c.name, c.items.size(), static_cast<double>(bytes) / 1e6,
                                   changed, rate * 100, redactions));
    // Hashes, ids, images and integrity strings are never secrets; real text allows one
    // changed line in a thousand (a token-like value under a secret-like name).
    const bool generated = c.name != "minified JavaScript and source map" &&
                           !c.name.starts_with("prose") && !c.name.starts_with("source") &&
                           !c.name.starts_with("real");
    BOOST_TEST(rate <= (generated ? 0.0 : 0.001), c.name);
  }
}

// The prefilter against every rule, over the false-positive corpus and every line of every
// fixture (as a record and as a text): the same bytes.
BOOST_AUTO_TEST_CASE(the_prefilter_and_every_rule_agree_on_the_corpora_and_fixtures) {
  auto categories = generated_categories();
  for (auto& c : real_categories()) categories.push_back(std::move(c));
  std::size_t compared = 0, bytes = 0;
  for (const auto& c : categories)
    for (const auto& item : c.items)
      for (bool record : {true, false}) {
        ++compared;
        bytes += item.size();
        const std::string a = redacted(prefiltered(), record, item);
        const std::string b = redacted(every_rule(), record, item);
        BOOST_TEST(a == b, c.name << ": " << item.substr(0, 200));
      }
  BOOST_TEST_MESSAGE(compared << " texts (" << bytes / 1000000 << " MB) compared");
}
