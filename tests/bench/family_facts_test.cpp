// What each family says of itself (docs/family-facts.md): `gpubench --describe` prints it as JSON
// without a GPU, every family with every field, and a result file's context holds the same object
// under gpubench_families.
#include "family.hpp"
#include "family_facts.hpp"
#include "file_reporter.hpp"
#include "options.hpp"
#include "process.hpp"
#include "registry.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>

namespace gpubench::testing {
namespace {

// Reads the facts as a script does (Python's json module) and prints each thing the schema
// does not allow, one a line; then the families' names in order, as "families: a b c".
constexpr const char* check_facts = R"(import json, sys
facts = json.loads(sys.argv[1])
if sorted(facts) != ["families", "schema"]: print("keys:", sorted(facts))
if facts.get("schema") != 1: print("schema:", facts.get("schema"))
text = lambda v: type(v) is str
for f in facts["families"]:
    want = ["argument", "figures", "flags", "grammar", "name", "order"]
    if sorted(f) != want: print(f.get("name"), "keys:", sorted(f))
    if not text(f["name"]) or not f["name"] or "/" in f["name"]: print("name:", f["name"])
    if type(f["order"]) is not int: print(f["name"], "order:", f["order"])
    if not text(f["grammar"]) or not f["grammar"].startswith(f["name"] + "/"):
        print(f["name"], "grammar:", f["grammar"])
    a = f["argument"]
    if a is not None and (sorted(a) != ["key", "unit"] or not text(a["key"])
                          or a["unit"] not in ("bytes", "elements")):
        print(f["name"], "argument:", a)
    if not f["figures"]: print(f["name"], "has no figure")
    for g in f["figures"]:
        if (sorted(g) != ["better", "counter", "panel", "scale", "unit"]
                or not text(g["counter"]) or not g["counter"] or not text(g["unit"])
                or not g["unit"] or type(g["panel"]) is not bool
                or type(g["scale"]) not in (int, float) or not g["scale"] > 0
                or g["better"] not in ("higher", "lower")):
            print(f["name"], "figure:", g)
    for g in f["flags"]:
        if (sorted(g) != ["default", "help", "name"] or not all(text(v) for v in g.values())
                or not g["name"].startswith("--") or not g["default"] or not g["help"]):
            print(f["name"], "flag:", g)
orders = [f["order"] for f in facts["families"]]
if orders != sorted(orders): print("not in order:", orders)
print("families:", " ".join(f["name"] for f in facts["families"]))
)";

std::string family_names() {
  std::string names;
  for (const bench::Family& family : bench::families()) {
    names += (names.empty() ? "" : " ") + family.name;
  }
  return names;
}

Finished describe() { return run_process({GPUBENCH_BINARY, "--describe"}); }

TEST(FamilyFacts, DescribeListsEveryFamilyWithEveryField) {
  const Finished described = describe();
  ASSERT_EQ(described.exit_code, 0) << described.err;
  EXPECT_EQ(described.err, "");
  const Finished check = run_process({"/usr/bin/env", "python3", "-c", check_facts, described.out});
  ASSERT_EQ(check.exit_code, 0) << check.err << "\n" << described.out;
  EXPECT_EQ(check.out, fmt::format("families: {}\n", family_names())) << described.out;
}

TEST(FamilyFacts, DescribeIsWhatTheFamiliesDeclare) {
  EXPECT_EQ(describe().out, bench::family_facts_json(bench::families()) + "\n");
}

// results/h200/facts/describe.json, which the scripts' tests read as the families' facts, is
// what this code prints: a family's change lands with the file written again.
TEST(FamilyFacts, TheCommittedFactsAreWhatThisCodePrints) {
  std::ifstream file(COMMITTED_FACTS);
  ASSERT_TRUE(file) << COMMITTED_FACTS;
  const std::string committed{std::istreambuf_iterator<char>(file), {}};
  EXPECT_EQ(committed, describe().out)
      << "write it again: gpubench --describe > results/h200/facts/describe.json";
}

// Each flag a family declares is one gpubench takes, its default included.
TEST(FamilyFacts, EveryFlagAndItsDefaultIsAccepted) {
  for (const bench::Family& family : bench::families()) {
    for (const bench::FamilyFlag& flag : family.flags) {
      const Finished listed = run_process(
          {GPUBENCH_BINARY, "--benchmark_list_tests", flag.name + "=" + flag.default_value});
      EXPECT_EQ(listed.exit_code, 0) << flag.name << ": " << listed.err;
      const Finished help = run_process({GPUBENCH_BINARY, "--help"});
      EXPECT_NE(help.out.find(flag.name + "="), std::string::npos) << flag.name;
    }
  }
}

TEST(FamilyFacts, AFlagsValueIsTheLastGivenElseItsDefault) {
  const bench::FamilyFlag flag{"--l2", "cold", "L2", {}};
  EXPECT_EQ(bench::FlagValues().of(flag), "cold");
  const bench::FlagValues given(std::map<std::string, std::string, std::less<>>{{"--l2", "warm"}});
  EXPECT_EQ(given.of(flag), "warm");
  EXPECT_EQ(given.of({"--sizes", "4B..1GiB:x4", "sizes", {}}), "4B..1GiB:x4");
}

// A bad value reaches no family: configuring throws the flag's one line.
TEST(FamilyFacts, ConfiguringWithABadValueNamesTheFlag) {
  const bench::FlagValues bad(std::map<std::string, std::string, std::less<>>{{"--l2", "hot"}});
  try {
    static_cast<void>(bench::configure_families(bad));
    ADD_FAILURE() << "--l2=hot was taken";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "--l2=hot: expected cold or warm");
  }
  EXPECT_EQ(bench::configure_families({}).size(), bench::families().size());
}

TEST(FamilyFacts, TheResultFilesContextHoldsTheSameObject) {
  ScratchDir scratch;
  const std::string out = scratch.path("facts.json");
  bench::FileReporter file(out, "json");
  file.set_context("run_status", "running");
  file.set_context_json("gpubench_families", bench::family_facts_json(bench::families()));
  benchmark::BenchmarkReporter::Context context;
  context.name_field_width = 10;
  file.ReportContext(context);
  file.close();
  ASSERT_TRUE(file.written());
  const Finished same = run_process(
      {"/usr/bin/env", "python3", "-c",
       "import json, sys\n"
       "context = json.load(open(sys.argv[1]))['context']\n"
       "print(context['gpubench_families'] == json.loads(sys.argv[2]), context['run_status'])\n",
       out, describe().out});
  ASSERT_EQ(same.exit_code, 0) << same.err << "\n" << read_file(out);
  EXPECT_EQ(same.out, "True running\n") << read_file(out);
}

} // namespace
} // namespace gpubench::testing
