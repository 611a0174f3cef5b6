// SPDX-License-Identifier: MIT
// The PMIx bootstrap (Open MPI's mpirun, Slurm's srun --mpi=pmix). libpmix is loaded with dlopen
// only when a PMIx launcher started us, so takyon-run and singleton jobs neither load it (and its
// munge/hwloc/libevent dependencies) nor need it installed.
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#include "common/knobs.hpp"
#include "job_id.hpp"
#include "sources.hpp"
#include "wire.hpp"

#if TAKYON_HAVE_PMIX
#include <pmix.h>
#endif

namespace takyon::mpi::detail {

#if !TAKYON_HAVE_PMIX

std::unique_ptr<Bootstrap> make_pmix_bootstrap() {
  throw BootstrapError(
      std::string("PMIx: this library was built without PMIx support, but the environment says a "
                  "PMIx launcher started it (PMIX_NAMESPACE=") +
      std::getenv("PMIX_NAMESPACE") + "); run it with takyon-run, or rebuild with libpmix-dev");
}

#else

namespace {

/// The few PMIx client calls we make, resolved from libpmix at run time.
struct PmixApi {
  decltype(&PMIx_Init) init = nullptr;
  decltype(&PMIx_Finalize) finalize = nullptr;
  decltype(&PMIx_Abort) abort = nullptr;
  decltype(&PMIx_Put) put = nullptr;
  decltype(&PMIx_Commit) commit = nullptr;
  decltype(&PMIx_Fence) fence = nullptr;
  decltype(&PMIx_Get) get = nullptr;
  decltype(&PMIx_Value_destruct) value_destruct = nullptr;
  decltype(&PMIx_Error_string) error_string = nullptr;

  [[nodiscard]] std::string error(pmix_status_t rc) const {
    const char* s = error_string != nullptr ? error_string(rc) : nullptr;
    return (s != nullptr ? std::string(s) : std::string("error")) + " (" + std::to_string(rc) + ")";
  }
};

template <typename Fn>
void resolve(void* lib, const char* name, Fn& fn, const std::string& where) {
  void* sym = dlsym(lib, name);
  if (sym == nullptr) throw BootstrapError("PMIx: " + where + " has no " + name);
  fn = reinterpret_cast<Fn>(sym);
}

/// Loads libpmix once per process (never unloaded: it runs a progress thread).
const PmixApi& pmix_api() {
  static const PmixApi api = [] {
    std::vector<std::string> candidates;
    if (common::knob_is_set(common::KnobId::kPmixLibrary)) {
      candidates.push_back(common::knob_text(common::KnobId::kPmixLibrary));
    } else {
      candidates = {"libpmix.so.2", std::string(TAKYON_PMIX_LIBDIR) + "/libpmix.so.2", "libpmix.so",
                    std::string(TAKYON_PMIX_LIBDIR) + "/libpmix.so"};
    }
    void* lib = nullptr;
    std::string tried;
    std::string where;
    for (const auto& name : candidates) {
      lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (lib != nullptr) {
        where = name;
        break;
      }
      const char* why = dlerror();
      tried += "\n  " + name + ": " + (why != nullptr ? why : "not found");
    }
    if (lib == nullptr) {
      throw BootstrapError(
          "PMIx: a PMIx launcher started this process (PMIX_NAMESPACE is set) but libpmix "
          "could not be loaded (set TAKYON_PMIX_LIBRARY to its path):" +
          tried);
    }
    PmixApi a;
    resolve(lib, "PMIx_Init", a.init, where);
    resolve(lib, "PMIx_Finalize", a.finalize, where);
    resolve(lib, "PMIx_Abort", a.abort, where);
    resolve(lib, "PMIx_Put", a.put, where);
    resolve(lib, "PMIx_Commit", a.commit, where);
    resolve(lib, "PMIx_Fence", a.fence, where);
    resolve(lib, "PMIx_Get", a.get, where);
    resolve(lib, "PMIx_Value_destruct", a.value_destruct, where);
    resolve(lib, "PMIx_Error_string", a.error_string, where);
    return a;
  }();
  return api;
}

/// Owns a value returned by PMIx_Get.
class PmixValue {
 public:
  PmixValue(const PmixApi& api, pmix_value_t* v) : api_(api), v_(v) {}
  PmixValue(const PmixValue&) = delete;
  PmixValue& operator=(const PmixValue&) = delete;
  ~PmixValue() {
    if (v_ != nullptr) {
      api_.value_destruct(v_);
      std::free(v_);  // what PMIX_VALUE_RELEASE does
    }
  }
  const pmix_value_t* operator->() const { return v_; }

