// helix-plugin-check, the SDK's conformance kit, run as a third party runs it: the binary over
// real plugin files. It passes the default digester and the SDK example, and fails, with a
// report that says what is wrong, a plugin with wrong offsets, one whose output changes from
// call to call, and one that crashes on damaged input; a plugin the loader refuses, or an
// adapter without samples, cannot be checked (exit 2).
#define BOOST_TEST_MODULE plugin_check
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <string>

#include "helix_command.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using helix::test::Run;

namespace {

const fs::path kPlugins = HELIX_TEST_PLUGINS_ROOT;
const fs::path kSample =
    fs::path(HELIX_TEST_SOURCE_DIR) / "plugins" / "samples" / "session-1.faulty";

Run check(const std::string& args) {
  helix::test::TempDir temp;
  return helix::test::run_command(
      fmt::format("{} {} 2>{}", HELIX_TEST_PLUGIN_CHECK_BINARY, args, (temp / "err").string()),
      temp / "err");
}

bool has(const Run& r, const std::string& part) {
  if (r.out.find(part) != std::string::npos) return true;
  BOOST_TEST_MESSAGE("'" << part << "' not in the report:\n" << r.out << r.err);
  return false;
}

std::string faulty(const std::string& dir, const std::string& name) {
  return (kPlugins / dir / ("libhelix_" + name + ".so")).string() + " --sample " + kSample.string();
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_default_digester_and_the_sdk_example_pass) {
  const Run digester =
      check((fs::path(HELIX_TEST_PLUGIN_DIR) / "libhelix_session_digest.so").string());
  BOOST_TEST(digester.exit_code == 0, digester.out);
  BOOST_TEST(has(digester, "PASS resume: resumed at 4 split points"));
  BOOST_TEST(has(digester, "result: PASS"));
  const Run example = check((kPlugins / "keiseikit" / "libhelix_keiseikit.so").string() +
                            " --sample " + HELIX_EXAMPLES_DIR "/keiseikit/sample");
  BOOST_TEST(example.exit_code == 0, example.out);
  BOOST_TEST(has(example, "PASS exactly once across growth"));
  BOOST_TEST(has(example, "result: PASS"));
}

BOOST_AUTO_TEST_CASE(wrong_offsets_fail_with_the_offset_and_the_bytes_there) {
  const Run r = check(faulty("faulty_offsets", "bad_offsets"));
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(has(r,
                 "FAIL record offsets: an event at offset 3 whose payload is not the sample's "
                 "bytes there"));
  BOOST_TEST(has(r, "source_offset must be the byte offset of the record's first byte"));
  BOOST_TEST(has(r, "PASS purity"));  // only what is wrong fails
  BOOST_TEST(has(r, "result: FAIL (1 of"));
}

BOOST_AUTO_TEST_CASE(output_that_changes_between_calls_fails_purity_and_chunking) {
  const Run r = check(faulty("faulty_nondeterministic", "nondeterministic"));
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(has(r, "FAIL purity: the same input gave other output"));
  BOOST_TEST(has(r, "(call 1)"));  // the difference is shown
  BOOST_TEST(has(r, "FAIL chunk boundaries: cut at"));
  BOOST_TEST(has(r, "PASS record offsets"));
}

BOOST_AUTO_TEST_CASE(a_crash_on_damaged_input_is_reported_with_its_signal_and_input) {
  const Run r = check(faulty("faulty_segfault", "segfault"));
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(has(r, "FAIL exception safety: crashed with signal 11 (Segmentation fault) on "));
  BOOST_TEST(has(r, "PASS purity"));  // the checker itself carried on
}

BOOST_AUTO_TEST_CASE(a_refused_plugin_or_an_adapter_without_samples_cannot_be_checked) {
  const Run refused = check((kPlugins / "abi_next" / "libhelix_abi_next.so").string());
  BOOST_TEST(refused.exit_code == 2);
  BOOST_TEST(has(refused, "FAIL load: it needs Helix plugin ABI"));
  const Run no_samples = check((kPlugins / "good" / "libhelix_good.so").string());
  BOOST_TEST(no_samples.exit_code == 2);
  BOOST_TEST(has(no_samples, "FAIL samples: an adapter is checked over sample files"));
  BOOST_TEST(check("").exit_code == 2);
}
