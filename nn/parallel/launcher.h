#pragma once
// Whether this process was started by an MPI launcher (mpirun, mpiexec, srun), read from the
// variables those launchers set; without them a program is a world of one and MPI stays
// uninitialised, so the same binary runs alone.
#include <optional>

namespace ember::nn::parallel::detail {

struct LaunchInfo {
  /// A launcher's variable was found.
  bool launched = false;
  /// The world size the launcher announced, when it says (OMPI_COMM_WORLD_SIZE, PMI_SIZE,
  /// SLURM_STEP_NUM_TASKS; PMIx says only the rank).
  std::optional<int> world_size;
  /// The variable that decided, for messages ("OMPI_COMM_WORLD_SIZE=2").
  const char* variable = nullptr;
};

/// Reads the launcher variables of Open MPI, MPICH/Hydra (and Intel MPI), PMIx and Slurm.
LaunchInfo detect_launcher();

}  // namespace ember::nn::parallel::detail
