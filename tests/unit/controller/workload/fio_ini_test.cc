// fio_ini: a value's ${NAME} read from the environment the import is given, and what is refused.
#include "controller/workload/fio_ini.h"

#include <gtest/gtest.h>

#include <map>

#include "controller/workload/fio_import.h"

namespace iofleet::controller {
namespace {

FioEnvironment VarsEnv(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

std::string IniErrorsOf(const std::string& text, const FioEnvironment& env) {
  std::vector<FioIniError> errors;
  std::vector<std::string> expanded;
  ReadFioIni(text, env, errors, expanded);
  std::string out;
  for (const auto& e : errors) out += std::to_string(e.at.line) + ":" + std::to_string(e.at.col) + ": " + e.at.option + ": " + e.message + "\n";
  return out;
}

TEST(FioIni, AValuesNamesAreReadFromTheEnvironment) {
  std::vector<FioIniError> errors;
  std::vector<std::string> expanded;
  auto sections = ReadFioIni("[job]\nbs=${FIO_BS}\nrw=${FIO_RW}\nname=a-${FIO_RW}-${FIO_BS}\n",
                             VarsEnv({{"FIO_BS", "4k"}, {"FIO_RW", "randread"}}), errors, expanded);
  ASSERT_TRUE(errors.empty()) << errors[0].message;
  ASSERT_EQ(sections.size(), 1u);
  ASSERT_EQ(sections[0].options.size(), 3u);
  EXPECT_EQ(sections[0].options[0].value, "4k");
  EXPECT_EQ(sections[0].options[1].value, "randread");
  EXPECT_EQ(sections[0].options[2].value, "a-randread-4k");
  EXPECT_EQ(sections[0].options[0].value_col, 4);  // the place as written
  EXPECT_EQ(expanded, (std::vector<std::string>{"${FIO_BS}=4k", "${FIO_RW}=randread"}));
}

TEST(FioIni, AnUnsetNameIsAnErrorNotAnEmptyValue) {
  // fio reads an unset ${NAME} as empty, which runs another test (bs= empty is fio's default).
  EXPECT_EQ(IniErrorsOf("[job]\nbs=${FIO_BS}\n", VarsEnv({})),
            "2:4: bs: ${FIO_BS} is not set in the environment (fio would read it as empty): set FIO_BS or write the value out\n");
}

TEST(FioIni, FiosHostKeywordsAndOtherDollarsAreRefused) {
  const std::string keywords = IniErrorsOf("[job]\nnumjobs=$ncpus\nsize=${}\nbs=${1X}\n", VarsEnv({{"1X", "4k"}}));
  EXPECT_NE(keywords.find("2:9: numjobs: \"$ncpus\": only ${NAME} (an environment variable) is expanded; fio's $ncpus"),
            std::string::npos) << keywords;
  EXPECT_NE(keywords.find("3:6: size: \"${}\": only ${NAME}"), std::string::npos) << keywords;
  EXPECT_NE(keywords.find("4:4: bs: \"${1X}\": only ${NAME}"), std::string::npos) << keywords;
  EXPECT_NE(IniErrorsOf("[job]\n${KEY}=1\n", VarsEnv({{"KEY", "bs"}})).find("2:1: : $ in a section or option name is not expanded"),
            std::string::npos);
  EXPECT_NE(IniErrorsOf("[job]\nbs=${A}\n", VarsEnv({{"A", "${B}"}})).find("${A} holds \"$\" or a line break"), std::string::npos);
}

TEST(FioIni, TheImportedWorkloadSaysWhatTheEnvironmentGave) {
  FioImport imp = ImportFioJobText("[job]\nrw=randread\nsize=1m\nbs=${FIO_BS}\n", "e.fio", false, false, VarsEnv({{"FIO_BS", "8k"}}));
  ASSERT_TRUE(imp.errors.empty()) << imp.errors[0];
  EXPECT_EQ(imp.workload.steps(0).io().block_size(), 8192u);
  EXPECT_NE(imp.workload.description().find("from the environment: ${FIO_BS}=8k"), std::string::npos) << imp.workload.description();
}

}  // namespace
}  // namespace iofleet::controller