 private:
  const PmixApi& api_;
  pmix_value_t* v_;
};

void set_key(char (&key)[PMIX_MAX_KEYLEN + 1], const std::string& name) {
  std::memset(key, 0, sizeof key);
  std::memcpy(key, name.data(), name.size() < PMIX_MAX_KEYLEN ? name.size() : PMIX_MAX_KEYLEN);
}

class PmixBootstrap final : public Bootstrap {
 public:
  PmixBootstrap() : api_(pmix_api()) {
    std::memset(&me_, 0, sizeof me_);
    const pmix_status_t rc = api_.init(&me_, nullptr, 0);
    if (rc != PMIX_SUCCESS) {
      throw BootstrapError("PMIx_Init: " + api_.error(rc) + " (PMIX_NAMESPACE=" + env("PMIX_NAMESPACE") +
                           ", PMIX_RANK=" + env("PMIX_RANK") + ")");
    }
    initialized_ = true;
    std::memcpy(&all_, &me_, sizeof all_);
    all_.rank = PMIX_RANK_WILDCARD;
    nspace_.assign(me_.nspace, strnlen(me_.nspace, sizeof me_.nspace));
    job_.launcher = "pmix";
    job_.job_id = job_id_from_name(nspace_);
    job_.size = as_int(get_uint(all_, PMIX_JOB_SIZE), "PMIX_JOB_SIZE", 1);
    if (me_.rank >= static_cast<pmix_rank_t>(job_.size)) {
      throw BootstrapError("PMIx: rank " + std::to_string(me_.rank) + " is not below the job size " +
                           std::to_string(job_.size));
    }
    job_.rank = static_cast<int>(me_.rank);
    job_.local_rank = as_int(get_uint(me_, PMIX_LOCAL_RANK), "PMIX_LOCAL_RANK", 0);
    job_.local_size = as_int(get_uint(all_, PMIX_LOCAL_SIZE), "PMIX_LOCAL_SIZE", 1);
    if (job_.local_rank >= job_.local_size || job_.local_size > job_.size) {
      throw BootstrapError("PMIx: local rank " + std::to_string(job_.local_rank) + " of " +
                           std::to_string(job_.local_size) + " local ranks in a job of " +
                           std::to_string(job_.size));
    }
  }

  [[nodiscard]] const JobInfo& job() const override { return job_; }

  std::vector<std::string> allgather(const std::string& mine) override {
    if (mine.size() > wire::kMaxBlobBytes) {
      throw BootstrapError("PMIx allgather: " + std::to_string(mine.size()) + " bytes, more than the " +
                           std::to_string(wire::kMaxBlobBytes) + " allowed");
    }
    check_usable("allgather");
    // A fresh key per call: PMIx keeps every put, and a reused key could return the last round's.
    const std::string key = "takyon.ag." + std::to_string(++seq_);
    // One leading byte, so an empty blob is still a non-empty byte object.
    std::string boxed = "T" + mine;
    pmix_value_t value;
    std::memset(&value, 0, sizeof value);
    value.type = PMIX_BYTE_OBJECT;
    value.data.bo.bytes = boxed.data();
    value.data.bo.size = boxed.size();
    pmix_status_t rc = api_.put(PMIX_GLOBAL, key.c_str(), &value);
    if (rc != PMIX_SUCCESS) throw BootstrapError("PMIx_Put(" + key + "): " + api_.error(rc));
    rc = api_.commit();
    if (rc != PMIX_SUCCESS) throw BootstrapError("PMIx_Commit: " + api_.error(rc));
    pmix_info_t collect;
    std::memset(&collect, 0, sizeof collect);
    set_key(collect.key, PMIX_COLLECT_DATA);
    collect.value.type = PMIX_BOOL;
    collect.value.data.flag = true;
    rc = api_.fence(&all_, 1, &collect, 1);
    if (rc != PMIX_SUCCESS)
      throw BootstrapError("PMIx_Fence(collect data, allgather #" + std::to_string(seq_) +
                           "): " + api_.error(rc));
    std::vector<std::string> all(static_cast<size_t>(job_.size));
    for (int r = 0; r < job_.size; ++r) {
      pmix_proc_t peer = me_;
      peer.rank = static_cast<pmix_rank_t>(r);
      pmix_value_t* raw = nullptr;
      rc = api_.get(&peer, key.c_str(), nullptr, 0, &raw);
      PmixValue got(api_, raw);
      if (rc != PMIX_SUCCESS || raw == nullptr) {
        throw BootstrapError("PMIx_Get(rank " + std::to_string(r) + ", " + key + "): " + api_.error(rc));
      }
      if (got->type != PMIX_BYTE_OBJECT || got->data.bo.size == 0) {
        throw BootstrapError("PMIx_Get(rank " + std::to_string(r) + ", " + key +
                             "): not the byte object we put");
      }
      all[static_cast<size_t>(r)].assign(got->data.bo.bytes + 1, got->data.bo.size - 1);
    }
    return all;
  }

