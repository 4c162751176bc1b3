#include "mpi/shared_memory_copies.h"

#include <mpi.h>

#include <array>

#include <fmt/format.h>

namespace hetps::mpi {
namespace {

constexpr const char* kSingleCopySetting = "btl_vader_single_copy_mechanism";

// MPI_T is started and ended around each use: its sessions nest, and a use is rare.
class ToolInterface {
 public:
  ToolInterface() {
    int provided = 0;
    started_ = MPI_T_init_thread(MPI_THREAD_FUNNELED, &provided) == MPI_SUCCESS;
  }
  ~ToolInterface() {
    if (started_) MPI_T_finalize();
  }
  ToolInterface(const ToolInterface&) = delete;
  ToolInterface& operator=(const ToolInterface&) = delete;

  bool started() const { return started_; }

 private:
  bool started_ = false;
};

std::optional<int> read_int(int index, MPI_Datatype type) {
  if (type != MPI_INT) return std::nullopt;
  MPI_T_cvar_handle handle;
  int count = 0;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS) return std::nullopt;
  int value = 0;
  const bool read = count == 1 && MPI_T_cvar_read(handle, &value) == MPI_SUCCESS;
  MPI_T_cvar_handle_free(&handle);
  if (!read) return std::nullopt;
  return value;
}

std::string name_of(int value, MPI_T_enum names) {
  int items = 0;
  int enumeration_name_length = 0;  // not wanted back
  if (names != MPI_T_ENUM_NULL &&
      MPI_T_enum_get_info(names, &items, nullptr, &enumeration_name_length) == MPI_SUCCESS) {
    for (int item = 0; item < items; ++item) {
      int item_value = 0;
      std::array<char, 256> text{};
      int length = static_cast<int>(text.size());
      if (MPI_T_enum_get_item(names, item, &item_value, text.data(), &length) == MPI_SUCCESS &&
          item_value == value) {
        return text.data();
      }
    }
  }
  return std::to_string(value);
}

}  // namespace

std::optional<std::string> mpi_setting(const std::string& name) {
  const ToolInterface tools;
  if (!tools.started()) return std::nullopt;
  int index = 0;
  if (MPI_T_cvar_get_index(name.c_str(), &index) != MPI_SUCCESS) return std::nullopt;
  // Neither the variable's name nor its description is wanted back.
  int name_length = 0;
  int description_length = 0;
  int verbosity = 0;
  int binding = 0;
  int scope = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_enum names = MPI_T_ENUM_NULL;
  if (MPI_T_cvar_get_info(index, nullptr, &name_length, &verbosity, &type, &names, nullptr,
                          &description_length, &binding, &scope) != MPI_SUCCESS ||
      binding != MPI_T_BIND_NO_OBJECT) {
    return std::nullopt;
  }
  const std::optional<int> value = read_int(index, type);
  if (!value) return std::nullopt;
  return name_of(*value, names);
}

std::optional<std::string> double_copy_warning(const RankLayout& layout) {
  if (!layout.ranks_share_a_host() || mpi_setting(kSingleCopySetting) != "none") {
    return std::nullopt;
  }
  return fmt::format(
      "OpenMPI's shared-memory transport runs without a single-copy mechanism ({} = none, e.g. "
      "from OMPI_MCA_{}): every large message between ranks on one host is copied twice, so "
      "pushes and pulls there take longer; where the ranks may use ptrace on each other set it "
      "to cma (docs/mpi.md)",
      kSingleCopySetting, kSingleCopySetting);
}

}  // namespace hetps::mpi
