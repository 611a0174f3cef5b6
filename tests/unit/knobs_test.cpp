// SPDX-License-Identifier: MIT
// The knob registry: every row well formed and its default valid, and each kind of value read and
// refused as documented (a bad value names the variable, the value and what it accepts).
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>

#include "common/knobs.hpp"

namespace takyon::common {
namespace {

/// Sets a variable for one test and restores what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      old_ = old;
      had_ = true;
    }
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_, old_.c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(Knobs, EveryRowIsWellFormedAndItsDefaultValid) {
  ASSERT_EQ(knobs().size(), static_cast<std::size_t>(KnobId::kCount));
  std::set<std::string> names;
  for (int i = 0; i < int(KnobId::kCount); ++i) {
    const Knob& k = knob(KnobId(i));
    SCOPED_TRACE(k.name);
    EXPECT_TRUE(names.insert(k.name).second) << "listed twice";
    EXPECT_NE(std::string(k.what), "");
    EXPECT_NE(std::string(k.why), "");
    EXPECT_NE(std::string(layer_name(k.layer)), "?");
    EXPECT_TRUE(std::string(k.name).rfind("TAKYON_", 0) == 0 || std::string(k.name) == "MPIEXEC_TIMEOUT");
    if (!knob_is_set(KnobId(i))) {
      EXPECT_EQ(knob_problem(KnobId(i)), "") << "the default does not parse";
    }
    EXPECT_EQ(k.kind == KnobKind::kChoice, k.choices != nullptr || k.choices_fn != nullptr);
    if (k.kind == KnobKind::kInteger || k.kind == KnobKind::kBytes) {
      EXPECT_LE(k.min, k.max);
    }
  }
}

TEST(Knobs, IntegersAndSizes) {
  {
    ScopedEnv e("TAKYON_MPI_SPIN_US", "250");
    EXPECT_TRUE(knob_is_set(KnobId::kMpiSpinUs));
    EXPECT_EQ(knob_integer(KnobId::kMpiSpinUs), 250);
  }
  EXPECT_FALSE(knob_is_set(KnobId::kMpiSpinUs));
  EXPECT_EQ(knob_integer(KnobId::kMpiSpinUs), 30);  // the default
  {
    ScopedEnv e("TAKYON_MPI_CMA_MAX", "2M");
    EXPECT_EQ(knob_integer(KnobId::kMpiCmaMax), 2 << 20);
  }
  {
    ScopedEnv e("TAKYON_MPI_CMA_MAX", "64K");
    EXPECT_EQ(knob_integer(KnobId::kMpiCmaMax), 64 << 10);
  }
  {
    ScopedEnv e("TAKYON_MPI_CMA_MAX", "");  // empty: unset
    EXPECT_FALSE(knob_is_set(KnobId::kMpiCmaMax));
    EXPECT_EQ(knob_integer(KnobId::kMpiCmaMax), 1 << 20);
  }
  for (const char* bad : {"abc", "12x", "1.5M", "-3", "2T", "99999999999999999999"}) {
    ScopedEnv e("TAKYON_MPI_CMA_MAX", bad);
    SCOPED_TRACE(bad);
    const std::string problem = knob_problem(KnobId::kMpiCmaMax);
    EXPECT_NE(problem.find("TAKYON_MPI_CMA_MAX='" + std::string(bad) + "'"), std::string::npos) << problem;
    EXPECT_THROW((void)knob_integer(KnobId::kMpiCmaMax), KnobError);
  }
  {
    ScopedEnv e("TAKYON_DISCOVERY_PORT", "70000");
    EXPECT_NE(knob_problem(KnobId::kDiscoveryPort).find("out of range (1 to 65535)"), std::string::npos);
  }
  {
    ScopedEnv e("TAKYON_MPI_CMA_MAX", "1K");  // below the minimum of 4 KiB
    EXPECT_NE(knob_problem(KnobId::kMpiCmaMax).find("out of range"), std::string::npos);
  }
}

TEST(Knobs, FlagsAndChoices) {
  {
    ScopedEnv e("TAKYON_MPI_SPREAD", "0");
    EXPECT_FALSE(knob_flag(KnobId::kMpiSpread));
  }
  EXPECT_TRUE(knob_flag(KnobId::kMpiSpread));
  {
    ScopedEnv e("TAKYON_MPI_SPREAD", "yes");
    EXPECT_NE(knob_problem(KnobId::kMpiSpread).find("TAKYON_MPI_SPREAD='yes' is not 0 or 1"),
              std::string::npos);
    EXPECT_THROW((void)knob_flag(KnobId::kMpiSpread), KnobError);
  }
  EXPECT_EQ(knob_choice(KnobId::kCollAllreduce), 0);  // auto
  {
    ScopedEnv e("TAKYON_MPI_COLL_ALLREDUCE", "ring");
    EXPECT_EQ(knob_choice(KnobId::kCollAllreduce), 3);
  }
  {
    ScopedEnv e("TAKYON_MPI_COLL_ALLREDUCE", "rin");
    try {
      (void)knob_choice(KnobId::kCollAllreduce);
      ADD_FAILURE() << "a choice that is not listed was accepted";
    } catch (const KnobError& error) {
      EXPECT_STREQ(error.what(),
                   "TAKYON_MPI_COLL_ALLREDUCE='rin' is not one of "
                   "auto,recursive_doubling,rabenseifner,ring,reduce_bcast,shm");
    }
  }
  // A forced algorithm's choices come from common/coll_algorithms.def: "auto", the rows, "shm".
  EXPECT_STREQ(knob_choices(knob(KnobId::kCollBcast)), "auto|binomial|scatter_allgather|linear|shm");
  EXPECT_STREQ(knob_choices(knob(KnobId::kCollReduceScatter)), "auto|allreduce|ring|shm");
  {
    ScopedEnv e("TAKYON_MPI_UCX_IP", "10.1.2.3");  // text: taken as it is
    EXPECT_EQ(knob_text(KnobId::kMpiUcxIp), "10.1.2.3");
    EXPECT_EQ(knob_problem(KnobId::kMpiUcxIp), "");
  }
}

}  // namespace
}  // namespace takyon::common