  void barrier() override {
    check_usable("barrier");
    const pmix_status_t rc = api_.fence(&all_, 1, nullptr, 0);
    if (rc != PMIX_SUCCESS) throw BootstrapError("PMIx_Fence(barrier): " + api_.error(rc));
  }

  void abort(int code, const std::string& why) noexcept override {
    if (!initialized_) return;
    // The launcher (mpirun, srun) ends the job; PMIx_Abort may not return before it does.
    (void)api_.abort(code, why.c_str(), nullptr, 0);
  }

  void finalize() override {
    if (!initialized_) return;
    initialized_ = false;
    const pmix_status_t rc = api_.finalize(nullptr, 0);
    if (rc != PMIX_SUCCESS) throw BootstrapError("PMIx_Finalize: " + api_.error(rc));
  }

  // No PMIx_Finalize in the destructor: a rank that leaves without MPI_Finalize must look like a
  // failure to the launcher.

 private:
  static std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr ? v : "(unset)";
  }

  void check_usable(const char* op) const {
    if (!initialized_) throw BootstrapError(std::string("PMIx ") + op + " after finalize");
  }

  uint64_t get_uint(const pmix_proc_t& proc, const char* key) {
    pmix_value_t* raw = nullptr;
    const pmix_status_t rc = api_.get(&proc, key, nullptr, 0, &raw);
    PmixValue v(api_, raw);
    if (rc != PMIX_SUCCESS || raw == nullptr) {
      throw BootstrapError(std::string("PMIx_Get(") + key + "): " + api_.error(rc) + " (namespace " +
                           nspace_ + ")");
    }
    switch (v->type) {
      case PMIX_UINT8:
        return v->data.uint8;
      case PMIX_UINT16:
        return v->data.uint16;
      case PMIX_UINT32:
        return v->data.uint32;
      case PMIX_UINT64:
        return v->data.uint64;
      case PMIX_SIZE:
        return v->data.size;
      case PMIX_INT:
        if (v->data.integer >= 0) return static_cast<uint64_t>(v->data.integer);
        break;
      default:
        break;
    }
    throw BootstrapError(std::string("PMIx_Get(") + key + "): unexpected value type " +
                         std::to_string(v->type));
  }

  static int as_int(uint64_t v, const char* what, int lo) {
    if (v < static_cast<uint64_t>(lo) || v > (1u << 24)) {
      throw BootstrapError(std::string("PMIx: ") + what + " = " + std::to_string(v) + " is out of range");
    }
    return static_cast<int>(v);
  }

  const PmixApi& api_;
  pmix_proc_t me_{};
  pmix_proc_t all_{};
  std::string nspace_;
  JobInfo job_;
  uint64_t seq_ = 0;
  bool initialized_ = false;
};

}  // namespace

std::unique_ptr<Bootstrap> make_pmix_bootstrap() {
  return std::make_unique<PmixBootstrap>();
}

#endif

}  // namespace takyon::mpi::detail
