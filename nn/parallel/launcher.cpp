#include "ember/nn/parallel/launcher.h"

#include <cstdlib>

namespace ember::nn::parallel::detail {

LaunchInfo detect_launcher() {
  // Variables holding the world size come first, so that a launcher that sets both a size and
  // a rank reports the size. SLURM_STEP_NUM_TASKS is set by srun for its tasks, not by
  // sbatch's batch shell, which runs alone. PMIx announces only the rank.
  struct Variable {
    const char* name;
    bool is_size;
  };
  static const Variable kVariables[] = {{"OMPI_COMM_WORLD_SIZE", true},
                                        {"PMI_SIZE", true},
                                        {"SLURM_STEP_NUM_TASKS", true},
                                        {"PMIX_RANK", false}};
  LaunchInfo info;
  for (const Variable& v : kVariables) {
    const char* value = std::getenv(v.name);
    if (!value || !*value) continue;
    info.launched = true;
    info.variable = v.name;
    char* end = nullptr;
    const long n = std::strtol(value, &end, 10);
    if (v.is_size && *end == '\0' && n > 0 && n < (1L << 30)) info.world_size = static_cast<int>(n);
    return info;
  }
  return info;
}

}  // namespace ember::nn::parallel::detail
